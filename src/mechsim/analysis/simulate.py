"""Forward-dynamics simulation (SPEC §3 ``m.simulate``): integrate y = [q; v] with the compiled
right-hand side, record outputs, and keep what was computed when a run fails."""
import numpy as np

from ..dynamics.api import singular_node_error
from ..dynamics.kernels import OK
from ..dynamics.multipliers import SINGULAR
from ..dynamics.projection import NOT_CONVERGED
from ..dynamics.system import DRIFT_CODES, SOLVER_CODES, correct, derivative, make_system
from ..errors import MechsimError, ModelError, SimulationError
from ..integrators import FIXED_METHODS, SOLVERS, integrate_adaptive, integrate_fixed
from ..integrators.adaptive import StepFailure
from ..integrators.dopri import METHODS as COMPILED_METHODS
from ..integrators.dopri import NON_FINITE, STEP_TOO_SMALL, integrate_compiled
from .progress import Progress
from .result import Result

DRIFT = tuple(DRIFT_CODES)
CONSTRAINT_SOLVERS = tuple(SOLVER_CODES)
FORMULATIONS = ("lagrange", "nullspace", "penalty")
DEFAULTS = dict(t_end=None, t_eval=None, solver="RK45", rtol=1e-6, atol=1e-8, max_step=None, h=None,
                drift="projection", constraint_solver="cholesky", formulation="lagrange", baumgarte=(10.0, 10.0), inputs=None,
                controller=None, outputs=None, sample_time=None, initial=None, progress=False)


class _Failure(Exception):
    """Raised inside the right-hand side; carries the message for the SimulationError."""


def simulate(model, **options):
    """Simulate ``model``; see SPEC §3 for the options. Returns a Result; raises SimulationError
    (with ``.partial``, the Result up to the failure) if the integration fails."""
    opts = _options(model, options)
    run = _Run(model, opts)
    return run.execute()


def _options(model, options):
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise MechsimError(f"simulate(): unknown option(s) {sorted(unknown)}; options are {sorted(DEFAULTS)}")
    opts = dict(DEFAULTS)
    opts.update({k: v for k, v in model.simulation.items() if k in DEFAULTS})
    opts.update({k: v for k, v in options.items() if v is not None})       # None: the default
    if "t_eval" not in options and opts["t_eval"] is not None and "t_end" in options:
        opts["t_eval_until_t_end"] = True        # the file's output grid, cut at the t_end asked for
    if opts["t_end"] is None:
        raise MechsimError("simulate(): give t_end (or a simulation: t_end in the model file)")
    for key, allowed in (("solver", SOLVERS), ("drift", DRIFT), ("constraint_solver", CONSTRAINT_SOLVERS),
                         ("formulation", FORMULATIONS)):
        if opts[key] not in allowed:
            raise MechsimError(f"simulate(): {key}={opts[key]!r} is not one of {', '.join(allowed)}")
    if opts["formulation"] != "lagrange":
        raise MechsimError(f"simulate(): formulation={opts['formulation']!r} is not available in this version of "
                           "mechsim; use 'lagrange' (multipliers with drift control)")
    if opts["solver"] in FIXED_METHODS and not (opts["h"] and opts["h"] > 0):
        raise MechsimError(f"simulate(): solver {opts['solver']!r} is fixed-step: give the step h > 0")
    for key in ("rtol", "atol"):
        if not float(opts[key]) > 0:
            raise MechsimError(f"simulate(): {key} must be positive")
    return opts


def input_sources(model, inputs, caller):
    """{input name: Source} for the values the user gives the model's inputs (number or callable of t)."""
    from ..modeling.forces import Source
    sources = {}
    for name, value in (inputs or {}).items():
        if name not in model.inputs:
            raise MechsimError(f"{caller}: inputs names unknown input {name!r}; the model's inputs are "
                               f"{', '.join(model.inputs) or 'none (declare them with m.add_input)'}")
        sources[name] = Source(value, f"input '{name}'")
    return sources


class _Controller:
    """A user controller in the loop: reads its outputs (joint .q/.v straight from the state, other
    signals through ``measure``), commands inputs, which are held between samples when it has a
    sample_time (zero-order hold)."""

    def __init__(self, function, readers, signals, measure, sample_time, t0):
        self.function, self.readers = function, readers      # readers: output name -> (slice of y, scalar)
        self.signals, self.measure = signals, measure        # other signal names; measure(t, y, names) -> dict
        self.sample_time, self.next_sample = sample_time, t0
        self.held = {}

    def due(self, t):
        return self.sample_time is None or t >= self.next_sample - 1e-12

    def sample(self, t, y, known_inputs):
        outputs = {name: (float(y[i][0]) if scalar else y[i].copy()) for name, (i, scalar) in self.readers.items()}
        if self.signals:
            outputs.update(self.measure(t, y, self.signals))
        for name, value in (self.function(t, outputs) or {}).items():
            if name not in known_inputs:
                raise _Failure(f"controller returned unknown input {name!r} at t = {t:.6g}")
            self.held[name] = float(value)
        if self.sample_time is not None:                     # the first sample instant after t
            self.next_sample += self.sample_time * (1 + np.floor((t - self.next_sample) / self.sample_time + 1e-9))


