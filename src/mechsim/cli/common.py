"""What the ``mechsim`` subcommands share: the model argument and its robot-description options, the
simulate options (from the options registry), output files checked before a run, runs that keep
their partial results, and the text tables of the summaries."""
import argparse
import difflib
import json
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ..errors import MechsimError, SimulationError
from ..io import load
from ..io.model_file import IMPORTERS
from ..simulation.options import COMMAND_LINE, OPTIONS, describe
from ..viz.plot import load_matplotlib

OUTPUT_SUFFIXES = (".csv", ".npz")
PLOT_SUFFIXES = (".png", ".pdf", ".svg")


# ------------------------------------------------------------------------------ arguments
def add_model_argument(parser):
    """The model file argument, and the options of robot descriptions (ms.load's importers)."""
    parser.add_argument("model", help="model file (.yaml, .yml, .json) or robot description (.urdf, .sdf, MJCF .xml)")
    robot = parser.add_argument_group("robot descriptions (.urdf, .sdf, MJCF .xml)")
    robot.add_argument("--floating-base", action="store_true",
                       help="join the root link to the ground by a free joint 'root_joint' (default: welded)")
    robot.add_argument("--merge-fixed", action="store_true",
                       help="merge links on fixed joints into their parents, as named frames")
    robot.add_argument("--no-limits", action="store_true",
                       help="keep joint limits and friction on the model only, not simulated, and every joint at zero")
    robot.add_argument("--package-dir", action="append", default=[], metavar="NAME=PATH",
                       help="folder of a package:// name (repeat for several packages)")


def add_simulate_options(parser, keys=COMMAND_LINE, progress=True):
    """The registry's command-line options of model.simulate (they override the file's simulation:
    section) among ``keys``, and --progress."""
    for key in keys:
        numeric = OPTIONS[key].check in ("number", "positive")
        if OPTIONS[key].check == "realtime":               # --realtime, or --realtime FACTOR
            parser.add_argument("--" + key, type=float, nargs="?", const=True, metavar="FACTOR", help=describe(key))
        else:
            parser.add_argument("--" + key.replace("_", "-"), type=float if numeric else str, help=describe(key))
    if progress:
        parser.add_argument("--progress", action=argparse.BooleanOptionalAction,
                            help="show a progress bar (default: when stderr is a terminal)")


def names(text):
    """A comma-separated list of names (an argparse type)."""
    return [name.strip() for name in text.split(",") if name.strip()]


def load_model(args):
    """The model of args.model; the robot-description options only for a robot description."""
    options = {}
    if args.floating_base:
        options["floating_base"] = True
    if args.merge_fixed:
        options["merge_fixed"] = True
    if args.no_limits:
        options["limits"] = False
    if args.package_dir:
        pairs = [entry.partition("=") for entry in args.package_dir]
        bad = [entry for entry, (name, eq, folder) in zip(args.package_dir, pairs) if not (name and eq and folder)]
        if bad:
            raise MechsimError(f"--package-dir {bad[0]!r}: expected NAME=PATH")
        options["package_dirs"] = {name: folder for name, _, folder in pairs}
    if options and Path(args.model).suffix.lower() not in IMPORTERS:
        flags = ", ".join("--" + key.replace("_", "-").replace("dirs", "dir") for key in options)
        raise MechsimError(f"{args.model}: the option(s) {flags} are for robot descriptions "
                           f"({', '.join(IMPORTERS)}) only")
    return load(args.model, **options)


