"""``mechsim sweep``: a parameter grid or a Monte Carlo study of a model file (ms.sweep), on local
processes, threads or a Dask cluster; the table of runs to .csv or .parquet."""
import re

import yaml

from ..errors import MechsimError
from .common import add_model_argument, add_simulate_options, load_model, simulate_options

DISTRIBUTION = re.compile(r"^\s*(normal|uniform)\s*\((.*)\)\s*$")
RANGE = re.compile(r"^\s*([^:]+):([^:]+):\s*(\d+)\s*$")
SHOWN_ROWS = 20


def add_parser(commands):
    parser = commands.add_parser(
        "sweep", help="run a model over a parameter grid or a Monte Carlo sample; a table of the runs",
        description="Run a model once per parameter set: a full grid over the values given, or with --samples "
        "a Monte Carlo study of the distributions given. Parameters are paths '<section>.<item>.<argument>' "
        "(bodies.rod.mass, joints.j1.q0, forces.spring.stiffness, bodies.rod.com[0]), inputs.<name> or gravity.")
    add_model_argument(parser)
    parser.add_argument("--param", action="append", default=[], metavar="PATH=VALUES", required=True,
                        help="a parameter and its values: 1:2:11 (11 values from 1 to 2), 1,2,5 (a list), "
                             "[[0.5,0,0],[0.6,0,0]] (a list of vectors), 0.3 (a constant), normal(0,0.1) or "
                             "uniform(1,2) (with --samples); repeat for several")
    parser.add_argument("--samples", type=int, help="Monte Carlo: this many runs drawn from the distributions")
    parser.add_argument("--seed", type=int, help="seed of the Monte Carlo draws (run i has its own stream)")
    parser.add_argument("--metric", action="append", default=None, metavar="KIND:SIGNAL",
                        help="a column of the table: final:, max:, min: or mean:<signal>, or event:<event name> "
                             "(the time of its first occurrence); repeat for several (default: every "
                             "coordinate's final value)")
    parser.add_argument("-o", "--output", help="write the table of runs to this .csv or .parquet file")
    parser.add_argument("--trajectories", metavar="DIR", help="also save each run's signals as DIR/run_<i>.npz")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, help="local worker processes (default: one per core)")
    where.add_argument("--threads", type=int, metavar="N",
                       help="run in N threads of this process instead of worker processes")
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster of this scheduler "
                                                              "(tcp://host:8786; needs mechsim[cluster])")
    add_simulate_options(parser)
    parser.set_defaults(run=sweep)


def parse_values(text):
    """The values of a --param: a range a:b:n, a distribution, or a YAML number or list."""
    import mechsim as ms
    distribution = DISTRIBUTION.match(text)
    if distribution:
        arguments = _yaml(f"[{distribution.group(2)}]", text)
        if len(arguments) != 2:
            raise MechsimError(f"--param value {text!r}: {distribution.group(1)}() takes two numbers")
        return getattr(ms, distribution.group(1))(*arguments)
    span = RANGE.match(text)
    if ":" in text and not span:       # YAML would read 1:2 as a base-60 number
        raise MechsimError(f"--param value {text!r}: write a range as LOW:HIGH:COUNT, e.g. 1:2:11")
    if span:
        import numpy as np
        low, high = (_yaml(x, text) for x in span.group(1, 2))
        if not all(isinstance(x, (int, float)) for x in (low, high)) or int(span.group(3)) < 1:
            raise MechsimError(f"--param value {text!r}: write a range as LOW:HIGH:COUNT, e.g. 1:2:11")
        return np.linspace(low, high, int(span.group(3))).tolist()
    value = _yaml(f"[{text}]" if "," in text and not text.lstrip().startswith("[") else text, text)
    if not isinstance(value, (int, float, list)) or isinstance(value, bool):
        raise MechsimError(f"--param value {text!r}: give numbers, a list, LOW:HIGH:COUNT, normal(m,s) or uniform(a,b)")
    return value


def _yaml(text, whole):
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        raise MechsimError(f"--param value {whole!r} is not readable; give numbers, a list, LOW:HIGH:COUNT, "
                           "normal(m,s) or uniform(a,b)") from None


def parameters(entries):
    out = {}
    for entry in entries:
        path, eq, values = entry.partition("=")
        if not (path.strip() and eq and values.strip()):
            raise MechsimError(f"--param {entry!r}: expected PATH=VALUES, e.g. bodies.rod.mass=1:2:11")
        if path.strip() in out:
            raise MechsimError(f"--param {path.strip()!r} is given twice")
        out[path.strip()] = parse_values(values)
    return out


def sweep(args):
    import mechsim as ms
    model = load_model(args)
    values = parameters(args.param)
    options = simulate_options(model, args)
    progress = options.pop("progress", False)
    client = connect(args.scheduler) if args.scheduler else None
    try:
        runs = ms.sweep(model, values, samples=args.samples, seed=args.seed, simulate_kwargs=options,
                        metrics=args.metric, client=client, workers=args.threads or args.workers,
                        isolation=args.threads is None, output=args.output, trajectories=args.trajectories,
                        progress=progress)
    finally:
        if client is not None:
            client.close()
    failed = runs[runs.status != "ok"]
    print(f"{model.name}: {len(runs)} runs, {len(runs) - len(failed)} ok, {len(failed)} failed")
    for index, row in failed.head(5).iterrows():
        print(f"  run {index} failed: {row.error}")
    if args.output:
        print(f"wrote {args.output}: {len(runs)} runs, {len(runs.columns)} columns")
    else:
        print(runs.to_string(max_rows=SHOWN_ROWS))


def connect(address):
    """A Dask Client of the scheduler at ``address`` (for --scheduler)."""
    try:
        from distributed import Client
    except ImportError:
        raise MechsimError("--scheduler needs Dask: pip install 'mechsim[cluster]'") from None
    try:
        return Client(address, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise MechsimError(f"--scheduler {address}: cannot connect ({exc})") from None
