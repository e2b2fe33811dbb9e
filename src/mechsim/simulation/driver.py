"""The run driver: one loop for every simulation (SPEC §3 ``m.simulate``).

It asks a stepper (integrators/base.py) for accepted steps — the compiled Runge–Kutta loop in
chunks, or scipy's solvers through the adapter — and does, once for all of them, what happens
between steps: outputs (recorded by the stepper on its projected dense output), sampled
controllers (time events: the stepper stops at each sample and restarts with the new inputs),
zero-crossing events located on the projected dense output (Wood & Kennedy 2003 §3.4) with their
actions, progress, statistics, and the partial result when a run fails.

Events are located by the event locator (integrators/locator.py), the driver routes them: a step in
which some condition may have changed sign (the compiled loop scans the signals it watches and
locates their earliest root itself; Python conditions, and every condition of the Python backend, are
scanned after each step by the run's Watcher, its event functions evaluated here) yields the earliest
root and the events at that instant, each fired with its action; the rest of the step is scanned again
after an event that changed nothing.
An event does not fire again at its own restart point (its first sample there counts as zero).
After an action changed the state or the inputs, the outputs past the event are dropped and the
stepper restarts at the event (derivative recomputed, step size reset, state re-projected).
The compiled loop does all of this itself for a contact point's bounce while every contact is open
(dynamics/impacts.py; integrators/explicit.py ``jumped``); the driver logs those bounces after each
chunk (``_log_bounces``).
"""
import copy
import warnings
import weakref
from collections import namedtuple

import numpy as np

from .._jit_cache import Aside
from ..assembly.assemble import solve_positions, solve_velocities
from ..dynamics.data import NULLSPACE
from ..dynamics.impacts import LOG_APPROACH, LOG_IMPULSE, LOG_REBOUND, LOG_SIGNAL, LOG_T, LOG_THRESHOLD
from ..dynamics.nullspace import CHANGES, GREW, LOG_CAPACITY
from ..errors import MechsimError, ModelError, StepError, keyword
from ..integrators import CompiledStepper, Watcher
from ..modeling.events import as_events
from ..modeling.names import find_item, split_index
from ..results.result import EventRecord, JoinedResult, Mode, Outcome, Result
from ..results.state import State
from ..status import EVENT, OK, PAUSED
from .events import compile_signals
from .formulations import penalty_table
from .hybrid import Modes
from .options import COMPILED_SOLVERS, FIXED_STEP_SOLVERS
from .plant import Plant
from .problem import events as system_signals
from .progress import Progress
from .realtime import Pacer, realtime_factor
from .run_inputs import RunInputs

CHUNK = 2000             # accepted steps per call of the compiled loop (progress, output buffers)
PACE_WINDOW = 10_000     # accepted steps between two checks that a run still advances (~1 s of a four-bar's)
PACE_LIMIT = 1e8         # an adaptive run whose steps would need more than this many more to reach t_end is
                         # stopped (hours; a fixed step h is checked against simulate.MAX_STEPS before the run)
N_SAMPLES = 4            # interior points of a step where event conditions are sampled
ZENO = 1e-9              # an event firing again this soon (relative to max(1, |t|)): events accumulate


RESULTS_ASIDE = weakref.WeakKeyDictionary()   # compiled model -> {Lagrange (not penalty): Aside} (compile_results_aside)
Part = namedtuple("Part", "cm active stop tau targets slide friction penalty")
Part.__doc__ = """A stretch of the run's samples on one compiled model in one mode: the active rows, the index
one past its last sample, the friction forces tau, the lock targets {row: (f, f', f'')}, the sliding
contacts and the slipping load frictions (dynamics/multipliers.py: ConstraintWorkspace.slide, .friction),
the penalty formulation's Penalty (formulations.py) or None."""


def part_result(part, t, Y, U):
    """The Result of a Part's samples: times t (N,), states Y (N, nq + nv), force values U (N, n_slots)."""
    cm = part.cm
    tau = np.empty((len(t), cm.nv))
    tau[:] = part.tau
    return Result(cm, t, Y[:, :cm.nq], Y[:, cm.nq:], U, tau=tau,
                  mode=Mode(part.active, part.targets, part.slide, part.friction, part.penalty))


def compile_results_aside(part, t, y):
    """The kernel of the Results' signals, compiling on another core while this process compiles the run's
    integrator (Result._compile_aside), for the Parts of ``part``'s formulation; asked once per compiled model and
    formulation, as finding the kernel's types takes ~1 ms. The types do not depend on the values: simulate() asks
    before the assembly, for a head start (the two processes share kernels through numba's cache, and whichever
    compiles one first saves the other its compile; rigid_accelerations is ~8 s of a closed loop's)."""
    asides, lagrange = RESULTS_ASIDE.setdefault(part.cm, {}), part.penalty is None
    if lagrange not in asides:
        one_sample = part_result(part, [t], y[None], np.zeros((1, part.cm.n_slots)))
        asides[lagrange] = one_sample._compile_aside()
    return asides[lagrange]


