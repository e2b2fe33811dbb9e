"""The stepper protocol: what a run driver needs from an integrator."""
import numpy as np

from .dense import interpolate
from .locator import CROSSED, FROM, G_OLD, TO

# the steppers' options and their defaults; each stepper takes those of its KNOWN (as scipy's solvers, **options)
STEPPER_OPTIONS = dict(
    rtol=1e-3, atol=1e-6,           # tolerances of the error estimate (atol: a number or one per component)
    max_step=np.inf, h=None,        # h: fixed steps of h (any compiled tableau; scipy's adaptive solvers refuse it)
    first_step=None,                # an adaptive start's first step (None: chosen as scipy's select_initial_step)
    n_samples=4,                    # interior points per step where the event functions are sampled
    n_events=0, directions=None,    # the problem's events and their directions (+1, -1, 0: both)
    rates=None,                     # per event, the index of the event function that is its rate (-1: none)
    jumps=False,                    # event actions run compiled where the problem's jump can
    step_control="standard",        # a name in STEP_CONTROLS
    correct_start=False)            # y0 is corrected by the start


def stepper_options(stepper, given):
    """The options of ``stepper`` (a Stepper class): ``given`` over the defaults of its KNOWN; ValueError naming
    any option it does not know."""
    unknown = sorted(set(given) - set(stepper.KNOWN))
    if unknown:
        raise ValueError(f"{stepper.__name__}: unknown option(s) {unknown}; options are {sorted(stepper.KNOWN)}")
    return {name: given.get(name, STEPPER_OPTIONS[name]) for name in stepper.KNOWN}


class Stepper:
    """Integrates y' = f(t, y) forward in time one accepted step at a time, correcting the state
    after each step and watching event functions g(t, y) for sign changes (the event locator,
    locator.py, on the step's dense output).

    Attributes
    ----------
    t_old, t : float
        Start and end of the last accepted step (both the start time before the first).
    y : ndarray (n,)
        The state at t, corrected; the stepper's own array (copy it to keep it).
    watch : locator.Watch
        The event locator's arrays of the stepper's events, read by:
    g_old : ndarray (n_events,), or more
        Event values at t (then any rates', locator.Watch). After an event the driver may zero an
        entry (at its restart point): a sign change is only counted from a nonzero value (see
        ``locator.crossing``).
    crossed : ndarray (n_events,) of int
        For the last step, per event, the first sample interval j where it crossed (-1: none):
        the root lies in ``bracket(i)`` (a part of that interval when it is one of two around an
        extremum inside, found by the event's rate: locator.bracket).
    n_samples : int
        Interior points per step where the event functions are sampled.
    t_bound : float
        End of the run, used for the starting step size.
    message : str or None
        Why the last call failed.

    Methods
    -------
    restart(t, y, t_bound=None) -> status
        Start again at (t, y) (y already corrected): derivative re-evaluated, step size
        reselected, g_old = g(t, y). Used after an event action changed the state. A stepper may
        defer the start to its next advance, which then returns a failing start's status.
    advance(t_bound, max_steps, every_step, t_eval, n_out, T, Y) -> (status, n_out)
        Accepted steps until t >= t_bound (OK), ``max_steps`` steps done or T full (PAUSED: call
        again to resume; the result is that of an uninterrupted run), a failure (its code), or
        an event (EVENT). Outputs go to T[n_out:], Y[n_out:]: with every_step, (t, y) after each
        step; else the t_eval points up to t of each step (t_eval[n_out] >= t on entry, T as
        long as t_eval), from the dense output, each corrected (a point at t gets y). After
        recording, the event locator scans the step (locator.scan: the event functions at
        ``n_samples`` interior points of the raw dense output and at (t, y), and at an extremum
        between two samples of an event whose rate it has): on a crossing the step stays accepted
        with its outputs, and EVENT is returned; the driver has the root located (``locate``) and
        drops outputs after it if its action changes the state.
    interpolant() -> dense.Interpolant
        The raw (uncorrected) continuous extension of the last step, as data.
    dense(t) -> ndarray
        The interpolant at t in [t_old, t].
    locate() -> (t, events) or None
        After EVENT: the earliest root of the last step's crossings (locator.locate) and the events
        whose roots are at that instant; None when the stepper cannot tell (a failing evaluation:
        the driver then locates with its own watcher).
    stats -> dict
        steps (accepted), rejected (None when the solver does not tell), rhs_evaluations,
        projections (corrections of the state after a step that changed it).
    """
    KNOWN = ()                      # the names of STEPPER_OPTIONS the stepper takes
    t_old = t = y = watch = n_samples = t_bound = message = None
    g_old = property(lambda self: self.watch.g[G_OLD])
    crossed = property(lambda self: self.watch.events[CROSSED])

    def restart(self, t, y, t_bound=None):
        raise NotImplementedError

    def advance(self, t_bound, max_steps, every_step, t_eval, n_out, T, Y):
        raise NotImplementedError

    def interpolant(self):
        raise NotImplementedError

    def dense(self, t):
        out = np.empty(len(self.y))
        interpolate(self.interpolant(), float(t), out)
        return out

    def locate(self):
        raise NotImplementedError

    @property
    def stats(self):
        raise NotImplementedError

    def bracket(self, i):
        """(ta, tb), the bracket of event i's crossing in the last step (see ``crossed``)."""
        if self.crossed[i] < 0:
            raise ValueError(f"event {i} did not cross in the last step")
        return float(self.watch.g[FROM][i]), float(self.watch.g[TO][i])

    def _checked_outputs(self, every_step, t_eval, n_out, T):
        """t_eval as a float array (empty with every_step), checked against n_out and T."""
        if every_step:
            return np.empty(0)
        t_eval = np.ascontiguousarray(t_eval, dtype=float)
        if len(T) < len(t_eval):
            raise ValueError("T must be as long as t_eval")
        if n_out < len(t_eval) and t_eval[n_out] < self.t:
            raise ValueError(f"t_eval[{n_out}] = {t_eval[n_out]} is before t = {self.t}")
        return t_eval
