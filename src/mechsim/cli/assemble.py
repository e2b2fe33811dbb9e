"""``mechsim assemble``: q0 and v0 made consistent with the loops, constraints and drivers."""
from .common import add_model_argument, check_target, load_model, name_values, names, write_state

STATE_SUFFIXES = (".json", ".csv")


def add_parser(commands):
    parser = commands.add_parser("assemble", help="make q0/v0 consistent with the loops, constraints and "
                                 "drivers; print or write the assembled state")
    add_model_argument(parser)
    parser.add_argument("-o", "--output", help="write the state to this .json (name: value) or .csv file")
    parser.add_argument("--fixed", type=names, metavar="NAMES",
                        help="comma-separated joints or coordinates to hold at their q0/v0")
    parser.add_argument("--t", type=float, default=0.0, metavar="T", help="time of the drivers' motions")
    parser.set_defaults(run=assemble)


def assemble(args):
    check_target(args.output, STATE_SUFFIXES, "--output")
    values = load_model(args).assemble(fixed=args.fixed, t=args.t).to_dict()
    if args.output is None:
        print(name_values(values))
        return
    write_state(args.output, values, values)
    print(f"wrote {args.output}: {len(values)} coordinates")
