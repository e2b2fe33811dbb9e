"""The analysis subcommands of the ``mechsim`` command line (SPEC C11): ``inverse`` (kinematics and
forces of a fully driven machine, or the inverse dynamics of a given motion of an open tree),
``trim`` (an equilibrium) and ``linearize`` (A, B, C, D about an operating point).

Operating points are exchanged as JSON: ``mechsim trim -o op.json`` writes
``{"model", "t", "coordinates": {name: value}, "inputs": {name: value}, "residual"}``, which
``mechsim linearize --state`` reads back, as it reads the flat ``{coordinate: value}`` file of
``mechsim assemble -o state.json``, the ``name,value`` CSV of either command, and the
``operating_point`` of a linearization JSON.
"""
import argparse
import json
import math
from pathlib import Path

import numpy as np

from ..analysis.result import save_columns
from ..analysis.state import State
from ..dynamics.kernels import normalize_quaternions
from ..errors import MechsimError
from .main import OUTPUT_SUFFIXES, _check_target, add_model_argument, load_model, _format, _known_signals, _names, _table, _writing, keeping_partial

STATE_SUFFIXES = (".json", ".csv")
LINEARIZATION_SUFFIXES = (".json", ".npz", ".csv")
DEFAULT_SAMPLES = 101


# ------------------------------------------------------------------------------ parsers
def add_parsers(commands):
    """Register inverse, trim and linearize on the subparsers of the mechsim parser."""
    inverse = commands.add_parser(
        "inverse", help="kinematics and joint forces of a fully driven model, or inverse dynamics of a motion",
        description="Without --motion: the motion the drivers prescribe (every degree of freedom must be "
        "driven) and the forces it takes: each joint's q, v, a and .force, every joint's and constraint's "
        ".reaction, the bodies' motion. The time grid comes from --t-end/--num/--dt, else the file's "
        f"simulation: section (t_eval, t_end; {DEFAULT_SAMPLES} samples when it gives no t_eval), and the "
        "inputs from its simulation: inputs. With --motion: the generalized forces that produce the motion of "
        "the file (columns t and <joint>.q, optionally .v and .a) on an open tree.")
    add_model_argument(inverse)
    inverse.add_argument("-o", "--output", help="write the signals to this .csv or .npz file")
    inverse.add_argument("--t-end", type=float, metavar="T", help="end time [s]")
    grid = inverse.add_mutually_exclusive_group()
    grid.add_argument("--num", type=int, metavar="N", help="N samples from 0 to the end time")
    grid.add_argument("--dt", type=float, metavar="DT", help="samples every DT from 0 to the end time")
    grid.add_argument("--motion", metavar="FILE",
                      help="a .csv (or .npz) with columns t and <joint>.q for every coordinate (.v, .a used when "
                           "present, else spline derivatives): write t and the <joint>.force needed (open trees)")
    inverse.add_argument("--signals", type=_names, metavar="NAMES",
                         help="comma-separated signals to write and summarize (default: all signals in the "
                              "output file; every .force and the largest reactions in the summary)")
    inverse.set_defaults(run=_inverse)

    trim = commands.add_parser(
        "trim", help="find an equilibrium (zero accelerations) near the initial state; print or write it",
        description="An equilibrium near q0: the constraints satisfied and every acceleration zero, with the "
        "--fixed coordinates held and the --free-inputs solved for. The -o .json file is an operating point "
        "for 'mechsim linearize --state'.")
    add_model_argument(trim)
    trim.add_argument("-o", "--output", help="write the state to this .json or .csv (name,value) file")
    _operating_point_options(trim)
    trim.add_argument("--tol", type=float, default=1e-10, metavar="TOL",
                      help="largest constraint error and acceleration accepted (default 1e-10)")
    trim.set_defaults(run=_trim)

    linearize = commands.add_parser(
        "linearize", help="linearize about an operating point: write or print A, B, C, D",
        description="dx/dt = A x + B u, y = C x + D u about an operating point: a --state file (from "
        "'mechsim trim -o' or 'mechsim assemble -o'), an equilibrium found first (--trim), or the assembled "
        "initial state (default). x = [dq; dv] of every coordinate (--minimal: of the independent ones only).")
    add_model_argument(linearize)
    linearize.add_argument("-o", "--output", help="write the matrices to this .json, .npz or .csv file")
    source = linearize.add_mutually_exclusive_group()
    source.add_argument("--state", metavar="FILE", help="operating point: a .json or .csv state file")
    source.add_argument("--trim", action="store_true",
                        help="linearize about the equilibrium that 'mechsim trim' finds with the same options")
    _operating_point_options(linearize)
    linearize.add_argument("--inputs", type=_names, metavar="NAMES",
                           help="comma-separated inputs u: model inputs or <joint>.force (default: none)")
    linearize.add_argument("--outputs", type=_names, metavar="NAMES",
                           help="comma-separated outputs y: signals, name[i] for one entry (default: the states)")
    linearize.add_argument("--minimal", action="store_true",
                           help="keep only the independent coordinates' states (2 x DOF states)")
    linearize.add_argument("--independent", type=_names, metavar="NAMES",
                           help="comma-separated joints or coordinates to choose as independent")
    linearize.add_argument("--perturbation", type=float, default=1e-3, metavar="H",
                           help="first step of the finite differences (default 1e-3)")
    linearize.add_argument("--adaptive", action=argparse.BooleanOptionalAction, default=True,
                           help="Richardson extrapolation on a ladder of steps (default: on)")
    linearize.set_defaults(run=_linearize)


