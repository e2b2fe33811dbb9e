"""A run's mechanics on one compiled model as Python evaluates them, for the driver (simulation/driver.py) and the
modes of its switched elements (simulation/hybrid): the compiled model, the run's one Data on it and the System the
stepper integrates (simulation/problem.py), each evaluation after the values only Python gives (RunInputs)."""
import numpy as np

from ..dynamics.api import singular_node_error
from ..errors import StepError
from ..status import NOT_CONVERGED, OK, SINGULAR, describe
from .problem import correct, derivative, system


class Plant:
    """``cm``, ``data`` and ``system`` of a run on one compiled model, and the ``problem`` its compiled stepper
    integrates: the system, or the system wrapped by the run's compiled I/O link (modeling/links/base.py);
    ``inputs`` write the Python-given values (simulation/run_inputs.py); ``solver`` names the integrator in
    messages. Evaluations from Python are the system's. A failed evaluation raises StepError."""

    def __init__(self, cm, data, inputs, solver):
        self.cm, self.data, self.inputs, self.solver = cm, data, inputs, solver
        self.system = self.problem = system(cm.arrays, data, cm.is_tree)
        for link in inputs.compiled_links:
            self.problem = link.problem(self.problem, cm)

    def rhs(self, t, y):
        """dy/dt at (t, y), the Python-given values at (t, y) written first."""
        # contiguous, as the compiled loop's states: scipy's finite-difference Jacobians pass columns of an array,
        # and a strided y would compile the whole dynamics a second time for that layout
        y = np.ascontiguousarray(y)
        self.inputs.python_values(t, y)
        dy = np.empty_like(y)
        status = derivative(self.system, t, y, dy)
        if status != OK:
            raise StepError(self.failure(status, t))
        return dy

    def dynamics(self, t, y):
        """(dy/dt, the constraint multipliers of every row, 0 for rows not taking part) at (t, y): one evaluation of
        the right-hand side."""
        return self.rhs(t, y), self.data.cw.lam.copy()

    def correct(self, t, y):
        """Drift correction of y in place at t, the Python-given values at t written first (no controller sample)."""
        self.inputs.python_values(t, y, sample_controller=False)
        self.project(t, y)

    def project(self, t, y):
        """Drift correction of y in place at t with the values the inputs last wrote."""
        status = correct(self.system, t, y)
        if status != OK:
            raise StepError(self.failure(status, t))

    def failure(self, status, t, message=None):
        """Why an evaluation or a step failed with ``status`` at t (``message``: the stepper's own, if any)."""
        if status == NOT_CONVERGED:
            h = self.data.cw.h
            worst = np.max(np.abs(h)) if h.size else 0.0
            return (f"constraint violation beyond tolerance at t = {t:.6g}: projection did not converge "
                    f"(max |g| = {worst:.3g}); the mechanism may have locked or lost a loop — try smaller "
                    "tolerances or max_step")
        if status == SINGULAR:
            return (f"the constraint equations could not be solved at t = {t:.6g} (singular configuration); "
                    "try constraint_solver='qr'")
        if status >= 0:
            return str(singular_node_error(self.cm, status)) + f" (t = {t:.6g})"
        return f"{self.solver} failed at t = {t:.6g}: {message or describe(status)}"
