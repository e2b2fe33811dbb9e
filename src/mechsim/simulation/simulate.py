"""Forward-dynamics simulation (SPEC §3 ``m.simulate``): options checked once, the initial state
assembled onto the constraints, the run driven by simulation/driver.py; a failed run raises
SimulationError carrying the Result up to the failure (``.partial``)."""
import numbers
import time

import numpy as np

from ..errors import MechsimError, ModelError, SimulationError, StepError, keyword
from .driver import Driver, compile_results_aside, first_part
from .formulations import check_formulation
from .options import FIXED_STEP_SOLVERS, is_number, resolve


def simulate(model, **options):
    """Simulate ``model``; see SPEC §3 and simulation/options.py for the options. Returns a Result
    (with .events, .t_events, .y_events and .stats); raises SimulationError (with ``.partial``) if
    the integration fails."""
    opts = checked_options(model, options)
    started = time.perf_counter()
    if opts["formulation"] != "penalty":        # while the assembly compiles (driver.py compile_results_aside)
        cm = model.compile()
        compile_results_aside(first_part(cm), 0.0, np.concatenate([cm.q0, cm.v0]))
    t0, y0, analysis = initial_state(model, opts)
    driver = Driver(model, opts, t0, y0, analysis)
    try:
        success, message = driver.run()
    except (StepError, SimulationError) as exc:
        partial = driver.result(False, str(exc), time.perf_counter() - started)
        raise SimulationError(f"simulation of '{model.name}' failed: {exc}", partial=partial) from exc
    except MechsimError:
        raise
    except Exception as exc:            # a user callable (controller, action, condition) failed
        t = driver.samples_t[-1] if driver.samples_t else t0
        partial = driver.result(False, str(exc), time.perf_counter() - started)
        raise SimulationError(f"simulation of '{model.name}' failed at t = {t:.6g}: {type(exc).__name__}: {exc}",
                              partial=partial) from exc
    return driver.result(success, message, time.perf_counter() - started)


def load_kernels(model, **options):
    """Load into this process the compiled kernels ``simulate(model, **options)`` starts with, from numba's cache
    (or compiled), without running: runs in processes forked from this one afterwards find them in memory instead
    of each loading them again (~0.2 s a kernel; distributed/cosim.py)."""
    opts = checked_options(model, options)
    t0, y0, analysis = initial_state(model, opts)
    Driver(model, opts, t0, y0, analysis).load_kernels()


MAX_STEPS = 1e9           # steps of size h or max_step over a run: more is a run that never ends
MAX_OUTPUTS = 10**7       # output times in t_eval


def checked_options(model, options):
    opts = resolve(model, options)
    if options.get("t_eval") is None and opts["t_eval"] is not None and options.get("t_end") is not None:
        opts["t_eval_until_t_end"] = True        # the file's output grid, cut at the t_end asked for
    if opts["t_end"] is None:
        raise ModelError(f"simulate(): give {keyword('t_end', to_give=True)} (or simulation: t_end in the model file)")
    if opts["realtime"] and opts["solver"] not in FIXED_STEP_SOLVERS:
        solver = getattr(opts["solver"], "__name__", opts["solver"])
        raise ModelError(f"simulate(): {keyword('realtime')} runs take fixed steps: give "
                         f"{keyword('solver', to_give=True)} one of {', '.join(FIXED_STEP_SOLVERS)} and its step "
                         f"{keyword('h', to_give=True)}, not {solver!r}")
    if opts["solver"] in FIXED_STEP_SOLVERS and opts["h"] is None:
        raise ModelError(f"simulate(): {keyword('solver')} {opts['solver']!r} is fixed-step: give the step "
                         f"{keyword('h', to_give=True)} > 0")
    initial = opts["initial"]
    if initial is not None and not all(hasattr(initial, a) for a in ("q", "v", "t")):
        raise ModelError(f"simulate(): initial must be an ms.State (from m.assemble(), m.trim() or res.state(t)), "
                         f"got {initial!r}")
    t0 = 0.0 if initial is None else float(initial.t)
    if not opts["t_end"] > t0:
        raise ModelError(f"simulate(): {keyword('t_end')} = {opts['t_end']} must be after the start time {t0}")
    # h bounds the steps of the fixed-step solvers only: an adaptive solver's h is its first step
    for key in ("h", "max_step") if opts["solver"] in FIXED_STEP_SOLVERS else ("max_step",):
        if opts[key] is not None and (opts["t_end"] - t0) / opts[key] > MAX_STEPS:
            raise ModelError(f"simulate(): {keyword(key)} = {opts[key]:g} would take more than {MAX_STEPS:.0e} steps "
                             f"to {keyword('t_end')} = {opts['t_end']:g}; give a larger {keyword(key, to_give=True)}")
    opts["t_eval"] = _t_eval(opts["t_eval"], t0, float(opts["t_end"]), opts.pop("t_eval_until_t_end", False))
    _check_motions(model, t0, float(opts["t_end"]))
    check_formulation(model, opts, {k for k, v in options.items() if v is not None} | set(model.simulation))
    return opts


