"""Variable-step integration with scipy's OdeSolver classes, stepped one accepted step at a time
so that the state can be corrected after each step and outputs taken from the dense output."""
import numpy as np
from scipy.integrate import BDF, DOP853, LSODA, RK23, RK45, Radau

ADAPTIVE_METHODS = {"RK23": RK23, "RK45": RK45, "DOP853": DOP853, "Radau": Radau, "BDF": BDF, "LSODA": LSODA}
# solvers whose current state may be corrected in place between steps (no hidden history)
CORRECTABLE = ("RK23", "RK45", "DOP853", "Radau")


class StepFailure(Exception):
    """The solver could not take a step (its message says why)."""


def integrate_adaptive(rhs, t0, y0, t_end, method, rtol, atol, max_step, t_eval, record, correct, progress):
    """Integrate dy/dt = rhs(t, y) from t0 to t_end; ``record(t, y)`` at every accepted step or at the
    t_eval points inside it (dense output); ``correct(t, y)`` fixes the state in place after each step.
    Returns the state at t_end."""
    solver = ADAPTIVE_METHODS[method](rhs, t0, y0, t_end, rtol=rtol, atol=atol,
                                      max_step=np.inf if max_step is None else max_step)
    pending = 0
    if t_eval is None:
        record(t0, y0)
    else:
        while pending < len(t_eval) and t_eval[pending] <= t0:
            record(t_eval[pending], y0)
            pending += 1
    while solver.status == "running":
        message = solver.step()
        if solver.status == "failed":
            raise StepFailure(f"{method} failed at t = {solver.t:.6g}: {message}")
        if t_eval is None:
            record(solver.t, solver.y)
        else:
            dense = None
            while pending < len(t_eval) and t_eval[pending] <= solver.t:
                dense = dense or solver.dense_output()
                record(t_eval[pending], dense(t_eval[pending]))
                pending += 1
        if method in CORRECTABLE:
            correct(solver.t, solver.y)
        progress(solver.t)
    return solver.y