def _operating_point_options(parser):
    parser.add_argument("--fixed", metavar="ITEMS",
                        help="comma-separated joints or coordinates to hold, at q0 or at a value: j1,j2.q=0.3,wheel.v=3")
    parser.add_argument("--free-inputs", type=_names, metavar="NAMES",
                        help="comma-separated model inputs to solve for")
    parser.add_argument("--values", metavar="ITEMS",
                        help="values of model inputs, u=0.5,...: the fixed ones' (default: their defaults) "
                             "and starting guesses of the free ones")
    parser.add_argument("--t", type=float, metavar="T", help="time of the operating point (default 0)")


# ------------------------------------------------------------------------------ inverse
def _inverse(args):
    model = load_model(args)
    _check_target(args.output, OUTPUT_SUFFIXES, "--output")
    if args.motion is not None:
        return _inverse_dynamics(model, args)
    signals = _known_signals(model, args.signals, args.model)
    times = _time_grid(model, args)
    with keeping_partial(args.output, signals):
        result = model.kinematics(times, inputs=model.simulation.get("inputs"))
    if args.output:
        with _writing(args.output):
            result.save(args.output, signals)
        print(f"wrote {args.output}: {len(result)} samples, t = {result.t[0]:.6g} to {result.t[-1]:.6g}")
        return
    print(_kinematics_summary(model, result, signals))


def _time_grid(model, args):
    """The output times: --num/--dt up to the end time, else the file's t_eval (cut at --t-end), else
    DEFAULT_SAMPLES samples from 0 to the end time."""
    sim = model.simulation
    file_grid = sim.get("t_eval")
    if file_grid is not None:
        if isinstance(file_grid, dict):
            file_grid = np.linspace(float(file_grid["start"]), float(file_grid["stop"]), int(file_grid["num"]))
        file_grid = np.asarray(file_grid, dtype=float).ravel()
    t_end = args.t_end if args.t_end is not None else sim.get("t_end")
    if args.num is None and args.dt is None and file_grid is not None and file_grid.size:
        if args.t_end is not None:
            file_grid = file_grid[file_grid <= args.t_end + 1e-12]
            if not file_grid.size:
                raise MechsimError(f"--t-end {args.t_end:g} is before the first time of the file's t_eval; "
                                   "give --num or --dt for another grid")
        return file_grid
    if t_end is None and file_grid is not None and file_grid.size:
        t_end = file_grid[-1]
    if t_end is None:
        raise MechsimError("give --t-end (the model file's simulation: section has no t_end)")
    t_end = float(t_end)
    if not t_end > 0:
        raise MechsimError(f"the end time must be positive, got {t_end:g}")
    if args.dt is not None:
        if not args.dt > 0:
            raise MechsimError(f"--dt must be positive, got {args.dt:g}")
        return np.arange(math.floor(t_end / args.dt * (1 + 1e-12)) + 1) * args.dt
    num = DEFAULT_SAMPLES if args.num is None else args.num
    if num < 1:
        raise MechsimError(f"--num must be at least 1, got {num}")
    return np.linspace(0.0, t_end, num)