def _check_motions(model, t0, t_end):
    """The prescribed motions, drivers' and distance lengths', checked over the run (Motion.check_span)."""
    lengths = [c.length for c in model.constraints.values() if c.kind == "distance"]
    for motion in [driver.motion for driver in model.drivers.values()] + lengths:
        motion.check_span(t0, t_end)


def _t_eval(t_eval, t0, t_end, cut):
    if t_eval is None:
        return None
    if isinstance(t_eval, dict):
        start, stop, num = (t_eval.get(key) for key in ("start", "stop", "num"))
        if not (is_number(start) and is_number(stop) and isinstance(num, numbers.Integral) and 0 < num <= MAX_OUTPUTS):
            raise ModelError(f"simulate(): t_eval must be {{start, stop, num}} with num from 1 to {MAX_OUTPUTS:.0e}, "
                             f"got {t_eval!r}")
        t_eval = np.linspace(start, stop, num)
    try:
        t_eval = np.asarray(t_eval, dtype=float).ravel()
    except (TypeError, ValueError, OverflowError):
        raise ModelError(f"simulate(): t_eval must be a list of times, got {t_eval!r}") from None
    if t_eval.size > MAX_OUTPUTS:
        raise ModelError(f"simulate(): t_eval has {t_eval.size} times; at most {MAX_OUTPUTS:.0e} are allowed")
    if cut:
        t_eval = t_eval[t_eval <= t_end]
    if t_eval.size == 0:
        raise ModelError("simulate(): t_eval is empty; give at least one output time in [t0, t_end]")
    if not np.all(np.isfinite(t_eval)) or np.any(np.diff(t_eval) <= 0) or t_eval[0] < t0 - 1e-12 \
            or t_eval[-1] > t_end + 1e-12:
        raise ModelError("simulate(): t_eval must be increasing and lie within [t0, t_end]")
    return np.clip(t_eval, t0, t_end)


def initial_state(model, opts):
    """(t0, y0, redundancy analysis): q0/v0 assembled onto the constraints, or the State given."""
    cm = model.compile()
    initial = opts["initial"]
    if initial is None:
        state = model.assemble(t=0.0)
        return 0.0, np.concatenate([state.q, state.v]).astype(float), state.analysis
    q, v = np.asarray(initial.q, dtype=float), np.asarray(initial.v, dtype=float)
    if q.shape != (cm.nq,) or v.shape != (cm.nv,):
        raise ModelError(f"simulate(): initial state has {q.size} positions and {v.size} velocities; "
                         f"the model has {cm.nq} and {cm.nv}")
    analysis = getattr(initial, "analysis", None)
    if cm.n_rows and analysis is None:
        analysis = model.assemble(t=float(initial.t)).analysis          # the redundancy analysis
    return float(initial.t), np.concatenate([q, v]), analysis
