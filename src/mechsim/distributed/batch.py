"""Many runs of one model in one process, in parallel threads (SPEC §3 ``ms.simulate_batch``).

A Model compiles into flat arrays that the runs only read; each run gets its own Data (the
Model/Data split of Pinocchio, dynamics/data.py), and the compiled integration loop releases the
GIL (``nogil``), so threads run side by side on separate cores. Everything that builds or checks
a model runs first, in the calling thread: parameter values are applied (one rebuild per distinct
set of model parameters), initial states assembled; a bad input raises ModelError before any run
starts. Runs that change only joints' q0 and v0 share one compiled model and differ only in
their initial State.
"""
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..errors import ModelError, SimulationError
from ..modeling.parameters import current_value, parse_path, with_entry
from ..simulation.progress import Progress
from ..simulation.simulate import checked_options


def simulate_batch(model, runs, threads=None, progress=False, **options):
    """Simulate ``model`` once per entry of ``runs``, each a dict of parameter paths
    ({"joints.j1.q0": 0.1, "bodies.rod.mass": 2.0}, modeling/parameters.py) or an ms.State to start
    from; the other keywords as ``m.simulate``. Returns the Results in the order of ``runs``. A run
    that fails gives its partial Result (``success`` False, the reason in ``message``); the others go on.
    ``threads``: how many run at once (default: the machine's cores)."""
    runs = list(runs)
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise ModelError(f"simulate_batch(): threads must be a positive integer, got {threads!r}")
    jobs = prepare(model, runs, options)
    bar = Progress(0, max(len(jobs), 1), progress, label="batch", quantity="runs")
    results, done = [None] * len(jobs), 0
    with ThreadPoolExecutor(max_workers=threads or os.cpu_count() or 1) as pool:
        futures = {pool.submit(run_one, run_model, state, options): i for i, (run_model, state) in enumerate(jobs)}
        for future in futures:          # in order: the bar moves as the earliest runs end
            results[futures[future]] = future.result()
            done += 1
            bar(done)
    bar.close()
    return results


def run_one(model, state, options):
    """One run from ``state``: its Result, or its partial Result if it failed."""
    try:
        return model.simulate(initial=state, **{**options, "progress": False})
    except SimulationError as exc:
        return exc.partial


def prepare(model, runs, options):
    """(model, initial State) of every run, built in this thread: the runs' models compiled, their
    states assembled, the options checked; ModelError naming the run at fault."""
    if options.get("initial") is not None:
        raise ModelError("simulate_batch(): give initial states as entries of runs, not as initial=")
    models, jobs = {}, []
    for i, run in enumerate(runs):
        try:
            jobs.append(prepared(model, run, models))
        except ModelError as exc:
            raise ModelError(f"simulate_batch(): run {i}: {exc}") from None
    for run_model in {id(m): m for m, _ in jobs}.values():
        checked_options(run_model, {**options, "initial": None})
    return jobs


def prepared(model, run, models):
    """(model, State) of one run: ``models`` caches the models made for sets of model parameters."""
    if hasattr(run, "q") and hasattr(run, "v") and hasattr(run, "t"):
        return model, _assembled(model, run.q, run.v, run.t, getattr(run, "analysis", None))
    if not isinstance(run, dict):
        raise ModelError(f"give a dict of parameter paths or an ms.State, got {run!r}")
    paths = {text: parse_path(model, text) for text in run}
    start = {text: p for text, p in paths.items() if _is_start(model, p)}
    key = tuple(sorted((text, _frozen(value)) for text, value in run.items() if text not in start))
    if key not in models:
        models[key] = model.with_parameters({text: run[text] for text, _ in key}) if key else model
    run_model = models[key]
    cm = run_model.compile()
    q, v = cm.q0.copy(), cm.v0.copy()
    for text, path in start.items():
        joint = run_model.joints[path.item]
        value = run[text] if path.index is None else with_entry(current_value(run_model, path), path, run[text])
        if path.argument == "q0":
            q[cm.joint_q[joint.name]] = joint._initial_q(value)
        else:
            v[cm.joint_v[joint.name]] = joint._vector(value, joint.nv, "v0")
    return run_model, _assembled(run_model, q, v, 0.0, None)


def _is_start(model, path):
    """Does the path set only where a run starts: q0 or v0 of a tree joint that no driver moves?"""
    if path.section != "joints" or path.argument not in ("q0", "v0"):
        return False
    joint = model.joints[path.item]
    return not joint.cut and all(driver.joint != joint.name for driver in model.drivers.values())


def _assembled(model, q, v, t, analysis):
    """The State a run starts from: (q, v) brought onto the constraints unless it carries its analysis."""
    from ..results.state import State
    from ..assembly.assemble import assemble
    cm = model.compile()
    q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)
    if q.shape != (cm.nq,) or v.shape != (cm.nv,):
        raise ModelError(f"the initial state has {q.size} positions and {v.size} velocities; the model has "
                         f"{cm.nq} and {cm.nv}")
    if cm.n_rows == 0 or analysis is not None:
        state = State(cm, q, v, t)
        state.analysis = analysis
        return state
    return assemble(model, t=t, start=(q, v))


def _frozen(value):
    """A hashable form of a parameter value (numbers, vectors, nested lists)."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return tuple(_frozen(x) for x in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(x)) for k, x in value.items()))
    return value