def _kinematics_summary(model, result, signals):
    lines = [f"{model.name}: kinematics, {len(result)} samples, t = {result.t[0]:.6g} to {result.t[-1]:.6g}"]
    shown = signals or [name for name in result.signals if name.endswith(".force")]
    if shown:
        width = max(map(len, shown))
        lines.append("final values:")
        lines += [f"  {name:<{width}} = {_format(result[name][-1])}" for name in shown]
    joints = [name for name in model.joints if f"{name}.reaction" in result.signals]
    if not signals and joints:
        rows = []
        for name in joints:
            reaction = result[f"{name}.reaction"]
            rows.append([name, f"{np.max(np.linalg.norm(reaction[:, 3:], axis=1)):.6g}",
                         f"{np.max(np.linalg.norm(reaction[:, :3], axis=1)):.6g}"])
        lines.append("largest reaction per joint:")
        lines.append(_table(["joint", "max |force|", "max |torque|"], rows))
    return "\n".join(lines)


def _inverse_dynamics(model, args):
    """Generalized forces along a motion file, by ms.inverse_dynamics (open trees)."""
    import mechsim as ms
    from scipy.interpolate import CubicSpline

    from ..simulation.run_inputs import input_sources
    from ..dynamics.api import refuse_closed_loops

    if args.signals or args.t_end is not None:
        raise MechsimError("--signals and --t-end do not apply to --motion: the motion file gives the times, "
                           "and every joint's .force is written")
    cm = model.compile()
    refuse_closed_loops(cm, "inverse --motion")
    columns = _read_columns(args.motion)
    if "t" not in columns:
        raise MechsimError(f"--motion {args.motion}: no column 't'")
    t = columns["t"]
    if t.size < 2 or np.any(np.diff(t) <= 0) or not np.all(np.isfinite(t)):
        raise MechsimError(f"--motion {args.motion}: the times t must increase, over at least 2 samples")
    missing = [name for name in cm.q_names if name not in columns]
    if missing:
        listed = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
        raise MechsimError(f"--motion {args.motion}: no column for the coordinate(s) {listed}; the file needs "
                           f"one column per coordinate of '{model.name}' ({len(cm.q_names)}), named as in "
                           f"'mechsim assemble {args.model}'")
    N = t.size
    q = np.column_stack([columns[name] for name in cm.q_names]) if cm.nq else np.zeros((N, 0))
    v, a = np.zeros((N, cm.nv)), np.zeros((N, cm.nv))
    for joint in cm.joint_order:
        qs, vs = cm.joint_q[joint], cm.joint_v[joint]
        if vs.stop == vs.start:
            continue
        v_names, a_names = cm.v_names[vs], [name.replace(".v", ".a", 1) for name in cm.v_names[vs]]
        if all(name in columns for name in v_names):
            v[:, vs] = np.column_stack([columns[name] for name in v_names])
        elif qs.stop - qs.start == vs.stop - vs.start:
            v[:, vs] = CubicSpline(t, q[:, qs])(t, 1)
        else:
            raise MechsimError(f"--motion {args.motion}: joint '{joint}' has quaternion coordinates: give its "
                               f"velocities ({', '.join(v_names)}) as columns too")
        if all(name in columns for name in a_names):
            a[:, vs] = np.column_stack([columns[name] for name in a_names])
        else:
            a[:, vs] = CubicSpline(t, v[:, vs])(t, 1)
    sources = input_sources(model, model.simulation.get("inputs"), "inverse")
    if sources:
        tau = np.array([ms.inverse_dynamics(model, q[k], v[k], a[k], t[k],
                                            inputs={name: source(t[k]) for name, source in sources.items()})
                        for k in range(N)])
    else:
        tau = ms.inverse_dynamics(model, q, v, a, t)
    out = {"t": t}
    for joint in cm.joint_order:
        vs = cm.joint_v[joint]
        width = vs.stop - vs.start
        for k in range(width):
            out[f"{joint}.force" if width == 1 else f"{joint}.force[{k}]"] = tau[:, vs.start + k]
    if args.output:
        with _writing(args.output):
            save_columns(args.output, out)
        print(f"wrote {args.output}: {N} samples, t = {t[0]:.6g} to {t[-1]:.6g}")
        return
    rows = [[name, f"{values[-1]:.6g}", f"{np.max(np.abs(values)):.6g}"] for name, values in out.items() if name != "t"]
    print(f"{model.name}: inverse dynamics of {args.motion}, {N} samples, t = {t[0]:.6g} to {t[-1]:.6g}")
    print(_table(["force", "final", "max |value|"], rows))


