"""The stepper protocol: what a run driver needs from an integrator."""
import numpy as np


class Stepper:
    """Integrates y' = f(t, y) forward in time one accepted step at a time, correcting the state
    after each step and watching event functions g(t, y) for sign changes.

    Attributes
    ----------
    t_old, t : float
        Start and end of the last accepted step (both the start time before the first).
    y : ndarray (n,)
        The state at t, corrected; the stepper's own array (copy it to keep it).
    g_old : ndarray (n_events,), or more
        Event values at t (the compiled stepper's: then its events' rates, explicit.new_state). After
        an event the driver may zero an entry (at its restart point): a sign change is only counted
        from a nonzero value (see ``explicit.crossing``).
    crossed : ndarray (n_events,) of int
        For the last step, per event, the first sample interval j where it crossed (-1: none):
        the root lies in ``bracket(i)`` (with its ends on one side when it is one of two around an
        extremum inside, found by the event's rate: explicit.bracket).
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
        recording, the event functions are evaluated at ``n_samples`` interior points of the raw
        dense output and at (t, y): on a sign change (``crossing``, in the event's direction; the
        compiled stepper also at an extremum between two samples of an event whose rate it has) the
        step stays accepted with its outputs, and EVENT is returned; the driver locates the root
        with ``dense`` and drops outputs after it if its action changes the state.
    dense(t) -> ndarray
        The raw (uncorrected) continuous extension of the last step at t in [t_old, t].
    locate() -> (t, i) or None
        After EVENT: the earliest root of the last step's crossings on the corrected dense output,
        as the driver would locate it, and its event i, when no other event's root is at that
        instant; None when the stepper does not locate roots itself or cannot tell (the driver
        then locates every crossing with ``dense``).
    stats -> dict
        steps (accepted), rejected (None when the solver does not tell), rhs_evaluations,
        projections (corrections of the state after a step that changed it).
    """
    t_old = t = y = g_old = crossed = n_samples = t_bound = message = None

    def restart(self, t, y, t_bound=None):
        raise NotImplementedError

    def advance(self, t_bound, max_steps, every_step, t_eval, n_out, T, Y):
        raise NotImplementedError

    def dense(self, t):
        raise NotImplementedError

    def locate(self):
        return None

    @property
    def stats(self):
        raise NotImplementedError

    def sample_times(self):
        """The points of the last step where the event functions were sampled: t_old, the
        n_samples interior points t_old + (k / (n_samples + 1)) (t - t_old), and t."""
        m, h = self.n_samples + 1, self.t - self.t_old
        return np.array([self.t_old] + [self.t_old + (k / m) * h for k in range(1, m)] + [self.t])

    def bracket(self, i):
        """(ta, tb), the sample interval of the last step where event i crossed (see ``crossed``)."""
        j = int(self.crossed[i])
        if j < 0:
            raise ValueError(f"event {i} did not cross in the last step")
        times = self.sample_times()
        return float(times[j]), float(times[j + 1])

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