def known_signals(model, requested, path):
    """The signals asked for with --signals (None when not given); refuses unknown names."""
    if not requested:
        return None
    signals = model.compile().signals
    for name in requested:
        ambiguous = signals.ambiguity(name)
        if ambiguous:
            raise ambiguous
        if name not in signals:
            close = difflib.get_close_matches(name, signals.names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise MechsimError(f"unknown signal {name!r}{hint}; 'mechsim signals {path}' lists them")
    return requested


# ------------------------------------------------------------------------------ output files
def check_target(path, suffixes, option):
    """Refuse, before simulating, an output file the run could not write."""
    if path is None:
        return
    path = Path(path)
    if path.suffix not in suffixes:
        raise MechsimError(f"{option} {path}: use a file name ending in {', '.join(suffixes[:-1])} or {suffixes[-1]}")
    if not path.parent.is_dir():
        raise MechsimError(f"{option} {path}: the directory {path.parent} does not exist")


def require_matplotlib():
    """Fail now, not after a long run, when a plot cannot be drawn."""
    with plotting():
        load_matplotlib()


@contextmanager
def plotting():
    """A missing matplotlib (ImportError with the install hint: viz/plot.py) as one MechsimError line."""
    try:
        yield
    except ImportError as exc:
        raise MechsimError(str(exc)) from None


@contextmanager
def writing(path):
    """An OSError while writing ``path`` as one MechsimError line."""
    try:
        yield
    except OSError as exc:
        raise MechsimError(f"cannot write {path}: {exc.strerror or exc}") from None


# ------------------------------------------------------------------------------ runs
def simulate_options(model, args):
    """Options for ``model.simulate``: those given on the command line, the file's for the rest."""
    options = {key: getattr(args, key) for key in COMMAND_LINE if getattr(args, key) is not None}
    if args.progress is not None:
        options["progress"] = args.progress
    elif model.simulation.get("progress") is None:
        options["progress"] = sys.stderr.isatty()
    return options


def realtime_summary(stats):
    """One line of a paced run's res.stats["realtime"]."""
    return (f"real time (x{stats['factor']:g}): {stats['steps']} steps, {stats['overruns']} ended after their "
            f"deadline (worst {stats['max_lateness'] * 1e3:.3g} ms late); {stats['mean_step_compute'] * 1e6:.3g} us of "
            "computation per step")


def run(model, options, output, signals):
    """Simulate; if the run fails, write what it computed to ``output`` (when given) and say so."""
    with np.errstate(all="ignore"), keeping_partial(output, signals):   # non-finite values end the run
        return model.simulate(**options)


@contextmanager
def keeping_partial(output, signals):
    """A failed run's SimulationError: its partial Result written to ``output`` (when given), and said so."""
    try:
        yield
    except SimulationError as exc:
        partial = exc.partial
        if not output or partial is None or not len(partial):
            raise
        with writing(output):
            partial.save(output, signals)
        raise MechsimError(f"{exc} (partial results up to t = {partial.t[-1]:.6g} written to {output})") from exc


def wrote(path, result):
    """The line that reports a written run."""
    return f"wrote {path}: {len(result)} samples, t = {result.t[0]:.6g} to {result.t[-1]:.6g}"


# ------------------------------------------------------------------------------ text
def format_value(value):
    """A number, or a vector as [a, b, c], to 6 significant digits."""
    value = np.ravel(value)
    return f"{value[0]:.6g}" if value.size == 1 else "[" + ", ".join(f"{x:.6g}" for x in value) + "]"


def final_values(result, shown):
    """Lines "final values:" and one "  name = value" per signal (none when ``shown`` is empty)."""
    if not shown:
        return []
    width = max(map(len, shown))
    return ["final values:"] + [f"  {name:<{width}} = {format_value(result[name][-1])}" for name in shown]


def table(header, rows):
    """Rows of strings as left-aligned columns under a header, indented by two spaces."""
    rows = [header, *rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)


def name_values(values):
    """{name: number} as aligned "name = value" lines, 12 significant digits."""
    width = max(map(len, values), default=0)
    return "\n".join(f"{name:<{width}} = {value:.12g}" for name, value in values.items())


def write_state(path, point, values):
    """A state: ``point`` as a .json object, or the flat {name: number} ``values`` as a name,value .csv."""
    with writing(path):
        if str(path).endswith(".json"):
            Path(path).write_text(json.dumps(point, indent=2) + "\n")
        else:
            Path(path).write_text("name,value\n" + "".join(f"{k},{v!r}\n" for k, v in values.items()))