def _read_columns(path):
    """{column: (N,) array} of a .csv (header row of names) or .npz file."""
    try:
        if str(path).endswith(".npz"):
            with np.load(path) as data:
                return {name: np.asarray(data[name], dtype=float).ravel() for name in data.files}
        with open(path) as handle:
            header = [name.strip() for name in handle.readline().strip().split(",")]
            data = np.loadtxt(handle, delimiter=",", ndmin=2)
    except OSError as exc:
        raise MechsimError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise MechsimError(f"cannot read {path}: {' '.join(str(exc).split())}") from None
    if data.shape[1] != len(header):
        raise MechsimError(f"cannot read {path}: {len(header)} names in the header row but {data.shape[1]} columns")
    return {name: data[:, k] for k, name in enumerate(header)}


# ------------------------------------------------------------------------------ trim
def _trim(args):
    _check_target(args.output, STATE_SUFFIXES, "--output")
    model = load_model(args)
    state = _trimmed(model, args)
    point = _operating_point(model, state)
    if args.output is None:
        print(f"equilibrium of '{model.name}' at t = {state.t:.6g} (residual {state.residual:.3g}):")
        print(_name_values({**point["coordinates"], **point["inputs"]}))
        return
    with _writing(args.output):
        if args.output.endswith(".json"):
            Path(args.output).write_text(json.dumps(point, indent=2) + "\n")
        else:
            rows = {**point["coordinates"], **point["inputs"], "t": point["t"], "residual": point["residual"]}
            Path(args.output).write_text("name,value\n" + "".join(f"{k},{v!r}\n" for k, v in rows.items()))
    print(f"wrote {args.output}: {len(point['coordinates'])} coordinates, {len(point['inputs'])} inputs, "
          f"residual {state.residual:.3g}")


def _trimmed(model, args):
    return model.trim(fixed=_fixed_items(args.fixed), free_inputs=args.free_inputs,
                      t=0.0 if args.t is None else args.t, inputs=_input_values(model, args.values),
                      tol=getattr(args, "tol", 1e-10))


def _fixed_items(text):
    """--fixed "j1,j2.q=0.3" -> {"j1": None, "j2.q": 0.3} (None: hold at q0)."""
    if text is None:
        return None
    items = {}
    for item in text.split(","):
        name, value = _item(item, "--fixed", allow_bare=True)
        if name:
            items[name] = value
    return items


def _input_values(model, text):
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


def _operating_point(model, state):
    point = {"model": model.name, "t": state.t, "coordinates": state.to_dict(),
             "inputs": {name: float(value) for name, value in (getattr(state, "inputs", None) or {}).items()}}
    residual = getattr(state, "residual", None)
    if residual is not None:
        point["residual"] = float(residual)
    return point


