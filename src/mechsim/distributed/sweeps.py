"""Parameter sweeps and Monte Carlo studies (SPEC §3 ``ms.sweep``, C12).

The runs are drawn up front, in the calling process: a full grid over the lists given, or, with
``samples=N``, N draws of the distributions (``ms.normal``, ``ms.uniform``), run i from its own
random stream spawned from one seed (numpy's SeedSequence), so that a run's values depend neither
on the number of workers nor on the order in which runs finish. Every parameter path, the first
run's values, the metrics and the simulate options are checked before anything is launched.

Each run is executed where it is sent — a local process pool (default), threads of this process
(``isolation=False``, through simulate_batch's preparation) or a Dask cluster (``client=``) —,
which simulates it and evaluates the metrics there, so only a row of numbers comes back. A run
that fails is recorded with its error and the sweep goes on. A worker process that dies (killed,
out of memory, crashed) breaks the local pool: the runs it may have been running are re-run one at
a time in a fresh process, and the one that kills its process again is recorded as failed.
"""
import importlib.util
import inspect
import itertools
import multiprocessing
import os
import sys
import uuid
from collections import namedtuple
from concurrent.futures import FIRST_COMPLETED, CancelledError, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import numpy as np

from ..errors import MechsimError, ModelError, in_python, keyword
from ..modeling.model import Model
from ..modeling.parameters import parse_path
from ..simulation.options import refuse_unknown
from ..simulation.progress import Progress
from ..simulation.simulate import checked_options
from .batch import prepared, run_one

OUTPUTS = (".csv", ".parquet")
METRIC_KINDS = {"final": lambda x: x[-1], "max": lambda x: np.max(x, axis=0), "min": lambda x: np.min(x, axis=0),
                "mean": lambda x: np.mean(x, axis=0)}


# --------------------------------------------------------------------------- distributions
class Distribution:
    """A random parameter of a Monte Carlo sweep; ``draw(rng)`` gives one value."""

    def draw(self, rng):
        raise NotImplementedError


class normal(Distribution):
    """Normally distributed with mean ``mean`` and standard deviation ``std`` (numbers or vectors)."""

    def __init__(self, mean, std):
        self.mean, self.std = _finite(mean, "ms.normal mean"), _finite(std, "ms.normal std")
        if np.any(self.std < 0):
            raise ModelError(f"ms.normal: std must be non-negative, got {std!r}")

    def draw(self, rng):
        return _plain(rng.normal(self.mean, self.std))

    def __repr__(self):
        return f"normal({_plain(self.mean)!r}, {_plain(self.std)!r})"


class uniform(Distribution):
    """Uniformly distributed on [low, high) (numbers or vectors)."""

    def __init__(self, low, high):
        self.low, self.high = _finite(low, "ms.uniform low"), _finite(high, "ms.uniform high")
        if np.any(self.high <= self.low):
            raise ModelError(f"ms.uniform: high must exceed low, got low={low!r}, high={high!r}")

    def draw(self, rng):
        return _plain(rng.uniform(self.low, self.high))

    def __repr__(self):
        return f"uniform({_plain(self.low)!r}, {_plain(self.high)!r})"


def _finite(value, what):
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(f"{what} must be a number or a vector of numbers, got {value!r}") from None
    if not np.all(np.isfinite(a)):
        raise ModelError(f"{what} must be finite, got {value!r}")
    return a


def _plain(a):
    """A float, or a list of floats for a vector."""
    a = np.asarray(a, dtype=float)
    return float(a) if a.ndim == 0 else a.tolist()


# --------------------------------------------------------------------------- the runs
def run_table(parameters, samples, seed):
    """The runs' parameter values, a dict per run: the grid of the lists given (constants in every
    run), or ``samples`` draws with run i from the i-th stream spawned from ``seed``."""
    if not isinstance(parameters, dict) or not parameters:
        raise ModelError("sweep(): give parameters as a dict {path: values}, e.g. {'bodies.rod.mass': [1, 2, 3]}")
    if samples is None:
        random = [name for name, value in parameters.items() if isinstance(value, Distribution)]
        if random:
            raise ModelError(f"sweep(): parameter '{random[0]}' is a distribution; give "
                             f"{keyword('samples', to_give=True)}=N for a Monte Carlo study")
        axes = [list(value) if isinstance(value, (list, tuple, np.ndarray)) else [value]
                for value in parameters.values()]
        empty = [name for name, axis in zip(parameters, axes) if not axis]
        if empty:
            raise ModelError(f"sweep(): parameter '{empty[0]}' has no values")
        return [dict(zip(parameters, map(_value, combo))) for combo in itertools.product(*axes)]
    if not isinstance(samples, (int, np.integer)) or isinstance(samples, bool) or samples < 1:
        raise ModelError(f"sweep(): {keyword('samples')} must be a positive integer, got {samples!r}")
    lists = [name for name, value in parameters.items() if isinstance(value, (list, tuple, np.ndarray))]
    if lists:
        raise ModelError(f"sweep(): parameter '{lists[0]}' is a list, which spans a grid; with {keyword('samples')}=N "
                         "give distributions (ms.normal, ms.uniform) or constants")
    streams = np.random.SeedSequence(seed).spawn(int(samples))
    runs = []
    for stream in streams:
        rng = np.random.default_rng(stream)
        runs.append({name: value.draw(rng) if isinstance(value, Distribution) else _value(value)
                     for name, value in parameters.items()})
    return runs


