"""The ``mechsim`` command line (SPEC §3, C11): simulate, animate, check, assemble and list the
signals of model files; run the speed suite.

Exit codes: 0 on success; 1 on a user error, reported as one line ``error: ...`` on stderr
(``MECHSIM_DEBUG=1`` re-raises it with its traceback instead); 2 on bad command-line usage.
matplotlib is imported only when a plot is asked for, and the compiled kernels are compiled
only by the subcommands that integrate.
"""
import argparse
import difflib
import json
import os
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .. import __version__
from ..errors import MechsimError, SimulationError
from ..io import load
from ..analysis.run_file import load_run
from ..io.model_file import IMPORTERS
from ..simulation.options import describe
from ..viz.animate import FORMATS as ANIMATION_SUFFIXES, animate
from ..viz.plot import load_matplotlib, plot
from ..viz.shapes import BODY_MODES

OUTPUT_SUFFIXES = (".csv", ".npz")
PLOT_SUFFIXES = (".png", ".pdf", ".svg")
MAX_ERROR = 2000        # characters of an error line (a value quoted in it may be huge)
SIMULATE_OPTIONS = ("t_end", "solver", "rtol", "atol", "h", "max_step", "backend")


def main(argv=None):
    """Run the command line on ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:          # --help, --version (0) and usage errors (2)
        return exc.code
    try:
        with _warnings_as_lines():
            args.run(args)
    except MechsimError as exc:
        if os.environ.get("MECHSIM_DEBUG", "") not in ("", "0"):
            raise
        line = ' '.join(str(exc).splitlines())
        print(f"error: {line if len(line) <= MAX_ERROR else line[:MAX_ERROR] + ' ...'}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:                # the reader (| head) stopped reading: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 0


# ------------------------------------------------------------------------------ parser
def _parser():
    parser = argparse.ArgumentParser(prog="mechsim", description="Simulate and analyse mechanisms "
                                     "described in model files (.yaml, .yml or .json) or robot descriptions (.urdf, .sdf, MJCF .xml).")
    parser.add_argument("--version", action="version", version=f"mechsim {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    simulate = commands.add_parser("simulate", help="simulate a model; write, plot or summarize the results",
                                   description="Simulate a model. Options not given come from the file's "
                                   "simulation: section.")
    add_model_argument(simulate)
    simulate.add_argument("-o", "--output", help="write the signals to this .csv or .npz file")
    add_simulate_options(simulate)
    simulate.add_argument("--plot", metavar="PATH", help="plot the signals to this .png (.pdf, .svg) file")
    simulate.add_argument("--signals", type=_names, metavar="NAMES",
                          help="comma-separated signals to write, plot and summarize (default: all signals "
                               "in the output file, every joint's .q in the plot and the summary)")
    simulate.add_argument("--animate", metavar="PATH", help="animate the run to this .html (.gif, .mp4) file")
    add_animation_options(simulate)
    simulate.set_defaults(run=_simulate)

    animation = commands.add_parser("animate", help="animate a model to a web page (.html), .gif or .mp4",
                                    description="Simulate a model with the file's settings (or read a saved run "
                                    "with --results) and animate it.")
    add_model_argument(animation)
    animation.add_argument("-o", "--output", required=True, help="write the animation to this .html, .gif or .mp4 file")
    animation.add_argument("--results", metavar="RUN", help="animate this saved run (.npz or .csv from "
                           "'mechsim simulate -o', with every joint's .q and .v) instead of simulating")
    add_simulate_options(animation)
    add_animation_options(animation)
    animation.set_defaults(run=_animate)

    check = commands.add_parser("check", help="print the degrees of freedom, topology, bodies and joints")
    add_model_argument(check)
    check.set_defaults(run=_check)

    assemble = commands.add_parser("assemble", help="make q0/v0 consistent with the loops, constraints and "
                                   "drivers; print or write the assembled state")
    add_model_argument(assemble)
    assemble.add_argument("-o", "--output", help="write the state to this .json (name: value) or .csv file")
    assemble.add_argument("--fixed", type=_names, metavar="NAMES",
                          help="comma-separated joints or coordinates to hold at their q0/v0")
    assemble.add_argument("--t", type=float, default=0.0, metavar="T", help="time of the drivers' motions")
    assemble.set_defaults(run=_assemble)

    signals = commands.add_parser("signals", help="list the signal names of a model, one per line")
    add_model_argument(signals)
    signals.set_defaults(run=_signals)

    from .analyses import add_parsers          # inverse, trim, linearize
    add_parsers(commands)

    from ..bench import build_parser
    bench = commands.add_parser("bench", help="run the speed suite against Pinocchio and MuJoCo (SPEC §6)")
    build_parser(bench)
    bench.set_defaults(run=_bench)
    return parser


@contextmanager
def _warnings_as_lines():
    """Warnings printed as one line ``warning: ...`` each on stderr, without Python's source line; numpy's
    RuntimeWarnings (overflow, invalid value) are dropped when the command then fails: its error line says it."""
    held = []

    def show(message, category, filename, lineno, file=None, line=None):
        line = f"warning: {' '.join(str(message).splitlines())}"
        if issubclass(category, RuntimeWarning):
            held.append(line)
        else:
            print(line, file=sys.stderr)
    previous, warnings.showwarning = warnings.showwarning, show
    try:
        yield
        for line in held:
            print(line, file=sys.stderr)
    finally:
        warnings.showwarning = previous


def _bench(args):
    from ..bench import run_from_args
    run_from_args(args)


def add_simulate_options(parser):
    """The options of model.simulate that override the file's simulation: section, and --progress."""
    for key, metavar, kind in (("t_end", "T", float), ("solver", "S", str), ("backend", "B", str),
                               ("rtol", "R", float), ("atol", "A", float), ("h", "H", float),
                               ("max_step", "M", float)):
        parser.add_argument("--" + key.replace("_", "-"), type=kind, metavar=metavar, help=describe(key))
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction,
                        help="show a progress bar (default: when stderr is a terminal)")


