"""The Stepper protocol on scipy's OdeSolver classes (and a fixed-step OdeSolver running the Euler
and RK4 tableaux), for Python right-hand sides and the implicit solvers.

The solver's state is corrected after each step where the solver keeps no hidden history: the
explicit Runge–Kutta family (scipy's RungeKutta subclasses), Radau and FixedStep. Its derivative
is then re-evaluated at the corrected state before the next step. BDF and LSODA carry a history
(difference array, Nordsieck array) that a correction would invalidate: they integrate
uncorrected, and only what the stepper reports (y, the outputs) is corrected.

A step's dense output is scipy's DenseOutput object read as an Interpolant (interpolant_of), which the
event locator (locator.py) and ``dense`` evaluate compiled.
"""
import inspect

import numpy as np
from scipy.integrate import BDF, DOP853, LSODA, RK23, RK45, OdeSolver, Radau
from scipy.integrate._ivp.bdf import BdfDenseOutput           # the solvers' dense outputs (not exported)
from scipy.integrate._ivp.lsoda import LsodaDenseOutput
from scipy.integrate._ivp.radau import RadauDenseOutput
from scipy.integrate._ivp.rk import Dop853DenseOutput, RkDenseOutput, RungeKutta   # RungeKutta: RK23's, RK45's base

from ..status import EVENT, MESSAGES, NON_FINITE, OK, PAUSED, STEP_FAILED, STEP_TOO_SMALL
from . import dense as kinds
from .base import Stepper, stepper_options
from .dense import Interpolant
from .locator import Watcher, new_watch
from .tableaux import TABLEAUX


def interpolant_of(dense):
    """The Interpolant (dense.py) of a dense output of scipy's solvers or FixedStep: its kind, step and the
    arrays scipy's classes hold (RkDenseOutput's Q, RadauDenseOutput's Q, Dop853DenseOutput's F, BdfDenseOutput's
    D with h = denom[0], LsodaDenseOutput's yh), as C (n, p)."""
    if isinstance(dense, Dop853DenseOutput):
        kind, h, y_old, C = kinds.DOP853, dense.h, dense.y_old, dense.F.T
    elif isinstance(dense, RkDenseOutput):
        kind, h, y_old, C = kinds.RK, dense.h, dense.y_old, dense.Q
    elif isinstance(dense, RadauDenseOutput):
        kind, h, y_old, C = kinds.RADAU, dense.h, dense.y_old, dense.Q
    elif isinstance(dense, BdfDenseOutput):
        kind, h, y_old, C = kinds.BDF, dense.denom[0], (), dense.D.T
    elif isinstance(dense, LsodaDenseOutput):
        kind, h, y_old, C = kinds.LSODA, dense.h, (), dense.yh
    else:
        raise TypeError(f"no Interpolant kind for {type(dense).__name__}")
    return Interpolant(kind, float(dense.t_old), float(dense.t), float(h), np.ascontiguousarray(y_old, dtype=float),
                       np.ascontiguousarray(C, dtype=float))


class FixedStep(OdeSolver):
    """Fixed steps h of an explicit tableau of tableaux.py (``method``: "RK4", or "Euler" in the
    subclass FixedEuler) on the grid t0 + k h, the last step ending at t_bound; dense output as
    the compiled stepper's. ``first_step`` is accepted as h (solve_ivp's name)."""
    method = "RK4"

    def __init__(self, fun, t0, y0, t_bound, h=None, vectorized=False, first_step=None, **extraneous):
        super().__init__(fun, t0, y0, t_bound, vectorized)
        h = first_step if h is None else h
        if h is None or not h > 0:
            raise ValueError(f"{self.method} takes fixed steps: give the step h > 0")
        self.tableau, self.h = TABLEAUX[self.method], float(h)
        self.t_grid, self.n_grid = self.t, 0
        self.f = self.fun(self.t, self.y)
        self.K = np.empty((self.tableau.A.shape[0], self.n))
        self.y_old = self.h_previous = None

    def _step_impl(self):
        tab, t, h = self.tableau, self.t, self.h
        t_new, on_grid = self.t_grid + (self.n_grid + 1) * h, True
        if t_new > self.t_bound or self.t_bound - t_new <= 1e-9 * h:   # the compiled stepper's rule
            on_grid, t_new = t_new - self.t_bound <= 1e-9 * h, self.t_bound
        step = t_new - t
        self.K[0] = self.f
        for s in range(1, tab.n_stages + 1):
            y_new = self.y + (self.K[:s].T @ tab.A[s, :s]) * step
            if not np.all(np.isfinite(y_new)):
                return False, MESSAGES[NON_FINITE]
            self.K[s] = self.fun(t + tab.c[s] * step, y_new)
        self.n_grid += on_grid
        self.y_old, self.h_previous = self.y, step
        self.t, self.y, self.f = t_new, y_new, self.K[tab.n_stages].copy()
        return True, None

    def _dense_output_impl(self):
        return RkDenseOutput(self.t_old, self.t, self.y_old, self.K.T @ self.tableau.P)