def _value(value):
    return value.tolist() if isinstance(value, np.ndarray) else value


def columns(values):
    """{column: number} of a dict of values: a vector becomes columns "name[i]"."""
    out = {}
    for name, value in values.items():
        a = np.asarray(value, dtype=float) if _numeric(value) else None
        if a is not None and a.ndim == 1:
            out.update({f"{name}[{i}]": float(x) for i, x in enumerate(a)})
        elif a is not None and a.ndim == 0:
            out[name] = float(a)
        else:
            out[name] = value
    return out


def _numeric(value):
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return False
    return a.ndim <= 1


# --------------------------------------------------------------------------- metrics
class SignalMetric:
    """A metric named in words: "final:<signal>", "max:<signal>", "min:<signal>", "mean:<signal>"
    (over the run's samples) or "event:<name>" (the time of the first event record of that name,
    NaN when it never happened)."""

    def __init__(self, text):
        kind, _, name = str(text).partition(":")
        if kind not in (*METRIC_KINDS, "event") or not name:
            raise ModelError(f"sweep(): metric {text!r}: write it as <kind>:<signal>, kind one of "
                             f"{', '.join(METRIC_KINDS)}, or event:<event name> (or give a callable of the Result)")
        self.kind, self.name = kind, name

    def check(self, model):
        if self.kind != "event" and self.name not in model.compile().signals:
            raise ModelError(f"sweep(): metric '{self.kind}:{self.name}': the model has no signal {self.name!r}; "
                             "m.signals() lists them")

    def __call__(self, result):
        if self.kind == "event":
            times = [record.time for record in result.events if record.name == self.name]
            return times[0] if times else float("nan")
        return METRIC_KINDS[self.kind](np.asarray(result[self.name]))


def as_metrics(metrics, model):
    """{column: callable(Result)} from a dict of callables or words, or a list of words; default: the
    final value of every joint coordinate."""
    if metrics is None:
        metrics = [f"final:{name}" for name in model.compile().q_names]
    if isinstance(metrics, (list, tuple)):
        metrics = {str(text): text for text in metrics}
    if not isinstance(metrics, dict):
        raise ModelError(f"sweep(): metrics must be a dict {{name: callable or 'kind:signal'}} or a list of "
                         f"'kind:signal', got {metrics!r}")
    out = {}
    for name, metric in metrics.items():
        if isinstance(metric, str):
            metric = SignalMetric(metric)
            metric.check(model)
        elif not callable(metric):
            raise ModelError(f"sweep(): metric {name!r} must be a callable of the Result or 'kind:signal', "
                             f"got {metric!r}")
        out[str(name)] = metric
    return out


# --------------------------------------------------------------------------- one run, anywhere
Job = namedtuple("Job", "token model build options metrics trajectories")
Job.__doc__ = """What every run of a sweep shares, sent once to each worker: the model (or the build
callable), the simulate options, the metrics and the folder of the runs' trajectories (or None)."""
_MODELS = {}     # a worker's models of its current job's parameter sets (batch.prepared's cache)


def execute(job, index, values):
    """Run ``index`` with parameter ``values``: its row {metric columns, status, error}."""
    cache = _MODELS.setdefault(job.token, {})
    if len(cache) > 16:
        cache.clear()
    try:
        model, state = prepare_run(job, values, cache)
    except Exception as exc:      # a value add_* refuses, or a build callable that failed
        return failed(exc)
    return finish(job, index, model, state)


def prepare_run(job, values, cache):
    """(model, initial State or None) of a run."""
    if job.build is None:
        return prepared(job.model, values, cache)
    return _built(job.build, values), None


def finish(job, index, model, state):
    """Simulate a prepared run, keep its trajectory if asked, evaluate the metrics: its row."""
    try:
        result = run_one(model, state, job.options)
    except MechsimError as exc:
        return failed(exc)
    if job.trajectories is not None:
        result.save(Path(job.trajectories) / f"run_{index:05d}.npz")
    if not result.success:
        return failed(result.message)
    row = {}
    for name, metric in job.metrics.items():
        try:
            row[name] = metric(result)
        except Exception as exc:
            return failed(f"metric {name!r}: {type(exc).__name__}: {exc}")
    return {**columns(row), "status": "ok", "error": ""}