def add_animation_options(parser):
    group = parser.add_argument_group("animation (ms.animate)")
    group.add_argument("--bodies", choices=BODY_MODES, default="geometry",
                       help="draw bodies from their geometry (default; a body without any as its inertia "
                            "ellipsoid), as equivalent inertia ellipsoids, or as convex hulls of their frames")
    group.add_argument("--fps", type=float, default=30.0, help="frames per second of simulated time (default 30)")
    group.add_argument("--trace", action="append", default=[], metavar="BODY[:FRAME]",
                       help="draw the path of a body's frame origin, or of one of its named frames (repeat for more)")


def _names(text):
    return [name.strip() for name in text.split(",") if name.strip()]


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


# ------------------------------------------------------------------------------ simulate
def _simulate(args):
    model = load_model(args)
    signals = _known_signals(model, args.signals, args.model)
    _check_target(args.output, OUTPUT_SUFFIXES, "--output")
    _check_target(args.plot, PLOT_SUFFIXES, "--plot")
    _check_animation(args.animate, "--animate")
    if args.plot:
        _require_matplotlib()
    result = _run(model, _simulate_options(model, args), args.output, signals)
    shown = signals or [name for name in model.signals() if name.endswith(".q")]
    for record in result.events:
        print(f"event at t = {record.time:.9g}: {record.kind} {record.name}: {record.detail}")
    if args.output:
        with _writing(args.output):
            result.save(args.output, signals)
        print(f"wrote {args.output}: {len(result)} samples, t = {result.t[0]:.6g} to {result.t[-1]:.6g}")
    else:
        print(_summary(result, shown))
    if args.plot:
        with _writing(args.plot):
            plot(result, shown, args.plot)
        print(f"wrote {args.plot}")
    if args.animate:
        _write_animation(result, args.animate, args)


# ------------------------------------------------------------------------------ animate
def _animate(args):
    _check_animation(args.output, "--output")
    model = load_model(args)
    if args.results is None:
        result = _run(model, _simulate_options(model, args), None, None)
    else:
        given = [key for key in SIMULATE_OPTIONS if getattr(args, key) is not None]
        if given:
            raise MechsimError(f"--results animates a saved run: drop --{given[0].replace('_', '-')}")
        result = load_run(model, args.results)
    _write_animation(result, args.output, args)