def _name_values(values):
    width = max(map(len, values), default=0)
    return "\n".join(f"{name:<{width}} = {value:.12g}" for name, value in values.items())


# ------------------------------------------------------------------------------ linearize
def _linearize(args):
    _check_target(args.output, LINEARIZATION_SUFFIXES, "--output")
    model = load_model(args)
    if args.state is not None:
        if args.fixed or args.free_inputs:
            raise MechsimError("--fixed and --free-inputs choose the operating point of --trim or of the assembly, "
                               "not of a --state file")
        state, origin = _read_state(model, args.model, args.state, args.t, _input_values(model, args.values)), args.state
    elif args.trim or args.free_inputs:
        state, origin = _trimmed(model, args), "trim"
    else:
        state = model.assemble(fixed=_fixed_items(args.fixed), t=0.0 if args.t is None else args.t)
        state.inputs, origin = {**model.inputs, **(_input_values(model, args.values) or {})}, "assembly"
    if not float(args.perturbation) > 0:
        raise MechsimError(f"--perturbation must be positive, got {args.perturbation:g}")
    lin = model.linearize(state, inputs=args.inputs, outputs=args.outputs, minimal=args.minimal,
                          independent=args.independent, perturbation=args.perturbation, adaptive=args.adaptive)
    if args.output is None:
        print(_linearization_summary(model, lin, state, origin))
        return
    with _writing(args.output):
        _save_linearization(args.output, lin, _operating_point(model, state))
    print(f"wrote {args.output}: A {_shape(lin.A)}, B {_shape(lin.B)}, C {_shape(lin.C)}, D {_shape(lin.D)}")


def _read_state(model, model_path, path, t, values):
    """An ms.State from a state file: trim's JSON ({"t", "coordinates", "inputs"}), a linearization JSON
    (its "operating_point"), assemble's flat {coordinate: value} JSON, or a name,value CSV."""
    cm = model.compile()
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise MechsimError(f"cannot read {path}: {exc.strerror or exc}") from None
    if str(path).endswith(".csv"):
        data = {}
        for number, line in enumerate(text.splitlines()[1:], start=2):
            if not line.strip():
                continue
            name, _, value = line.partition(",")
            try:
                data[name.strip()] = float(value)
            except ValueError:
                raise MechsimError(f"{path}, line {number}: expected name,value, got {line!r}") from None
        point = {"t": data.pop("t", None), "inputs": {k: data.pop(k) for k in list(data) if k in model.inputs}}
        data.pop("residual", None)
        point["coordinates"] = data
    else:
        try:
            point = json.loads(text)
        except ValueError as exc:
            raise MechsimError(f"{path} is not valid JSON: {exc}") from None
        if not isinstance(point, dict):
            raise MechsimError(f"{path}: expected a JSON object of coordinates")
        point = point.get("operating_point", point)
        if "coordinates" not in point:
            point = {"coordinates": point}
    coordinates, inputs = point.get("coordinates"), point.get("inputs") or {}
    if not isinstance(coordinates, dict) or not isinstance(inputs, dict):
        raise MechsimError(f"{path}: expected coordinates and inputs as name: value objects")
    q, v = np.array(cm.q0, dtype=float), np.zeros(cm.nv)
    for name, value in coordinates.items():
        if name in cm.q_names:
            q[cm.q_names.index(name)] = _number(value, path, name)
        elif name in cm.v_names:
            v[cm.v_names.index(name)] = _number(value, path, name)
        else:
            raise MechsimError(f"{path}: unknown coordinate {name!r}; the coordinates of '{model.name}' are "
                               f"{', '.join(list(cm.q_names) + list(cm.v_names))}")
    missing = [name for name in cm.q_names if name not in coordinates]
    if missing:
        raise MechsimError(f"{path}: no value for the coordinate(s) {', '.join(missing)}")
    for name in inputs:
        if name not in model.inputs:
            raise MechsimError(f"{path}: unknown input {name!r}; the model's inputs are "
                               f"{', '.join(model.inputs) or 'none'}")
    file_t = point.get("t")
    if file_t is not None and t is not None and float(file_t) != t:
        raise MechsimError(f"--t {t:g} differs from the time t = {float(file_t):g} of the state in {path}")
    state = State(cm, q, v, t if file_t is None and t is not None else _number(file_t or 0.0, path, "t"))
    normalize_quaternions(cm.quat_q, state.q)            # linearize refuses a state off the constraints
    state.inputs = {**model.inputs, **{k: _number(x, path, k) for k, x in inputs.items()}, **(values or {})}
    return state