def first_part(cm):
    """A Part of a Lagrange or null-space run of cm, before the assembly: the types of the run's first Part."""
    return Part(cm, cm.every_row, 1, np.zeros(cm.nv), {}, None, None, None)


def added(counts, stats):
    """counts + a stepper's stats, key by key (None, a count the stepper cannot give, stays None)."""
    return {**counts, **{key: None if value is None or counts.get(key, 0) is None else counts.get(key, 0) + value
                         for key, value in stats.items()}}


class Stop(Exception):
    """An event ended the run (terminal count reached or an action returned "stop")."""


class Driver:
    """One simulation of a compiled model from ``t0`` to ``t_end`` (options: simulation/options.py)."""

    def __init__(self, model, opts, t0, y0, analysis):
        self.model, self.opts = model, opts
        cm = model.compile()
        self.t0, self.t_end = t0, float(opts["t_end"])
        self.t_eval = opts["t_eval"]
        self.modes = Modes(cm)
        self.user_events = as_events(opts["events"], model.events.values())
        self.events = self.user_events + self.modes.events    # the modes' events change with the model
        self.records = []
        self.near_singular = 0                # evaluations near a singular position of the Data replaced so far
        self.cm = cm
        self.inputs = RunInputs(cm, opts, t0)
        self._use(cm, None if analysis is None else analysis.active, y0[:cm.nq])
        self.backend = self.inputs.backend = self._backend()
        self.t_events = [[] for _ in self.user_events]
        self.y_events = [[] for _ in self.user_events]
        self.fired = np.zeros(len(self.user_events), dtype=int)
        self.samples_t, self.samples_y, self.samples_u = [], [], []
        self.time_stops = []                  # instants the stepper must stop at (a bounce's apex)
        self.counts = {}                      # steps, evaluations ... of the steppers replaced so far
        self.parts = []                       # Part of each earlier stretch of the run
        self.results_compiling = Aside()      # the kernel of the Results' signals, compiling aside (run)
        self.pacer = None                     # the Pacer of a run paced to the wall clock (realtime.py)
        self.y0 = y0

    # ------------------------------------------------------------------ set-up
    def _use(self, cm, active, q):
        """Run on the compiled model cm from now on, at positions q: its Data, which every mode of the run on cm
        writes in place (simulation/hybrid: Modes.write), with the run's settings, the compiled event signals and
        the penalty formulation's springs (set where the model starts), in the modes' mode with the rows ``active``
        (its redundancy analysis); and the Plant of the two, the problem the stepper integrates."""
        opts = self.opts
        signal_i, signal_f, self.compiled_events, self.rates = compile_signals(cm, self.events)
        rated = {self.compiled_events[j]: row for j, row in enumerate(self.rates) if row >= 0}
        self.rated, self.rate_rows = list(rated), list(rated.values())   # events with a rate, its compiled signal
        self.watcher = None                                               # made on first use (_watcher)
        self.python_events = [k for k in range(len(self.events)) if k not in self.compiled_events]
        if hasattr(self, "data"):
            self._log_charts()
            self.near_singular += int(self.data.cw.dropped[0])
        self.penalty = penalty_table(cm, q, opts["penalty"]) if opts["formulation"] == "penalty" else None
        self.cm, self.charts_logged = cm, 0
        self.data = cm.new_data(active, (signal_i, signal_f), self.modes.new_impacts(len(signal_i)),
                                drift=opts["drift"], constraint_solver=opts["constraint_solver"],
                                baumgarte=opts["baumgarte"], atol=float(opts["atol"]), formulation=opts["formulation"],
                                penalty=self.penalty, sigma=opts["sigma"])
        self.inputs.use(cm, self.data)
        self.plant = Plant(cm, self.data, self.inputs, self.solver_name)
        modes_at = [self.compiled_events.index(k) for k in range(len(self.user_events), len(self.events))]
        self.modes.use(self.plant, modes_at, self.data.active_rows())

    def _backend(self):
        """'compiled' or 'python' from the backend option and what varies from Python."""
        opts, reasons = self.opts, self.inputs.python_reasons()
        solver = opts["solver"]
        if not (isinstance(solver, str) and solver in COMPILED_SOLVERS):
            reasons.append(f"solver {getattr(solver, '__name__', solver)!r} runs through scipy")
        if opts["backend"] == "compiled" and reasons:
            raise MechsimError(f"simulate(): {keyword('backend')}='compiled' is not possible here: "
                               f"{'; '.join(reasons)}; use {keyword('backend', to_give=True)}='auto' or 'python'")
        return "python" if opts["backend"] == "python" or reasons else "compiled"

    def _stepper(self, t, y, correct_start=False):
        """A new stepper from (t, y) (corrected there, if ``correct_start``, by a compiled stepper's start); the
        counts of the one it replaces are kept for res.stats."""
        if hasattr(self, "stepper"):
            self.counts = added(self.counts, self.stepper.stats)
        opts = self.opts
        max_step = np.inf if opts["max_step"] is None else float(opts["max_step"])
        h = None if opts["h"] is None else float(opts["h"])
        fixed = opts["solver"] in FIXED_STEP_SOLVERS         # h is their step, an adaptive solver's first step
        directions = np.array([self.events[k].direction for k in self.compiled_events])
        tolerances = dict(rtol=float(opts["rtol"]), atol=float(opts["atol"]), max_step=max_step,
                          h=h if fixed else None, first_step=None if fixed else h, n_samples=N_SAMPLES)
        if self.backend == "compiled":       # bounces resolved compiled unless Python looks at every step
            jumps = self.data.impacts is not None and not self.python_events
            return CompiledStepper(self.plant.problem, opts["solver"], t, y, self.t_end,
                                   n_events=len(self.compiled_events), directions=directions, jumps=jumps,
                                   step_control=opts["step_control"], correct_start=correct_start, rates=self.rates,
                                   **tolerances)
        from ..integrators import ScipyStepper     # imported here, not at start-up: scipy.integrate takes ~0.4 s
        return ScipyStepper(self._rhs, self._correct, None, opts["solver"], t, y, self.t_end, **tolerances)

    # ------------------------------------------------------------------ the system from Python
    # the plant of the compiled model the run is on now (a Python stepper keeps these across a recompiled model)
    def _rhs(self, t, y):
        return self.plant.rhs(t, y)

    def _correct(self, t, y):
        self.plant.correct(t, y)

    def _status_message(self, status, t):
        message = getattr(self.stepper, "message", None) if hasattr(self, "stepper") else None
        return self.plant.failure(status, t, message)

    @property
    def solver_name(self):
        return getattr(self.opts["solver"], "__name__", self.opts["solver"])

    # ------------------------------------------------------------------ events
    def _compiled_values(self, t, y):
        """The compiled signals at (t, y): the compiled events' conditions, then their rates (compile_signals)."""
        self.inputs.python_values(t, y, sample_controller=False)          # a stop's force needs them at t
        values = np.empty(len(self.data.signal_i))
        system_signals(self.plant.system, t, y, values)
        return values

    def _watcher(self):
        """The Watcher of every event of the run, their event functions evaluated here (_event_functions): made on
        first use after _use, as a run whose compiled loop locates its events itself needs none."""
        if self.watcher is None:
            rates = np.full(len(self.events), -1)
            rates[self.rated] = len(self.events) + np.arange(len(self.rated))
            self.watcher = Watcher(self._correct, self._event_functions, len(self.events),
                                   [event.direction for event in self.events], rates, N_SAMPLES)
        return self.watcher

    def _event_functions(self, t, y):
        """The watcher's event functions at (t, y): every event's condition, then the rates of those whose
        compiled signal has one (compile_signals)."""
        compiled = self._compiled_values(t, y) if self.compiled_events else None
        g, state = np.empty(len(self.events) + len(self.rate_rows)), None
        for k, event in enumerate(self.events):
            if k in self.compiled_events:
                g[k] = compiled[self.compiled_events.index(k)]
                continue
            if state is None:
                state = self.state(t, y)
            g[k] = (self._signal_now(event.signal, t, y) if event.signal else
                    float(event.condition(t, state))) - event.value
        if self.rate_rows:
            g[len(self.events):] = compiled[self.rate_rows]
        return g

    def state(self, t, y):
        return State(self.cm, y[:self.cm.nq], y[self.cm.nq:], t, inputs=dict(self.inputs.values))

    def _signal_now(self, name, t, y):
        res = Result.at(self.cm, t, y, self.data.arrays.u, self.data.active_rows())
        base, index = split_index(name)
        return float(np.ravel(res[base])[index or 0])

    def _projected(self, t):
        y = self.stepper.dense(t).copy()
        self._correct(t, y)
        return y

    def _scan(self, t_from, located=None):
        """Handle every crossing in [t_from, stepper.t] in time order (events that fired at t_from count
        as zero there): the earliest root and the events at that instant (Watcher.roots; ``located``: the
        stepper's, taken for the first), fired. Returns True when an action changed the state or inputs."""
        st = self.stepper
        quiet = self.quiet if t_from == self.quiet_at else set()
        while True:
            if located is None:
                located = self._watcher().roots(st.interpolant(), t_from, quiet, st.t, st.y)
                if located is None:
                    return False
            t_hit, now = located
            if self._fire(now, t_hit):
                return True
            t_from, quiet, located = t_hit, set(now), None

    def _located(self):
        """The compiled stepper's location of its crossing (Stepper.locate), its events as the run's, or None."""
        located = self.stepper.locate()
        return None if located is None else (located[0], [self.compiled_events[i] for i in located[1]])

    def _fire(self, which, t):
        """Record and act on the events ``which`` at t. Returns True if the state or inputs changed;
        raises Stop when the run ends here."""
        y = self._projected(t)
        dropped = self.truncate(t)
        n_user = len(self.user_events)
        for k in which:
            if k < n_user and self.t_events[k] and t - self.t_events[k][-1] < ZENO * max(1.0, abs(t)):
                raise StepError(f"event {self.events[k].name!r} fired again {t - self.t_events[k][-1]:.3g} s after "
                                f"its previous firing at t = {t:.9g}: the events accumulate there (Zeno behaviour); "
                                "the result ends at that instant")
        if self.t_eval is None:
            self.record([t], [y])                       # the state at the event, before any action
        stop = False
        sim = SimulationHandle(self, t, y)
        for k in which:
            event = self.events[k]
            if k < n_user:                              # the user's events (the modes' log themselves)
                self.fired[k] += 1
                self.t_events[k].append(t)
                self.y_events[k].append(y.copy())
                self.records.append(EventRecord(t, "user", event.name, self._detail(event, t, y)))
            if event.action is not None:
                stop = event.action(sim, t, self.state(t, y)) == "stop" or stop
            if k < n_user and event.terminal and self.fired[k] >= event.terminal:
                stop = True
        changed, y = sim.changed, self._switched(sim)
        if sim.specs is not None:                       # the modes' events were made anew: quiet only the user's
            which = [k for k in which if k < n_user]
        if changed:
            self._correct(t, y)
            if self.t_eval is None:
                self.record([t], [y])                   # and after it
        if stop:
            raise Stop
        if changed:
            self.restart(t, y, quiet=which)
        else:
            self.untruncate(dropped)
        return changed

    def _switched(self, sim):
        """The state after an action: on the model it edited, or in the new mode of the stops, frictions
        and contacts (after an edit too: less friction may set a contact sliding)."""
        if sim.specs is not None:
            y = self._restructure(sim.t, sim.y, sim.specs)
            return y if self.modes.consistent(sim.t, y) else self._switch_mode(sim.t, y)
        if sim.mode_changed or sim.changed and not self.modes.consistent(sim.t, sim.y):
            return self._switch_mode(sim.t, sim.y)
        return sim.y

    def _switch_mode(self, t, y, fresh=False):
        """Go on in a new mode of the stops, frictions and contacts: the mode iteration (simulation/hybrid)
        settles it and writes it into the run's Data (``fresh``: the Data holds the mode to start from, made at y).
        Returns the state, projected onto the mode's rows."""
        self._close_part()
        y, records = self.modes.settle(t, y.copy(), fresh)
        self.records += records
        return y

    def log(self, t, kind, name, detail):
        self.records.append(EventRecord(t, kind, name, detail))

    def _log_charts(self):
        """A "repartition" record for each new chart of the null-space formulation since the last call
        (dynamics/nullspace.py: the feasible motions turned too far from the independent set's)."""
        if self.data.formulation != NULLSPACE:
            return
        ns = self.data.ns
        made = int(ns.meta[CHANGES])
        for k in range(self.charts_logged, min(made, LOG_CAPACITY)):
            t, turn = ns.log[k]
            why = ("constraints taken as dependent became independent" if turn == GREW else
                   "the independent constraints lost rank" if not np.isfinite(turn) else
                   f"the feasible motions turned by {np.degrees(np.arctan(turn)):.1f} deg")
            self.log(t, "repartition", "nullspace", f"independent velocities re-chosen: {why}")
        self.charts_logged = made

    def _warn_near_singular(self, count):
        """Say when the multiplier solves passed near a singular position (dynamics/multipliers.py NEAR_DEPENDENT):
        there the truncated solve drops the constraint forces along the nearly dependent directions."""
        if count:
            warnings.warn(f"'{self.model.name}' passed near a singular position: {count} evaluations of the "
                          "accelerations dropped constraint directions that were nearly, not exactly, dependent "
                          "(the loops' Jacobian losing rank, as a chain of four-bars lying flat), so its accuracy "
                          "there may not improve with a tighter tolerance; formulation='nullspace' passes singular "
                          "positions on a decomposition of the Jacobian itself",
                          stacklevel=5)     # the user's m.simulate: here < result < simulate < Model.simulate

    def _log_bounces(self):
        """An "impact" record for each bounce the compiled loop resolved since the last call (dynamics/
        impacts.py), as simulation/hybrid/contacts.py's ``strike`` logs one; the hit thresholds it re-armed go to the
        modes, and the last bounced event is quiet at its restart point."""
        impacts = self.data.impacts
        if impacts is None or not impacts.count[0]:
            return
        for entry in impacts.log[:impacts.count[0]].tolist():      # Python floats: formatted ~3x faster
            k = self.compiled_events[int(entry[LOG_SIGNAL])]
            point = self.events[k].element
            self.log(entry[LOG_T], "impact", point.name, "impact at %.6g, impulse %.6g; rebounds at %.6g (restitution "
                     "%g)" % (entry[LOG_APPROACH], entry[LOG_IMPULSE], entry[LOG_REBOUND], point.contact.restitution))
            self.modes.rearmed(point.key, entry[LOG_THRESHOLD])
        self.quiet, self.quiet_at = {k}, entry[LOG_T]
        impacts.count[0] = 0

    def _start_modes(self, t, y):
        """The mode at the start (simulation/hybrid: Modes.start), settled."""
        sim = SimulationHandle(self, t, y)
        before = self.modes.described()
        self.modes.start(sim)
        if sim.changed and np.array_equal(sim.y, y) and self.modes.described() == before:
            return self._switch_mode(t, y, fresh=True)        # nothing switched: the Data made for it stands
        return self._switched(sim) if sim.changed else y

    @staticmethod
    def _detail(event, t, y):
        return f"{event.signal or event.name} crossed {event.value:g}"

    def _restructure(self, t, y, specs):
        """Go on with the model an action edited: compiled anew (the coordinates must stay), the
        redundancy and consistency analysis redone at the current configuration (ModelError naming an
        inconsistent driver), the state brought onto the new constraints, new Data and stepper.
        Returns the state."""
        model = self.model._replay(specs)
        cm = model.compile()
        if cm.q_names != self.cm.q_names or cm.n_slots != self.cm.n_slots:
            raise ModelError(f"event action at t = {t:.6g}: the change alters the model's coordinates or force "
                             "values (a cut joint driven, a force's size changed); build a model with it instead")
        q, v = y[:cm.nq].copy(), y[cm.nq:].copy()
        free = np.arange(cm.nv)
        self.modes = Modes(cm, previous=self.modes)
        self.events = self.user_events + self.modes.events
        active = None
        if cm.n_rows:
            active = self.modes.analysis(cm, q, v, t).active
            q = solve_positions(cm, q, v, t, free)
            v = solve_velocities(cm, q, v, t, free, active)
        self._close_part()
        previous, self.model = self.model, model
        self._use(cm, active, q)
        for sampler in self.inputs.samplers:           # the controller and the links read the new model's signals
            sampler.cm = cm
        y = np.concatenate([q, v])
        self.modes.added_contacts(t, y, set(previous.contacts))
        self.inputs.python_values(t, y, sample_controller=False)
        return y

    # ------------------------------------------------------------------ outputs
    def _close_part(self, force=False):
        """End the current stretch of samples (one compiled model and mode) when it has any."""
        if force or len(self.samples_t) > (self.parts[-1][2] if self.parts else 0):
            self.parts.append(self._part(len(self.samples_t)))

    def _part(self, stop):
        """The Part of the current model and mode, its samples ending before index ``stop``."""
        data = self.data
        return Part(self.cm, data.active_rows(), stop, data.arrays.tau.copy(), self.modes.targets(),
                    data.cw.slide.copy(), data.cw.friction.copy(), self.penalty)

    def truncate(self, t):
        """Drop the outputs after t (a state change at t makes them obsolete). Returns what it dropped,
        for ``untruncate``."""
        keep = int(np.searchsorted(self.samples_t, t, side="right"))
        dropped = self.samples_t[keep:], self.samples_y[keep:], self.samples_u[keep:], self.n_out
        del self.samples_t[keep:], self.samples_y[keep:], self.samples_u[keep:]
        if self.t_eval is not None:
            self.n_out = int(np.searchsorted(self.t_eval, t, side="right"))
        return dropped

    def untruncate(self, dropped):
        """Put back the outputs ``truncate`` dropped (an event at t changed nothing)."""
        T, Y, U, self.n_out = dropped
        self.samples_t += T
        self.samples_y += Y
        self.samples_u += U

    def record(self, T, Y):
        self.samples_t.extend(np.asarray(T, dtype=float).tolist())
        self.samples_y.extend(np.array(Y, dtype=float))
        self.samples_u.extend(self.inputs.recorded_force_values(T, Y))

    def _next_stop(self, t):
        """The next time the stepper must stop at: a controller sample, a time where a force value or
        a constraint target given as an expression may jump (t >= c), or the end."""
        breakpoints = self.cm.breakpoints
        k = np.searchsorted(breakpoints, t, side="right") if len(breakpoints) else 0
        self.time_stops = [s for s in self.time_stops if s > t]
        return min(self.t_end, self.inputs.next_sample(t), breakpoints[k] if k < len(breakpoints) else np.inf,
                   *self.time_stops)

    def _stop_at(self, t, y):
        """A time event at t: a sampled controller's update (its commands hold from t on, so an output
        at t shows them), and a restart past a possible jump of the time functions — in a new mode of
        the stops and frictions when the jump makes the current one inconsistent (a load that now
        exceeds static friction)."""
        if self.inputs.is_sample(t):
            self.inputs.sample(t, y)
            if self.samples_t and self.samples_t[-1] == t:
                self.samples_u[-1] = self.inputs.force_values(t, y)
        if not self.modes.consistent(t, y):
            y = self._switch_mode(t, y)
        self.restart(t, y)

    def hold_inputs(self, values):
        """Input values from the instant reached on (a stepped run's, simulation/stepping.py), as a sampled
        controller's commands: a restart there when they change."""
        changed = {name: value for name, value in values.items() if self.inputs.values.get(name) != value}
        if not changed:
            return
        t, y = self.reached_state()
        for name, value in changed.items():
            self.inputs.set(name, float(value), t)
        if not self.modes.consistent(t, y):
            y = self._switch_mode(t, y)
        self.restart(t, y)

    def restore(self, snapshot):
        """Go on from a stepped run's Snapshot (simulation/stepping.py): its state, inputs and mode."""
        if snapshot.cm is not self.cm:
            raise ModelError("restore(): the snapshot is of another run, or of this one before an event action "
                             "edited its model")
        self.modes.mode.__dict__.update(copy.deepcopy(snapshot.mode).__dict__)   # the mode the switches share
        for name, value in snapshot.inputs.items():
            self.inputs.set(name, value, snapshot.t)
        self.fired[:], self.time_stops, self.ended = snapshot.fired, list(snapshot.time_stops), snapshot.ended
        self._close_part()
        self.restart(snapshot.t, self.modes.use_mode(snapshot.t, snapshot.y))
        self.reached = snapshot.t

    def restart(self, t, y, quiet=()):
        """Start the stepper again at (t, y): a new derivative and starting step, no history; a new
        compiled stepper when an action's edit recompiled the model (a new Plant: another problem)."""
        if self.backend == "compiled" and self.stepper.problem is not self.plant.problem:
            self.stepper = self._stepper(t, y)
        else:
            self.stepper.restart(t, y)
        self.quiet, self.quiet_at = set(quiet), t
        for k in quiet:
            if k in self.compiled_events and self.backend == "compiled":   # the compiled loop watches these
                self.stepper.g_old[self.compiled_events.index(k)] = 0.0

    # ------------------------------------------------------------------ the loop
    def load_kernels(self):
        """The compiled kernels the run starts with loaded into this process without running them
        (simulate.load_kernels): the Results' signals' (compile_results_aside) and the compiled stepper's loop."""
        results = compile_results_aside(self._part(1), self.t0, self.y0)     # compiling aside meanwhile if need be
        if self.backend == "compiled":
            self._stepper(self.t0, self.y0).load()
        results.wait()

    def run(self):
        """Integrate to t_end with the run's I/O links open; returns (success, message)."""
        with self.inputs.links_open():
            self.start()
            return self.advance(self.t_end)

    def start(self):
        """The run at t0: inputs, modes and the stepper started, the first outputs recorded."""
        t, y = self.t0, self.y0
        self.inputs.start(t, y)
        # With nothing in Python looking at the state (events, modes, a controller, a link), the compiled stepper's
        # start corrects it: a closed loop's first run then compiles no entry to the correction of its own (~4 s).
        in_start = self.backend == "compiled" and not self.events and not self.inputs.samplers
        if not in_start:
            self.plant.project(t, y)
            y = self._start_modes(t, y)
        self.results_compiling = compile_results_aside(self._part(1), t, y)
        self.stepper = self._stepper(t, y, correct_start=in_start)
        if in_start:                        # a failure after the correction is the first advance's, as for others
            if self.stepper.correction_failed:
                raise StepError(self._status_message(self.stepper.start_status, t))
            y = self.stepper.y.copy()
        self.quiet, self.quiet_at = set(), None
        self.n_out = 0
        # fixed steps (the user's h, checked before the run) are not paced; an adaptive solver's h is its first step
        self.pace = None if self.opts["solver"] in FIXED_STEP_SOLVERS else (0, t)
        self.ended = False                  # a termination event ended the run
        self.reached = t                    # where the last advance went to
        if self.t_eval is None:
            self.record([t], [y])
            self.out = np.empty(CHUNK), np.empty((CHUNK, y.size))
        else:
            self.out = np.empty(len(self.t_eval)), np.empty((len(self.t_eval), y.size))
            self.n_out = int(np.searchsorted(self.t_eval, t, side="right"))
            self.record(self.t_eval[:self.n_out], [y] * self.n_out)
        factor = realtime_factor(self.opts["realtime"])
        self.pacer = None if factor is None else Pacer(factor, t, float(self.opts["h"]), self.solver_name)
        # one step per call where Python looks at every step: Python conditions, the Python backend (a failure
        # raised inside a step then keeps every step before it) and a paced run
        self.per_step = bool(self.python_events) or self.backend == "python" or self.pacer is not None

    def advance(self, t_stop, overshoot=False):
        """Integrate from where the run is to t_stop, the mode, the stepper and its step size kept: a run advanced in
        several calls is one run. A stop at t_stop that is no time event shortens a step, unless ``overshoot`` and
        only the compiled loop watches the run (_unwatched): then the last step passes t_stop as one run's does, the
        state there read from its dense output (reached_state), rewound to t_stop where that step holds an event or a
        time stop after it, or where new inputs are held there (hold_inputs). Returns (success, message)."""
        overshoot = overshoot and self._unwatched()
        progress = Progress(self.t0, self.t_end, bool(self.opts["progress"]))
        T, Y = self.out
        try:
            while self.stepper.t < t_stop and not self.ended:
                stop = self._next_stop(self.stepper.t)
                n_start = self.n_out
                if self.pacer is not None:
                    self.pacer.start(self.stepper.t)
                status, n_out = self.stepper.advance(stop if overshoot else min(stop, t_stop),
                                                     1 if self.per_step or overshoot else CHUNK, self.t_eval is None,
                                                     self.t_eval if self.t_eval is not None else T[:0], 0 if
                                                     self.t_eval is None else self.n_out, T, Y)
                if self.pacer is not None:
                    self.pacer.end(self.stepper.t)
                if self.t_eval is None:
                    self.record(T[:n_out], Y[:n_out])
                else:
                    self.record(T[n_start:n_out], Y[n_start:n_out])
                    self.n_out = n_out
                self._log_charts()
                self._log_bounces()
                if status not in (OK, PAUSED, EVENT):
                    raise StepError(self._status_message(status, self.stepper.t))
                located = self._located() if status == EVENT and not self.python_events else None
                if overshoot and self.stepper.t > t_stop and self._acts_after(t_stop, located, stop):
                    self.restart(t_stop, self._projected(t_stop))     # what the step holds after t_stop: the next's
                    continue
                if status == EVENT or self.per_step and (self.python_events or self.backend == "python" and
                                                         self.events):
                    self._scan(self.stepper.t_old, located)
                if self.stepper.t >= stop and stop < self.t_end:
                    self._stop_at(stop, self.stepper.y.copy())
                self._check_pace()
                progress(self.stepper.t)
        except Stop:
            self.ended = True
        finally:
            progress.close()
            self.reached = min(t_stop, self.stepper.t)
        if self.ended:
            return True, "A termination event occurred."
        return True, "The solver successfully reached the end of the integration interval."

    def _unwatched(self):
        """Whether only the compiled loop looks at the run's steps (no Python conditions or backend, no bounces
        resolved in the loop, no pacing): a step it took past an instant can be taken back to that instant."""
        return (self.backend == "compiled" and not self.python_events and self.data.impacts is None and
                self.pacer is None)

    def _acts_after(self, t, located, stop):
        """Whether the last step holds, after t, what changes the run: its first event (``located``), else a time
        stop it ended at."""
        return located[0] > t if located is not None else self.stepper.t >= stop and stop < self.t_end

    def reached_state(self):
        """(t, y) at the time the last advance went to (its last step's dense output where the step passed it)."""
        t = self.reached
        return (t, self._projected(t)) if self.stepper.t > t else (self.stepper.t, self.stepper.y.copy())

    def _check_pace(self):
        """StepError when an adaptive run's steps have become so small that t_end is out of reach: at the
        pace of the last PACE_WINDOW steps the run would need more than PACE_LIMIT more steps (accelerations
        absurd for the time scale: a huge gravity, stiffness or force), instead of a run that never ends."""
        if self.pace is None:
            return
        steps, t = self.stepper.stats["steps"], self.stepper.t
        n0, t0 = self.pace
        if steps < n0:                                  # a new stepper after an event: count afresh
            self.pace = (steps, t)
            return
        if steps - n0 < PACE_WINDOW:
            return
        self.pace = (steps, t)
        if (t - t0) / (steps - n0) * PACE_LIMIT < self.t_end - t:
            raise StepError(f"the run is not advancing: its last {steps - n0} steps took it from t = {t0:.6g} to "
                            f"{t:.6g}, a pace at which it would need more than {PACE_LIMIT:.0e} steps to reach "
                            f"t_end = {self.t_end:g}; look for a huge gravity, stiffness or force in the model")

    def stats(self, wall_time):
        s = added(self.counts, self.stepper.stats) if hasattr(self, "stepper") else self.counts
        stats = dict(backend=self.backend, solver=self.solver_name,
                     steps=s.get("steps", 0), rejected=s.get("rejected", 0),
                     rhs_evaluations=s.get("rhs_evaluations", 0), projections=s.get("projections", 0),
                     events=len(self.records), near_singular=self.near_singular + int(self.data.cw.dropped[0]),
                     wall_time=wall_time)
        if self.pacer is not None:
            stats["realtime"] = self.pacer.stats()
        if self.inputs.links:
            stats["links"] = self.inputs.link_stats()
        return stats

    def result(self, success, message, wall_time):
        """The Result of the run (joined from one Result per model when actions changed the model)."""
        self._close_part(force=True)
        self._log_charts()
        self.records.sort(key=lambda record: record.time)
        parts, start = [], 0
        for part in self.parts:
            cm, n = part.cm, part.stop - start
            parts.append(part_result(part, np.array(self.samples_t[start:part.stop]),
                                     np.array(self.samples_y[start:part.stop]).reshape(n, cm.nq + cm.nv),
                                     np.array(self.samples_u[start:part.stop]).reshape(n, cm.n_slots)))
            parts[-1]._compiling = self.results_compiling
            start = part.stop
        outcome = Outcome(success, message, self.records, self.stats(wall_time))
        self._warn_near_singular(outcome.stats["near_singular"])
        if len(parts) > 1:
            res = JoinedResult(parts, outcome)
        else:
            res = parts[0]
            res.success, res.message, res.events, res.stats = outcome
        cm = self.cm
        n_user = len(self.user_events)
        res.t_events = [np.array(t) for t in self.t_events[:n_user]]
        res.y_events = [np.array(y).reshape(len(y), cm.nq + cm.nv) for y in self.y_events[:n_user]]
        return res