def failed(error):
    """The row of a failed run: ``error`` a message, a mechsim error, or another exception (named by type)."""
    if isinstance(error, Exception) and not isinstance(error, MechsimError):
        error = f"{type(error).__name__}: {error}"
    return {"status": "failed", "error": " ".join(str(error).splitlines())}


def _built(build, values):
    model = build(**values)
    if not isinstance(model, Model):
        raise ModelError(f"sweep(): the build callable returned {type(model).__name__}, not an ms.Model")
    return model


def _install(job):
    """Process-pool initializer: the job every task of this worker runs."""
    global _JOB
    _JOB = job


def _task(index, values):
    return execute(_JOB, index, values)


# --------------------------------------------------------------------------- executors
def on_threads(job, runs, workers, record):
    """Threads of this process: every run's model and initial state made here first, as
    simulate_batch does (a model's compile and assembly are not shared between threads), then the
    runs side by side."""
    cache, ready = {}, {}
    for index, values in enumerate(runs):
        try:
            ready[index] = prepare_run(job, values, cache)
        except Exception as exc:
            record(index, failed(exc))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(finish, job, index, *run): index for index, run in ready.items()}
        for future in futures:
            record(futures[future], future.result())


def on_processes(job, runs, workers, record):
    """A local process pool; the runs a dying worker may have held are re-run alone (module docstring)."""
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    remaining = list(range(len(runs)))
    while remaining:
        suspects, remaining = _pool_pass(job, runs, remaining, workers, context, record)
        for index in suspects:
            if _pool_pass(job, runs, [index], 1, context, record)[0]:
                record(index, failed("its worker process died twice while running it (killed, out of memory or "
                                     "crashed)"))


def _pool_pass(job, runs, indices, workers, context, record):
    """Run ``indices`` on a pool of ``workers`` processes, at most two per worker queued at a time.
    When a worker dies the pool breaks: returns (the runs that were in flight, the runs not yet
    started), else ([], [])."""
    pending = list(indices)[::-1]
    in_flight = {}
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_install,
                             initargs=(job,)) as pool:
        while pending or in_flight:
            while pending and len(in_flight) < 2 * workers:
                index = pending.pop()
                in_flight[pool.submit(_task, index, runs[index])] = index
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            broken = []
            for future in done:
                index = in_flight.pop(future)
                try:
                    record(index, future.result())
                except BrokenProcessPool:
                    broken.append(index)
            if broken:
                return broken + list(in_flight.values()), pending[::-1]
    return [], []


DASK_RESUBMITS = 2       # times a run the cluster cancelled is submitted again before it is recorded as failed


def on_dask(client, job, runs, record):
    """Tasks on a Dask cluster; the job scattered to every worker once. Dask re-runs a task whose
    worker died; a task that keeps killing workers comes back as KilledWorker, recorded as failed. A task the
    cluster cancels instead (it can forget one whose worker died at the wrong moment: "already forgotten") is
    submitted again, with the job itself, up to DASK_RESUBMITS times; the other runs are kept whatever happens."""
    from distributed import as_completed
    [shared] = client.scatter([job], broadcast=True)
    futures = {client.submit(execute, shared, i, values, pure=False): i for i, values in enumerate(runs)}
    resubmitted = dict.fromkeys(range(len(runs)), 0)
    completed = as_completed(futures)
    for future in completed:
        index = futures.pop(future)
        if future.status == "error":
            record(index, failed(future.exception()))
            continue
        try:
            result = future.result()         # raises for a cancelled run: also one whose status was not yet so
        except CancelledError:
            if resubmitted[index] == DASK_RESUBMITS:
                record(index, failed(f"the Dask cluster cancelled the run {1 + DASK_RESUBMITS} times"))
                continue
            resubmitted[index] += 1
            again = client.submit(execute, job, index, runs[index], pure=False)
            futures[again] = index
            completed.add(again)
        else:
            record(index, result)


# --------------------------------------------------------------------------- the sweep
SweepOptions = namedtuple("SweepOptions", "client workers isolation output trajectories progress",
                          defaults=(None, None, True, None, None, False))
SweepOptions.__doc__ = """Where a sweep runs and what it keeps, with their defaults (sweep's keyword options)."""


