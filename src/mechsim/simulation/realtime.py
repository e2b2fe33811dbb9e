"""Runs paced to the wall clock (``m.simulate(..., realtime=True)`` or a factor; issue 46).

Khan, Tang & Krovi (2006, §5) run their modular four-bar on RT-LAB at fixed steps synchronized with real
time, for hardware in the loop: a step of simulated time h takes h / factor of wall time, no less. The pacer
holds each fixed step until its start time on the wall clock, t_wall(t) = wall_0 + (t - t_0) / factor, and
notes when it ended after its deadline t_wall(t + h) (an overrun: the computer could not keep up).
It only waits: what the run computes is the unpaced run's, step for step.
"""
import time
import warnings
from collections import deque

SPIN = 1e-3           # s before a start time where the pacer stops sleeping and polls the clock (sleep and the
                      # scheduler wake it up to ~1 ms late: a step of 1 ms or less is held by polling alone)
WINDOW = 200          # steps over which persistent overruns are judged
PERSISTENT = 0.5      # share of a window's steps that overran: the run cannot keep up


def realtime_factor(value):
    """The pacing factor of the ``realtime`` option: None (not paced), or simulated seconds per wall second."""
    if value is None or value is False:
        return None
    return 1.0 if value is True else float(value)


class Pacer:
    """Holds the steps of a run to the wall clock at ``factor`` simulated seconds per wall second, from the run's
    start (t0); ``stats()`` is what ``res.stats["realtime"]`` reports."""

    def __init__(self, factor, t0, h, solver, clock=time.perf_counter):
        self.factor, self.t0, self.h, self.solver, self.clock = factor, t0, h, solver, clock
        self.wall0 = clock()
        self.steps = self.overruns = 0
        self.worst = self.total_late = self.total_compute = 0.0
        self.window = deque(maxlen=WINDOW)   # overran or not, the last WINDOW steps
        self.warned = False
        self.started = self.wall0

    def wall(self, t):
        """The wall-clock time of simulated time t."""
        return self.wall0 + (t - self.t0) / self.factor

    def start(self, t):
        """Wait until the step from t may start (sleep, then poll the clock for the last SPIN seconds)."""
        start = self.wall(t)
        while True:
            left = start - self.clock()
            if left <= 0.0:
                break
            if left > SPIN:
                time.sleep(left - SPIN)
        self.started = self.clock()

    def end(self, t):
        """The step that started at the last ``start`` ended at simulated time t: its lateness against its
        deadline, and a warning (once) when most steps of the last WINDOW overran."""
        now = self.clock()
        late = now - self.wall(t)
        self.steps += 1
        self.total_compute += now - self.started
        overran = late > 0.0
        if overran:
            self.overruns += 1
            self.total_late += late
            self.worst = max(self.worst, late)
        self.window.append(overran)
        if not self.warned and len(self.window) == WINDOW and sum(self.window) > PERSISTENT * WINDOW:
            self.warned = True
            self._warn(t)

    def _warn(self, t):
        compute = self.total_compute / self.steps
        keep_up = compute * self.factor
        warnings.warn(f"the real-time run cannot keep up: {sum(self.window)} of its last {WINDOW} steps ended after "
                      f"their deadline (t = {t:.6g} s); a step of h = {self.h:g} s takes {compute * 1e3:.3g} ms of "
                      f"computation, so solver {self.solver!r} keeps up with h >= {keep_up:.2g} s"
                      + ("" if self.solver == "Euler" else " (solver 'Euler' does a quarter of RK4's work per step)")
                      + (f", or realtime={min(1.0, 0.8 * self.h / compute):.2g} (slower than real time)"
                         if compute > 0 else ""), stacklevel=7)    # the user's m.simulate: here < end < the driver's
                                                                  # _integrate < run < simulate < Model.simulate

    def stats(self):
        """steps, overruns (steps that ended after their deadline), worst and mean lateness [s] (the mean over
        every step, 0 for one in time), mean computation per step [s] and the factor."""
        n = max(self.steps, 1)
        return dict(factor=self.factor, steps=self.steps, overruns=self.overruns, max_lateness=self.worst,
                    mean_lateness=self.total_late / n, mean_step_compute=self.total_compute / n)
