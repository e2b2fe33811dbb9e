"""The Stepper protocol on scipy's OdeSolver classes (and a fixed-step OdeSolver running the Euler
and RK4 tableaux), for Python right-hand sides and the implicit solvers.

The solver's state is corrected after each step where the solver keeps no hidden history: the
explicit Runge–Kutta family (scipy's RungeKutta subclasses), Radau and FixedStep. Its derivative
is then re-evaluated at the corrected state before the next step. BDF and LSODA carry a history
(difference array, Nordsieck array) that a correction would invalidate: they integrate
uncorrected, and only what the stepper reports (y, the outputs) is corrected.
"""
import inspect

import numpy as np
from scipy.integrate import BDF, DOP853, LSODA, RK23, RK45, DenseOutput, OdeSolver, Radau
from scipy.integrate._ivp.rk import RungeKutta       # the base class of RK23, RK45, DOP853 (not exported)

from ..status import EVENT, MESSAGES, NON_FINITE, OK, PAUSED, STEP_FAILED, STEP_TOO_SMALL
from .base import Stepper
from .explicit import crossing
from .tableaux import TABLEAUX


class TableauDenseOutput(DenseOutput):
    """y_old + h sum_j Q_j x^(j+1), x = (t - t_old) / h: a tableau's continuous extension."""

    def __init__(self, t_old, t, y_old, Q):
        super().__init__(t_old, t)
        self.h, self.y_old, self.Q = t - t_old, y_old, Q

    def _call_impl(self, t):
        x = (np.asarray(t) - self.t_old) / self.h
        powers = np.cumprod(np.multiply.outer(np.ones(self.Q.shape[1]), x), axis=0)
        y = self.h * (self.Q @ powers)
        return (y.T + self.y_old).T


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
        return TableauDenseOutput(self.t_old, self.t, self.y_old, self.K.T @ self.tableau.P)


class FixedEuler(FixedStep):
    method = "Euler"


SCIPY_SOLVERS = {"Euler": FixedEuler, "RK4": FixedStep, "RK23": RK23, "RK45": RK45, "DOP853": DOP853, "Radau": Radau,
           "BDF": BDF, "LSODA": LSODA}
CORRECTABLE = (RungeKutta, Radau, FixedStep)      # solvers without hidden history


class ScipyStepper(Stepper):
    """The Stepper protocol (base.py) on a scipy OdeSolver.

    rhs(t, y) -> dy; correct(t, y) projects y in place (or None); events(t, y) -> g (n_events,)
    (or None: no events). ``solver``: a name of SCIPY_SOLVERS or an OdeSolver subclass (as solve_ivp's
    ``method``). h: the step of the fixed-step solvers, the first step of the others. A step the
    solver cannot take gives STEP_TOO_SMALL (its message on ``message``) or STEP_FAILED;
    exceptions raised by rhs, correct or events propagate.
    """

    def __init__(self, rhs, correct, events, solver, t0, y0, t_bound, rtol=1e-3, atol=1e-6, max_step=np.inf, h=None,
                 directions=None, n_samples=4):
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
            self.options = dict(h=h)
        else:
            self.options = dict(rtol=rtol, atol=atol, max_step=max_step)
            if h is not None:
                self.options["first_step"] = h
        self._rhs, self._correct, self._events = rhs, correct, events
        self.n_samples, self.t_bound = int(n_samples), float(t_bound)
        self.solver, self.message = None, None
        self.steps = self.projections = self._nfev = self._rejected = 0
        if directions is not None:
            directions = np.sign(np.asarray(directions, dtype=float)).astype(np.int64).ravel()
        self.directions = directions
        self.restart(t0, y0)

    def restart(self, t, y, t_bound=None):
        if t_bound is not None:
            self.t_bound = float(t_bound)
        if self.solver is not None:
            self._nfev += self.solver.nfev
        self.solver = self.solver_class(self._rhs, float(t), np.array(y, dtype=float), self.t_bound, **self.options)
        self.t_old = self.t = float(t)
        self.y = self.solver.y.copy()
        self.g_old = np.zeros(0) if self._events is None else np.array(self._events(self.t, self.y), dtype=float)
        if self.directions is None:
            self.directions = np.zeros(self.g_old.size, dtype=np.int64)
        if self.directions.shape != self.g_old.shape:
            raise ValueError(f"directions must have {self.g_old.size} entries")
        self.crossed = np.full(self.g_old.size, -1)
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
            if self.g_old.size and self._scan_events():
                return EVENT, n_out
        return (OK if self.t >= t_bound else PAUSED), n_out

    def dense(self, t):
        if self.t == self.t_old:
            return self.y.copy()
        if self._interpolant is None:
            self._interpolant = self.solver.dense_output()
        return self._interpolant(t)

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

    def _scan_events(self):
        """The sampling of explicit.scan_events: the dense output at n_samples interior points and
        the corrected end, pairs tested with ``crossing``. Returns whether an event crossed."""
        m, h = self.n_samples + 1, self.t - self.t_old
        self.crossed[:] = -1
        for k in range(1, m + 1):
            ts = self.t_old + (k / m) * h
            g = np.asarray(self._events(ts, self.dense(ts)) if k < m else self._events(self.t, self.y), dtype=float)
            for i in range(g.size):
                if self.crossed[i] < 0 and crossing(self.g_old[i], g[i], self.directions[i]):
                    self.crossed[i] = k - 1
            self.g_old[:] = g
        return bool(np.any(self.crossed >= 0))