def sweep(model, parameters, samples=None, seed=None, simulate_kwargs=None, metrics=None, **options):
    """Simulate ``model`` (an ms.Model, or a callable ``build(**values) -> Model``) once per combination of
    ``parameters`` and return a pandas DataFrame, a row per run (index "run"): a column per parameter
    (vectors as "name[i]"), a column per metric, "status" ("ok" | "failed") and "error".

    parameters: {path: values}; paths as modeling/parameters.py ("bodies.rod.mass", "joints.j1.q0",
    "inputs.u", "gravity[1]"; for a build callable, its keyword names). Without ``samples`` each list
    spans one axis of a full grid (a constant vector is a list of one vector); with ``samples=N``
    each entry is ms.normal / ms.uniform or a constant, drawn from run-wise streams of ``seed``.
    metrics: {column: callable(Result) or ``"final:|max:|min:|mean:<signal>"`` or ``"event:<name>"``} or a
    list of such words (default: the final value of every coordinate). simulate_kwargs: the options
    of m.simulate. The keyword ``options`` (SweepOptions): client, a dask.distributed Client to run on
    its cluster; otherwise ``workers`` local processes (default: the machine's cores), or threads of
    this process with ``isolation=False``. output: write the table to .csv or .parquet; trajectories:
    a folder for each run's Result as run_<i>.npz (failed runs: what they computed). ``progress``: a
    bar over the runs."""
    pd = _pandas()
    refuse_unknown("sweep()", options, SweepOptions._fields)
    how = SweepOptions(**options)
    run_options = dict(simulate_kwargs or {})
    if run_options.get("initial") is not None:
        raise ModelError("sweep(): initial= is one state for every run; sweep joint q0/v0 parameters instead")
    if how.workers is not None and (not isinstance(how.workers, int) or how.workers < 1):
        raise ModelError(f"sweep(): {keyword('workers')} must be a positive integer, got {how.workers!r}")
    _check_output(how.output)
    runs = run_table(parameters, samples, seed)
    first, build = _check_first_run(model, runs[0])
    try:
        checked_options(first, dict(run_options))
    except ModelError as exc:
        raise ModelError(f"sweep(): {in_python('simulate_kwargs: ')}{exc.template}") from None
    job = Job(uuid.uuid4().hex, None if build else model, build, run_options, as_metrics(metrics, first),
              None if how.trajectories is None else str(Path(how.trajectories).resolve()))
    if how.trajectories is not None:
        Path(how.trajectories).mkdir(parents=True, exist_ok=True)
    rows = [None] * len(runs)
    bar = Progress(0, len(runs), how.progress, label="sweep", quantity="runs")
    done = 0

    def record(index, row):
        nonlocal done
        rows[index], done = row, done + 1
        bar(done)

    workers = how.workers or os.cpu_count() or 1
    try:
        if how.client is not None:
            on_dask(how.client, job, runs, record)
        elif how.isolation:
            on_processes(job, runs, workers, record)
        else:
            on_threads(job, runs, workers, record)
    finally:
        bar.close()
        _MODELS.pop(job.token, None)
    table = pd.DataFrame([{**columns(values), **row} for values, row in zip(runs, rows)],
                         index=pd.RangeIndex(len(runs), name="run"))
    ordered = [c for c in table.columns if c not in ("status", "error")] + ["status", "error"]
    table = table[ordered]
    if how.output is not None:
        _write(table, how.output)
    return table


def _check_first_run(model, values):
    """(the first run's model, the build callable or None): every path and the first run's values
    checked before anything is launched."""
    if isinstance(model, Model):
        for path in values:
            parse_path(model, path)
        return model.with_parameters(values), None
    if not callable(model):
        raise ModelError(f"sweep(): give an ms.Model or a callable build(**parameters) -> Model, got {model!r}")
    try:
        inspect.signature(model).bind(**values)
    except TypeError as exc:
        raise ModelError(f"sweep(): the build callable does not take the parameters {sorted(values)}: {exc}") from None
    except ValueError:
        pass                                    # no signature to check (a builtin): the first build says
    return _built(model, values), model


def _check_output(output):
    if output is None:
        return
    path = Path(output)
    if path.suffix not in OUTPUTS:
        raise ModelError(f"sweep(): {keyword('output')} {output}: use a file name ending in .csv or .parquet")
    if not path.parent.is_dir():
        raise ModelError(f"sweep(): {keyword('output')} {output}: the directory {path.parent} does not exist")
    if path.suffix == ".parquet" and importlib.util.find_spec("pyarrow") is None:
        raise ModelError("sweep(): writing .parquet needs pyarrow (pip install pyarrow); or write .csv")


def _write(table, output):
    path = Path(output)
    if path.suffix == ".parquet":
        table.to_parquet(path)
    else:
        table.to_csv(path)


def _pandas():
    try:
        import pandas
    except ImportError:
        raise MechsimError("ms.sweep returns a pandas DataFrame: pip install 'mechsim[dataframe]'") from None
    return pandas