def _number(value, path, name):
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise MechsimError(f"{path}: {name} = {value!r} is not a finite number")
    return number


def _save_linearization(path, lin, point):
    names = {"state_names": list(lin.state_names), "input_names": list(lin.input_names),
             "output_names": list(lin.output_names), "independent": list(lin.independent)}
    if path.endswith(".json"):
        matrices = {key: np.asarray(getattr(lin, key), dtype=float).tolist() for key in "ABCD"}
        data = json.dumps({**{key: f"@{key}@" for key in matrices}, **names, "operating_point": point}, indent=1)
        for key, rows in matrices.items():        # one matrix row per line
            data = data.replace(f'"@{key}@"', "[" + ",".join(f"\n  {json.dumps(row)}" for row in rows) + "\n ]")
        Path(path).write_text(data + "\n")
    elif path.endswith(".npz"):
        arrays = {key: np.asarray(getattr(lin, key), dtype=float) for key in "ABCD"}
        arrays.update({key: np.array(value, dtype=str) for key, value in names.items()})
        np.savez_compressed(path, **arrays)
    else:
        block = np.block([[lin.A, lin.B], [lin.C, lin.D]])
        rows = list(lin.state_names) + list(lin.output_names)
        header = ",".join(["row", *lin.state_names, *lin.input_names])
        lines = [header] + [",".join([name, *(f"{x:.17g}" for x in row)]) for name, row in zip(rows, block)]
        Path(path).write_text("\n".join(lines) + "\n")


def _shape(matrix):
    return "x".join(str(n) for n in np.shape(matrix))


def _linearization_summary(model, lin, state, origin):
    about = {"trim": "the equilibrium found by trim", "assembly": "the assembled initial state"}.get(
        origin, f"the state in {origin}")
    lines = [f"{model.name}: linearized about {about} at t = {state.t:.6g}",
             f"A {_shape(lin.A)}, B {_shape(lin.B)}, C {_shape(lin.C)}, D {_shape(lin.D)}",
             f"states:      {', '.join(lin.state_names) or 'none'}",
             f"inputs:      {', '.join(lin.input_names) or 'none'}",
             f"outputs:     {', '.join(lin.output_names) or 'none'}",
             f"independent: {', '.join(lin.independent) or 'none'}"]
    poles = lin.poles() if lin.A.size else np.zeros(0)
    lines.append(f"eigenvalues of A ({poles.size}):")
    lines += [f"  {text}" for text in _eigenvalues(poles)]
    return "\n".join(lines)


def _eigenvalues(poles):
    """One line per real eigenvalue or complex-conjugate pair, by increasing real part."""
    scale = max(1.0, float(np.max(np.abs(poles), initial=0.0)))
    tiny = 1e-9 * scale
    out, used = [], np.zeros(poles.size, dtype=bool)
    for k in np.lexsort((-np.abs(poles.imag), poles.real)):
        if used[k]:
            continue
        used[k] = True
        p = poles[k]
        re = 0.0 if abs(p.real) < tiny else p.real
        if abs(p.imag) < tiny:
            out.append(f"{re:.6g}")
            continue
        partner = [j for j in np.flatnonzero(~used) if abs(poles[j] - np.conj(p)) <= 1e-6 * scale]
        if partner:
            used[partner[0]] = True
            out.append(f"{re:.6g} ± {abs(p.imag):.6g}j")
        else:
            out.append(f"{re:.6g} {'+' if p.imag > 0 else '-'} {abs(p.imag):.6g}j")
    return out