class FixedEuler(FixedStep):
    method = "Euler"


SCIPY_SOLVERS = {"Euler": FixedEuler, "RK4": FixedStep, "RK23": RK23, "RK45": RK45, "DOP853": DOP853, "Radau": Radau,
           "BDF": BDF, "LSODA": LSODA}
CORRECTABLE = (RungeKutta, Radau, FixedStep)      # solvers without hidden history


class ScipyStepper(Stepper):
    """The Stepper protocol (base.py) on a scipy OdeSolver.

    rhs(t, y) -> dy; correct(t, y) projects y in place (or None); events(t, y) -> g (n_events,)
    (or None: no events), watched by a locator.Watcher. ``solver``: a name of SCIPY_SOLVERS or an OdeSolver
    subclass (as solve_ivp's ``method``). h: the step of the fixed-step solvers (FixedStep; scipy's adaptive solvers
    take no fixed step: their first step is first_step). A step the solver cannot take gives STEP_TOO_SMALL (its
    message on ``message``) or STEP_FAILED; exceptions raised by rhs, correct or events propagate.
    """

    KNOWN = ("rtol", "atol", "max_step", "h", "first_step", "n_samples", "directions")

    def __init__(self, rhs, correct, events, solver, t0, y0, t_bound, **options):
        """``options``: those of KNOWN (base.py STEPPER_OPTIONS)."""
        opts = stepper_options(ScipyStepper, options)
        if isinstance(solver, str):
            if solver not in SCIPY_SOLVERS:
                raise ValueError(f"unknown solver {solver!r}; scipy solvers: {', '.join(SCIPY_SOLVERS)}")
            solver = SCIPY_SOLVERS[solver]
        elif not (inspect.isclass(solver) and issubclass(solver, OdeSolver)):
            raise ValueError("solver must be a name or an OdeSolver subclass")
        if t_bound < t0:
            raise ValueError("steppers run forward in time: t_bound must be >= t0")
        self.solver_class, self.correctable = solver, issubclass(solver, CORRECTABLE)
        if issubclass(solver, FixedStep):
            self.options = dict(h=opts["h"])
        elif opts["h"] is not None:
            raise ValueError(f"{solver.__name__} is adaptive: it takes no fixed step h (give its first step as "
                             "first_step)")
        else:
            self.options = dict(rtol=opts["rtol"], atol=opts["atol"], max_step=opts["max_step"])
            if opts["first_step"] is not None:
                self.options["first_step"] = opts["first_step"]
        self._rhs, self._correct = rhs, correct
        self.n_samples, self.t_bound = int(opts["n_samples"]), float(t_bound)
        self.solver, self.message = None, None
        self.steps = self.projections = self._nfev = self._rejected = 0
        n_events = 0 if events is None else np.size(events(float(t0), np.array(y0, dtype=float)))
        self.watcher = None if events is None else Watcher(correct, events, n_events, opts["directions"], None,
                                                           self.n_samples)
        self.watch = new_watch(0) if events is None else self.watcher.watch
        self.restart(t0, y0)

    def restart(self, t, y, t_bound=None):
        if t_bound is not None:
            self.t_bound = float(t_bound)
        if self.solver is not None:
            self._nfev += self.solver.nfev
        options = dict(self.options)
        if "first_step" in options:       # within the span, as the compiled start takes it (scipy refuses more)
            span = self.t_bound - float(t)
            options["first_step"] = min(float(options["first_step"]), span) if span > 0 else None
        self.solver = self.solver_class(self._rhs, float(t), np.array(y, dtype=float), self.t_bound, **options)
        self.t_old = self.t = float(t)
        self.y = self.solver.y.copy()
        if self.watcher is not None:
            self.watcher.start(self.t, self.y)
        self._interpolant, self._pending, self.message = None, False, None
        return OK

    def advance(self, t_bound, max_steps, every_step, t_eval, n_out, T, Y):
        t_eval = self._checked_outputs(every_step, t_eval, n_out, T)
        self._rebound(float(t_bound))
        for _ in range(max_steps):
            if self.t >= t_bound:
                return OK, n_out
            if every_step and n_out >= len(T):
                return PAUSED, n_out
            status = self._step()
            if status != OK:
                return status, n_out
            if every_step:
                T[n_out], Y[n_out] = self.t, self.y
                n_out += 1
            while not every_step and n_out < len(t_eval) and t_eval[n_out] <= self.t:
                T[n_out] = t_eval[n_out]
                if t_eval[n_out] == self.t:
                    Y[n_out] = self.y
                else:
                    Y[n_out] = self.dense(t_eval[n_out])
                    if self._correct is not None:
                        self._correct(t_eval[n_out], Y[n_out])
                n_out += 1
            if self.watcher is not None and self.watcher.scan(self.interpolant(), self.t, self.y):
                return EVENT, n_out
        return (OK if self.t >= t_bound else PAUSED), n_out

    def interpolant(self):
        """The solver's dense output of the last step (interpolant_of; before any step, y), read once per step."""
        if self._interpolant is None:
            self._interpolant = interpolant_of(self.solver.dense_output()) if self.t > self.t_old else \
                Interpolant(kinds.RK, self.t, self.t, 0.0, self.y.copy(), np.zeros((len(self.y), 0)))
        return self._interpolant

    def locate(self):
        return None if self.watcher is None else self.watcher.locate(self.interpolant())

    @property
    def stats(self):
        rejected = self._rejected if issubclass(self.solver_class, (RungeKutta, FixedStep)) else None
        return dict(steps=self.steps, rejected=rejected, rhs_evaluations=self._nfev + self.solver.nfev,
                    projections=self.projections)

    # ------------------------------------------------------------------------------------------
    def _rebound(self, t_bound):
        """Let the solver step up to t_bound: its t_bound is read at every step, except by LSODA,
        which keeps it inside its Fortran state and is restarted (losing its history)."""
        solver = self.solver
        if t_bound == solver.t_bound:
            return
        if isinstance(solver, LSODA):
            g_old = self.g_old.copy()
            self.restart(self.t, self.y, t_bound)
            self.g_old[:] = g_old
            return
        solver.t_bound = t_bound
        if solver.status == "finished" and solver.t < t_bound:
            solver.status = "running"

    def _step(self):
        """One step of the solver from the corrected state; then self.y = the corrected new state
        (the solver's own copy stays raw until the next step, so that its dense output is raw)."""
        solver = self.solver
        if self._pending:                               # hand the corrected state to the solver
            solver.y = self.y.copy()
            solver.f = solver.fun(solver.t, solver.y)
            self._pending = False
        nfev = solver.nfev
        message = solver.step()
        if solver.status == "failed":
            self.message = message
            if not np.all(np.isfinite(solver.y)) or message == MESSAGES[NON_FINITE]:
                return NON_FINITE
            return STEP_TOO_SMALL if "step size" in str(message) else STEP_FAILED
        self.steps += 1
        if isinstance(solver, RungeKutta):
            self._rejected += (solver.nfev - nfev) // solver.n_stages - 1
        self.t_old, self.t, self._interpolant = solver.t_old, solver.t, None
        y = solver.y.copy()
        if self._correct is not None:
            self._correct(self.t, y)
            if not np.array_equal(y, solver.y):
                self.projections += 1
                self._pending = self.correctable
        self.y = y
        if not np.all(np.isfinite(y)):
            self.message = MESSAGES[NON_FINITE]
            return NON_FINITE
        return OK