class _Run:
    """One simulation: inputs, controller, right-hand side, recording."""

    def __init__(self, model, opts):
        self.model, self.opts = model, opts
        self.cm = cm = model.compile()
        self.t0 = 0.0 if opts["initial"] is None else float(opts["initial"].t)
        self.t_end = float(opts["t_end"])
        if not self.t_end > self.t0:
            raise MechsimError(f"simulate(): t_end = {self.t_end} must be after the start time {self.t0}")
        self.t_eval = self._t_eval(opts["t_eval"], opts.get("t_eval_until_t_end", False))
        self.input_sources = input_sources(model, opts["inputs"], "simulate()")
        self.input_values = dict(model.inputs)
        self.controller = self._controller(opts["controller"], opts["outputs"], opts["sample_time"])
        self.u = cm.force_values(self.t0, self.input_values)   # the force values last applied
        self.sys = None                     # the compiled system, made once the initial state is assembled
        self.samples_t, self.samples_y, self.samples_u = [], [], []

    # ------------------------------------------------------------ set-up
    def _t_eval(self, t_eval, cut):
        if t_eval is None:
            return None
        if isinstance(t_eval, dict):
            t_eval = np.linspace(float(t_eval["start"]), float(t_eval["stop"]), int(t_eval["num"]))
        t_eval = np.asarray(t_eval, dtype=float).ravel()
        if cut:
            t_eval = t_eval[t_eval <= self.t_end]
        if t_eval.size == 0:
            raise MechsimError("simulate(): t_eval is empty; give at least one output time in [t0, t_end]")
        if np.any(np.diff(t_eval) <= 0) or t_eval[0] < self.t0 - 1e-12 or t_eval[-1] > self.t_end + 1e-12:
            raise MechsimError("simulate(): t_eval must be increasing and lie within [t0, t_end]")
        return t_eval

    def _controller(self, controller, outputs, sample_time):
        if controller is None:
            return None
        if not callable(controller):
            raise MechsimError("simulate(): controller must be a callable(t, outputs) -> {input: value}")
        cm = self.cm
        names = outputs or [f"{j}.{k}" for j in cm.joint_order if cm.joint_v[j].stop > cm.joint_v[j].start
                            for k in ("q", "v")]
        readers, signals, known = {}, [], set(cm.signal_names())
        for name in names:
            joint, _, kind = name.rpartition(".")
            if kind in ("q", "v") and joint in cm.joint_q:
                index = cm.joint_q[joint] if kind == "q" else slice(cm.nq + cm.joint_v[joint].start,
                                                                    cm.nq + cm.joint_v[joint].stop)
                readers[name] = (index, index.stop - index.start == 1)
            elif name in known:
                signals.append(name)
            else:
                raise MechsimError(f"simulate(): unknown controller output {name!r}; m.signals() lists the names")
        if sample_time is not None and not float(sample_time) > 0:
            raise MechsimError("simulate(): sample_time must be positive")
        return _Controller(controller, readers, signals, self.measure, None if sample_time is None else
                           float(sample_time), self.t0)

    def measure(self, t, y, names):
        """Signals at (t, y) for the controller: one-sample Result with the force values last applied
        (the inputs held before this controller update)."""
        cm = self.cm
        res = Result(cm, [t], y[None, :cm.nq], y[None, cm.nq:], self.u[None].copy())
        return {name: (float(res[name][0]) if np.ndim(res[name][0]) == 0 else res[name][0].copy()) for name in names}

    # ------------------------------------------------------------ evaluation
    def inputs_at(self, t, y):
        """Update self.input_values at time t (open-loop sources, then the controller)."""
        for name, source in self.input_sources.items():
            self.input_values[name] = source(t)
        ctl = self.controller
        if ctl is not None:
            if ctl.due(t):
                ctl.sample(t, y, self.model.inputs)
            self.input_values.update(ctl.held)

    def force_values(self, t, check=True):
        u = self.cm.force_values(t, self.input_values, out=self.u)
        if check and not np.all(np.isfinite(u)):
            bad = self._non_finite_source(u)
            raise _Failure(f"{bad} is not finite at t = {t:.6g}")
        return u

    def _non_finite_source(self, u):
        bad_inputs = [name for name, value in self.input_values.items() if not np.isfinite(value)]
        if bad_inputs:
            return f"input '{bad_inputs[0]}'"
        return f"the value of force '{self.cm.slot_force[np.flatnonzero(~np.isfinite(u))[0]]}'"

    def correct(self, t, y):
        """Drift correction of the state y in place (after every step and at every output): unit
        quaternions, and the constraints by projection or stabilization."""
        self.cm.rows.set_targets(t)
        status = correct(self.sys, t, y)
        if status != OK:
            raise self._status_error(status, t, y)

    def _status_error(self, status, t, y):
        if not np.all(np.isfinite(y)):
            return _Failure(f"the state became non-finite at t = {t:.6g}")
        if status == NOT_CONVERGED:
            worst = np.max(np.abs(self.cm.constraint_workspace.h))
            return _Failure(f"constraint violation beyond tolerance at t = {t:.6g}: projection did not converge "
                            f"(max |g| = {worst:.3g}); the mechanism may have locked or lost a loop — try smaller "
                            "tolerances or max_step")
        if status == SINGULAR:
            return _Failure(f"the constraint equations could not be solved at t = {t:.6g} (singular configuration); "
                            "try constraint_solver='qr'")
        return singular_node_error(self.cm, status)

    @property
    def sampled(self):
        return self.controller is not None and self.controller.sample_time is not None

    def rhs(self, t, y):
        if not self.sampled:
            self.inputs_at(t, y)
        self.force_values(t)
        self.cm.rows.set_targets(t)
        dy = np.empty_like(y)
        status = derivative(self.sys, t, y, dy)
        if status != OK:
            raise self._status_error(status, t, y)
        return dy

    def record(self, t, y):
        y = np.array(y, dtype=float)
        self.correct(t, y)
        if not np.all(np.isfinite(y)):
            raise _Failure(f"the state became non-finite at t = {t:.6g}; the last finite state is kept")
        if not self.sampled:
            self.inputs_at(t, y)
        self.samples_t.append(float(t))
        self.samples_y.append(y)
        self.samples_u.append(self.force_values(t).copy())

    # ------------------------------------------------------------ run
    def execute(self):
        opts = self.opts
        y0 = self._initial_state()
        progress = Progress(self.t0, self.t_end, bool(opts["progress"]))
        try:
            if opts["solver"] in FIXED_METHODS:
                self._run_fixed(y0, progress)
            elif opts["solver"] in COMPILED_METHODS and self._autonomous():
                self._run_compiled(y0, progress)
            elif self.sampled:
                self._run_sampled(y0, progress)
            else:
                integrate_adaptive(self.rhs, self.t0, y0, self.t_end, opts["solver"], float(opts["rtol"]),
                                   float(opts["atol"]), opts["max_step"], self.t_eval, self.record,
                                   self.correct, progress)
        except (_Failure, StepFailure, SimulationError) as exc:
            raise SimulationError(f"simulation of '{self.model.name}' failed: {exc}", partial=self.result(False, str(exc))) from exc
        except Exception as exc:
            if isinstance(exc, MechsimError):
                raise
            raise SimulationError(f"simulation of '{self.model.name}' failed at t = "
                                  f"{self.samples_t[-1] if self.samples_t else self.t0:.6g}: "
                                  f"{type(exc).__name__}: {exc}", partial=self.result(False, str(exc))) from exc
        finally:
            progress.close()
        return self.result(True, "ok")

    def _initial_state(self):
        """y0 from q0/v0 assembled onto the constraints, or from the initial State; makes the system."""
        initial, cm, opts = self.opts["initial"], self.cm, self.opts
        if initial is None:
            state = self.model.assemble(t=self.t0)
            q, v = state.q, state.v
        else:
            q, v = np.asarray(initial.q, dtype=float), np.asarray(initial.v, dtype=float)
            if q.shape != (cm.nq,) or v.shape != (cm.nv,):
                raise ModelError(f"simulate(): initial state has {q.size} positions and {v.size} velocities; "
                                 f"the model has {cm.nq} and {cm.nv}")
            if cm.n_rows and getattr(cm, "analysis", None) is None:
                self.model.assemble(t=self.t0)               # the redundancy analysis
        self.sys = make_system(cm, u=self.u, drift=opts["drift"], constraint_solver=opts["constraint_solver"],
                               baumgarte=opts["baumgarte"], rtol=float(opts["rtol"]), atol=float(opts["atol"]))
        y0 = np.concatenate([q, v]).astype(float)
        self.inputs_at(self.t0, y0)
        self.force_values(self.t0)
        self.correct(self.t0, y0)
        return y0

    def _autonomous(self):
        """True when nothing changes from Python during the run (constant forces and inputs, no driver
        or constraint moving with time, no controller): then the whole loop runs compiled."""
        cm = self.cm
        return (self.controller is None and not cm.rows.timed
                and all(source.input is not None for _, source in cm.timed_sources)
                and all(source.is_constant for source in self.input_sources.values()))

    def _run_compiled(self, y0, progress):
        opts = self.opts
        u = self.force_values(self.t0).copy()
        max_step = np.inf if opts["max_step"] is None else float(opts["max_step"])
        times, states, status, message = integrate_compiled(self.sys, self.t0, y0, self.t_end, opts["solver"],
                                                            float(opts["rtol"]), float(opts["atol"]), max_step,
                                                            self.t_eval, progress)
        self.samples_t, self.samples_y = list(times), list(states)
        self.samples_u = [u] * len(times)
        if status != OK:
            t = times[-1] if len(times) else self.t0
            if status in (NON_FINITE, STEP_TOO_SMALL):
                raise _Failure(f"{opts['solver']} failed at t = {t:.6g}: {message}")
            raise self._status_error(status, t, states[-1] if len(states) else y0)

    def _run_sampled(self, y0, progress):
        """Zero-order-hold controller: integrate one sample period at a time, inputs held."""
        opts, dt = self.opts, self.controller.sample_time
        t, y, k = self.t0, y0, 0
        while t < self.t_end:
            t_next = min(self.t0 + (k + 1) * dt, self.t_end)
            self.inputs_at(t, y)
            last = t_next >= self.t_end
            # u(t) = u(t_k) on [t_k, t_k+1): a segment records its start, not its end (but the last one)
            inside = (self.t_eval >= t) & ((self.t_eval <= t_next) if last else (self.t_eval < t_next)) \
                if self.t_eval is not None else None
            seg_eval = None if inside is None else self.t_eval[inside]
            end = t_next

            def record(ts, ys):
                if ts < end or last:
                    self.record(ts, ys)
            y = integrate_adaptive(self.rhs, t, y, t_next, opts["solver"], float(opts["rtol"]), float(opts["atol"]),
                                   opts["max_step"], seg_eval, record,
                                   self.correct, progress)
            t, k = t_next, k + 1

    def _run_fixed(self, y0, progress):
        opts = self.opts
        h = float(opts["h"])
        n_steps = int(np.ceil((self.t_end - self.t0) / h - 1e-9))
        closed_loop = self.controller is not None
        if not closed_loop:
            self.inputs_at(self.t0, y0)
        stepper = (lambda t, y: self.inputs_at(t, y)) if closed_loop else None
        times, Y, U, status = integrate_fixed(self.sys, opts["solver"], y0, self.t0, h, n_steps, self._fixed_values,
                                              stepper, progress)
        finite = np.all(np.isfinite(Y), axis=1) & np.all(np.isfinite(U), axis=1)
        keep = int(np.argmin(finite)) if not finite.all() else len(times)
        self._store_fixed(times[:keep], Y[:keep], U[:keep])
        if keep < len(times):
            t_bad = times[keep]
            self.force_values(t_bad)            # names a non-finite input or force, if that is the cause
            raise _Failure(f"the state became non-finite at t = {t_bad:.6g}")
        if status != OK:
            for t in times[-1] + np.array([0.0, 0.5 * h, h]):
                self.force_values(t)            # a non-finite force inside the failed step is the cause
            raise self._status_error(status, times[-1], Y[-1])

    def _fixed_values(self, t):
        """(force values u, constraint targets) at t for the fixed-step integrator."""
        if self.controller is None:
            for name, source in self.input_sources.items():
                self.input_values[name] = source(t)
        self.cm.rows.set_targets(t)
        return self.force_values(t, check=False).copy(), self.cm.rows.con_t.copy()

    def _store_fixed(self, times, Y, U):
        if self.t_eval is not None:
            idx = np.clip(np.searchsorted(times, self.t_eval - 1e-9 * max(1.0, abs(self.t_end))), 0, len(times) - 1)
            idx = idx[np.abs(times[idx] - self.t_eval) <= 1e-9 * max(1.0, abs(self.t_end))]
            times, Y, U = times[idx], Y[idx], U[idx]
        self.samples_t, self.samples_y, self.samples_u = list(times), list(Y), list(U)

    def result(self, success, message):
        cm = self.cm
        Y = np.array(self.samples_y).reshape(len(self.samples_t), cm.nq + cm.nv)
        return Result(cm, np.array(self.samples_t), Y[:, :cm.nq], Y[:, cm.nq:],
                      np.array(self.samples_u).reshape(len(self.samples_t), cm.n_slots),
                      message=message, success=success)