class SimulationHandle:
    """What an event action may do to the run (SPEC §3): ``set_state``, ``set_input``, and change the
    model from now on — ``add_constraint``, ``remove_constraint``, ``add_contact``, ``remove_contact``,
    ``add_driver``, ``remove_driver``, ``set`` (a force element's, contact's, constraint's, body's or
    joint's parameters) — on the run's own copy (the user's model is left as it is); return "stop" from
    the action to end the run. ``sim.t`` and ``sim.state`` give the instant."""

    def __init__(self, driver, t, y):
        self._driver, self.t, self.y = driver, t, y.copy()
        self.changed = False
        self.specs = None             # the model's arguments as edited by the action, or None
        self.mode_changed = False     # a stop opened or closed

    @property
    def state(self):
        return self._driver.state(self.t, self.y)

    def set_state(self, q=None, v=None):
        """New positions and/or velocities (m.coordinates() order); projected onto the constraints."""
        cm = self._driver.cm
        for values, part, n, what in ((q, slice(0, cm.nq), cm.nq, "q"), (v, slice(cm.nq, None), cm.nv, "v")):
            if values is None:
                continue
            values = np.asarray(values, dtype=float).ravel()
            if values.size != n or not np.all(np.isfinite(values)):
                raise ModelError(f"set_state(): {what} must be {n} finite numbers, got {values!r}")
            self.y[part] = values
        self.changed = True

    def stop_at(self, t):
        """Make the stepper stop at t (after a small bounce: its apex, so that the return to the stop is
        one crossing inside a step, not a double one)."""
        self._driver.time_stops.append(float(t))

    def switch_mode(self):
        """The set of closed stops changed (simulation/hybrid)."""
        self.mode_changed = self.changed = True

    def log(self, kind, name, detail):
        """An EventRecord at this instant (the hybrid elements' switches)."""
        self._driver.records.append(EventRecord(self.t, kind, name, detail))

    def set_input(self, name, value):
        """Hold a model input at a new value from now on (number, expression of t or callable)."""
        self._driver.inputs.set(name, value, self.t)
        self.changed = True

    def _edit(self):
        """The model's arguments (specs) to edit, copied on first use."""
        if self.specs is None:
            self.specs = {section: [dict(s) for s in table] if isinstance(table, list) else
                          {name: dict(s) for name, s in table.items()}
                          for section, table in self._driver.model.specs.items()}
        self.changed = True
        return self.specs

    def add_constraint(self, name, kind, **options):
        """A constraint from now on (the arguments of m.add_constraint)."""
        self._edit()["constraints"][name] = dict(kind=kind, **options)

    def remove_constraint(self, name):
        self._remove("constraints", name)

    def _remove(self, section, name):
        """Drop the item ``name`` of a section of the model's arguments; ModelError naming the others."""
        specs = self._edit()[section]
        if name not in specs:
            raise ModelError(f"remove_{section[:-1]}(): no {section[:-1]} {name!r} ({section}: "
                             f"{', '.join(specs) or 'none'})")
        del specs[name]

    def add_contact(self, name, **options):
        """A contact from now on (the arguments of m.add_contact): a surface known only during the run."""
        self._edit()["contacts"][name] = dict(options)

    def remove_contact(self, name):
        self._remove("contacts", name)

    def add_driver(self, joint, **motion):
        """A driver from now on (the arguments of m.add_driver)."""
        spec = dict(joint=joint, **motion)
        self._edit()["drivers"][spec.get("name") or joint] = spec

    def remove_driver(self, joint):
        """Remove the drivers of a joint (or the driver of that name)."""
        specs = self._edit()["drivers"]
        names = [name for name, s in specs.items() if name == joint or s["joint"] == joint]
        if not names:
            raise ModelError(f"remove_driver(): no driver on {joint!r} (drivers: {', '.join(specs) or 'none'})")
        for name in names:
            del specs[name]

    def set(self, name, **parameters):
        """New parameters of a force element, contact, constraint, body or joint (the arguments of add_*)."""
        specs = self._edit()
        section, key = find_item({s: specs[s] for s in ("forces", "contacts", "constraints", "bodies", "joints")},
                                 name, "set()")
        specs[section][key].update(parameters)