def _check_animation(path, option):
    """Refuse, before simulating, an animation the run could not write (file name, matplotlib, ffmpeg)."""
    _check_target(path, ANIMATION_SUFFIXES, option)
    if path and Path(path).suffix in (".gif", ".mp4"):
        _require_matplotlib()
    if path and Path(path).suffix == ".mp4":
        from ..viz.video import find_ffmpeg
        find_ffmpeg()


def _write_animation(result, path, args):
    traces = [tuple(item.split(":", 1)) if ":" in item else item for item in args.trace]
    animate(result, path, bodies=args.bodies, fps=args.fps, traces=traces)
    print(f"wrote {path}")


def _known_signals(model, requested, path):
    """The signals asked for with --signals (None when not given); refuses unknown names."""
    if not requested:
        return None
    available = model.signals()
    for name in requested:
        if name not in available:
            close = difflib.get_close_matches(name, available, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise MechsimError(f"unknown signal {name!r}{hint}; 'mechsim signals {path}' lists them")
    return requested


def _check_target(path, suffixes, option):
    """Refuse, before simulating, an output file the run could not write."""
    if path is None:
        return
    path = Path(path)
    if path.suffix not in suffixes:
        raise MechsimError(f"{option} {path}: use a file name ending in {', '.join(suffixes[:-1])} or {suffixes[-1]}")
    if not path.parent.is_dir():
        raise MechsimError(f"{option} {path}: the directory {path.parent} does not exist")


def _require_matplotlib():
    """Fail now, not after a long run, when --plot cannot be drawn."""
    try:
        load_matplotlib()
    except ImportError as exc:
        raise MechsimError(str(exc)) from None


@contextmanager
def _writing(path):
    try:
        yield
    except OSError as exc:
        raise MechsimError(f"cannot write {path}: {exc.strerror or exc}") from None


def _simulate_options(model, args):
    """Options for ``model.simulate``: those given on the command line, the file's for the rest."""
    options = {key: getattr(args, key) for key in SIMULATE_OPTIONS if getattr(args, key) is not None}
    if args.progress is not None:
        options["progress"] = args.progress
    elif model.simulation.get("progress") is None:
        options["progress"] = sys.stderr.isatty()
    return options


def _run(model, options, output, signals):
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
        with _writing(output):
            partial.save(output, signals)
        raise MechsimError(f"{exc} (partial results up to t = {partial.t[-1]:.6g} written to {output})") from exc


def _summary(result, signals):
    lines = [f"{result.model.name}: {len(result)} samples, t = {result.t[0]:.6g} to {result.t[-1]:.6g}"]
    if signals:
        width = max(map(len, signals))
        lines.append("final values:")
        lines += [f"  {name:<{width}} = {_format(result[name][-1])}" for name in signals]
    return "\n".join(lines)


def _format(value):
    value = np.ravel(value)
    return f"{value[0]:.6g}" if value.size == 1 else "[" + ", ".join(f"{x:.6g}" for x in value) + "]"


# ------------------------------------------------------------------------------ check, signals
def _check(args):
    model = load_model(args)
    print(model.check())
    bodies = [[name, f"{body.mass:g}"] for name, body in model.bodies.items() if name != "ground"]
    joints = [[name, joint.kind, f"{joint.parent} -> {joint.child}", ", ".join(joint.coordinate_names()[0]) or "-"]
              for name, joint in model.joints.items()]
    print("\nbodies:")
    print(_table(["name", "mass"], bodies))
    print("\njoints:")
    print(_table(["name", "kind", "parent -> child", "coordinates"], joints))


def _table(header, rows):
    rows = [header, *rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)


def _assemble(args):
    _check_target(args.output, (".json", ".csv"), "--output")
    state = load_model(args).assemble(fixed=args.fixed, t=args.t)
    values = state.to_dict()
    if args.output is None:
        width = max(map(len, values), default=0)
        print("\n".join(f"{name:<{width}} = {value:.12g}" for name, value in values.items()))
        return
    with _writing(args.output):
        if args.output.endswith(".json"):
            Path(args.output).write_text(json.dumps(values, indent=2) + "\n")
        else:
            Path(args.output).write_text("name,value\n" + "".join(f"{k},{v!r}\n" for k, v in values.items()))
    print(f"wrote {args.output}: {len(values)} coordinates")


def _signals(args):
    print("\n".join(load_model(args).signals()))
