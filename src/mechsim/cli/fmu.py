"""``mechsim fmu``: export a model as an FMI 2.0 co-simulation FMU (io/fmu.py, needs pythonfmu)."""
from ..io.fmu import FMU_OPTIONS
from ..simulation.options import COMMAND_LINE
from ..errors import MechsimError
from .common import add_model_argument, add_simulate_options, load_model, names, writing


def add_parser(commands):
    parser = commands.add_parser("fmu", help="export a model as an FMI 2.0 co-simulation FMU",
                                 description="Export a model as an FMI 2.0 co-simulation FMU: its inputs, masses, "
                                 "force parameters and signals as FMI variables, its run with the file's simulation "
                                 "settings unless given here. The FMU runs mechsim's Python code: the tool that "
                                 "loads it needs a Python with mechsim installed (pip install 'mechsim[fmi]').")
    add_model_argument(parser)
    parser.add_argument("-o", "--output", required=True, help="the .fmu file to write")
    parser.add_argument("--outputs", type=names, metavar="NAMES",
                        help="comma-separated signals, or name[i] entries, as FMU outputs (default: every signal)")
    add_simulate_options(parser, [key for key in COMMAND_LINE if key in FMU_OPTIONS], progress=False)
    parser.set_defaults(run=export)


def export(args):
    if not args.output.endswith(".fmu"):
        raise MechsimError(f"--output {args.output}: use a file name ending in .fmu")
    model = load_model(args)
    options = {key: getattr(args, key) for key in COMMAND_LINE if key in FMU_OPTIONS and getattr(args, key) is not None}
    with writing(args.output):
        model.to_fmu(args.output, args.outputs, **options)
    print(f"wrote {args.output}")
