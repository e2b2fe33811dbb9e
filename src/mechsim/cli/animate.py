"""``mechsim animate``: a model's run, simulated or read from a saved run file, as a web page (.html),
.gif or .mp4."""
from pathlib import Path

from ..errors import MechsimError
from ..simulation.options import COMMAND_LINE
from ..viz.animate import FORMATS, animate
from ..viz.shapes import BODY_MODES
from .common import add_model_argument, add_simulate_options, check_target, load_model, require_matplotlib, run, \
    simulate_options


def add_parser(commands):
    parser = commands.add_parser("animate", help="animate a model to a web page (.html), .gif or .mp4",
                                 description="Simulate a model with the file's settings (or read a saved run "
                                 "with --results) and animate it.")
    add_model_argument(parser)
    parser.add_argument("-o", "--output", required=True, help="write the animation to this .html, .gif or .mp4 file")
    parser.add_argument("--results", metavar="RUN", help="animate this saved run (.npz or .csv from "
                        "'mechsim simulate -o', with every joint's .q and .v) instead of simulating")
    add_simulate_options(parser)
    add_animation_options(parser)
    parser.set_defaults(run=animate_command)


def add_animation_options(parser):
    group = parser.add_argument_group("animation (ms.animate)")
    group.add_argument("--bodies", choices=BODY_MODES, default="geometry",
                       help="draw bodies from their geometry (default; a body without any as its inertia "
                            "ellipsoid), as equivalent inertia ellipsoids, or as convex hulls of their frames")
    group.add_argument("--fps", type=float, default=30.0, help="frames per second of simulated time (default 30)")
    group.add_argument("--trace", action="append", default=[], metavar="BODY[:FRAME]",
                       help="draw the path of a body's frame origin, or of one of its named frames (repeat for more)")


def animate_command(args):
    check_animation(args.output, "--output")
    model = load_model(args)
    if args.results is None:
        result = run(model, simulate_options(model, args), None, None)
    else:
        given = [key for key in COMMAND_LINE if getattr(args, key) is not None]
        if given:
            raise MechsimError(f"--results animates a saved run: drop --{given[0].replace('_', '-')}")
        from ..results.run_file import load_run      # imported here, not at start-up: it imports numba
        result = load_run(model, args.results)
    write_animation(result, args.output, args)


def check_animation(path, option):
    """Refuse, before simulating, an animation the run could not write (file name, matplotlib, ffmpeg)."""
    check_target(path, FORMATS, option)
    if path and Path(path).suffix in (".gif", ".mp4"):
        require_matplotlib()
    if path and Path(path).suffix == ".mp4":
        from ..viz.video import find_ffmpeg
        find_ffmpeg()


def write_animation(result, path, args):
    bodies = result.model.bodies if result.model is not None else {}
    traces = [tuple(item.rsplit(":", 1)) if ":" in item and item not in bodies else item   # "<body>:<frame>"
              for item in args.trace]
    animate(result, path, bodies=args.bodies, fps=args.fps, traces=traces)
    print(f"wrote {path}")
