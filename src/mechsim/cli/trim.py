"""``mechsim trim``: an equilibrium (zero accelerations) near the initial state, as an operating point
for ``mechsim linearize --state``: ``{"model", "t", "coordinates", "inputs", "residual"}`` in JSON,
or name,value rows in CSV."""
import math

from ..errors import MechsimError
from .common import add_model_argument, check_target, load_model, name_values, names, write_state

STATE_SUFFIXES = (".json", ".csv")


def add_parser(commands):
    parser = commands.add_parser(
        "trim", help="find an equilibrium (zero accelerations) near the initial state; print or write it",
        description="An equilibrium near q0: the constraints satisfied and every acceleration zero, with the "
        "--fixed coordinates held and the --free-inputs solved for. The -o .json file is an operating point "
        "for 'mechsim linearize --state'.")
    add_model_argument(parser)
    parser.add_argument("-o", "--output", help="write the state to this .json or .csv (name,value) file")
    add_operating_point_options(parser)
    parser.add_argument("--tol", type=float, default=1e-10, metavar="TOL",
                        help="largest constraint error and acceleration accepted (default 1e-10)")
    parser.set_defaults(run=trim)


def add_operating_point_options(parser):
    parser.add_argument("--fixed", metavar="ITEMS",
                        help="comma-separated joints or coordinates to hold, at q0 or at a value: j1,j2.q=0.3,wheel.v=3")
    parser.add_argument("--free-inputs", type=names, metavar="NAMES",
                        help="comma-separated model inputs to solve for")
    parser.add_argument("--values", metavar="ITEMS",
                        help="values of model inputs, u=0.5,...: the fixed ones' (default: their defaults) "
                             "and starting guesses of the free ones")
    parser.add_argument("--t", type=float, metavar="T", help="time of the operating point (default 0)")


def trim(args):
    check_target(args.output, STATE_SUFFIXES, "--output")
    model = load_model(args)
    state = trimmed(model, args)
    point = state.operating_point()
    values = {**point["coordinates"], **point["inputs"]}
    if args.output is None:
        print(f"equilibrium of '{model.name}' at t = {state.t:.6g} (residual {state.residual:.3g}):")
        print(name_values(values))
        return
    write_state(args.output, point, {**values, "t": point["t"], "residual": point["residual"]})
    print(f"wrote {args.output}: {len(point['coordinates'])} coordinates, {len(point['inputs'])} inputs, "
          f"residual {state.residual:.3g}")


def trimmed(model, args):
    """m.trim with the operating-point options."""
    return model.trim(fixed=fixed_items(args.fixed), free_inputs=args.free_inputs,
                      t=0.0 if args.t is None else args.t, inputs=input_values(model, args.values),
                      tol=getattr(args, "tol", 1e-10))


def fixed_items(text):
    """--fixed "j1,j2.q=0.3" -> {"j1": None, "j2.q": 0.3} (None: hold at q0)."""
    if text is None:
        return None
    items = {}
    for item in text.split(","):
        name, value = _item(item, "--fixed", allow_bare=True)
        if name:
            items[name] = value
    return items


def input_values(model, text):
    """--values "u=0.5,w=1" -> {"u": 0.5, "w": 1.0}; names must be model inputs."""
    if text is None:
        return None
    values = {}
    for item in text.split(","):
        name, value = _item(item, "--values", allow_bare=False)
        if not name:
            continue
        if name not in model.inputs:
            raise MechsimError(f"--values: unknown input {name!r}; the model's inputs are "
                               f"{', '.join(model.inputs) or 'none'}")
        values[name] = value
    return values


def _item(item, option, allow_bare):
    item = item.strip()
    if not item:
        return None, None
    name, equals, value = (part.strip() for part in item.partition("="))
    if not equals:
        if allow_bare:
            return name, None
        raise MechsimError(f"{option}: {item!r} is not NAME=VALUE")
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not name or not math.isfinite(number):
        raise MechsimError(f"{option}: {item!r} is not {'NAME or ' if allow_bare else ''}NAME=VALUE with a finite number")
    return name, number
