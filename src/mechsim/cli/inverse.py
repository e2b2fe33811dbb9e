"""``mechsim inverse``: the kinematics and joint forces of a fully driven model (``m.kinematics``), or
with --motion the generalized forces along a tabulated motion of an open tree."""
import math

import numpy as np

from ..errors import MechsimError
from .common import (OUTPUT_SUFFIXES, add_model_argument, check_target, final_values, keeping_partial, known_signals,
                     load_model, names, table, wrote, writing)

DEFAULT_SAMPLES = 101


def add_parser(commands):
    parser = commands.add_parser(
        "inverse", help="kinematics and joint forces of a fully driven model, or inverse dynamics of a motion",
        description="Without --motion: the motion the drivers prescribe (every degree of freedom must be "
        "driven) and the forces it takes: each joint's q, v, a and .force, every joint's and constraint's "
        ".reaction, the bodies' motion. The time grid comes from --t-end/--num/--dt, else the file's "
        f"simulation: section (t_eval, t_end; {DEFAULT_SAMPLES} samples when it gives no t_eval), and the "
        "inputs from its simulation: inputs. With --motion: the generalized forces that produce the motion of "
        "the file (columns t and <joint>.q, optionally .v and .a) on an open tree.")
    add_model_argument(parser)
    parser.add_argument("-o", "--output", help="write the signals to this .csv or .npz file")
    parser.add_argument("--t-end", type=float, metavar="T", help="end time [s]")
    grid = parser.add_mutually_exclusive_group()
    grid.add_argument("--num", type=int, metavar="N", help="N samples from 0 to the end time")
    grid.add_argument("--dt", type=float, metavar="DT", help="samples every DT from 0 to the end time")
    grid.add_argument("--motion", metavar="FILE",
                      help="a .csv (or .npz) with columns t and <joint>.q for every coordinate (.v, .a used when "
                           "present, else spline derivatives): write t and the <joint>.force needed (open trees)")
    parser.add_argument("--signals", type=names, metavar="NAMES",
                        help="comma-separated signals to write and summarize (default: all signals in the "
                             "output file; every .force and the largest reactions in the summary)")
    parser.set_defaults(run=inverse)


def inverse(args):
    model = load_model(args)
    check_target(args.output, OUTPUT_SUFFIXES, "--output")
    if args.motion is not None:
        return _motion(model, args)
    signals = known_signals(model, args.signals, args.model)
    times = _time_grid(model, args)
    with keeping_partial(args.output, signals):
        result = model.kinematics(times, inputs=model.simulation.get("inputs"))
    if args.output:
        with writing(args.output):
            result.save(args.output, signals)
        print(wrote(args.output, result))
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
    lines += final_values(result, signals or [name for name in result.signals if name.endswith(".force")])
    joints = [name for name in model.joints if f"{name}.reaction" in result.signals]
    if not signals and joints:
        rows = []
        for name in joints:
            reaction = result[f"{name}.reaction"]
            rows.append([name, f"{np.max(np.linalg.norm(reaction[:, 3:], axis=1)):.6g}",
                         f"{np.max(np.linalg.norm(reaction[:, :3], axis=1)):.6g}"])
        lines.append("largest reaction per joint:")
        lines.append(table(["joint", "max |force|", "max |torque|"], rows))
    return "\n".join(lines)


def _motion(model, args):
    """The generalized forces along the --motion file (analysis.motion)."""
    if args.signals or args.t_end is not None:
        raise MechsimError("--signals and --t-end do not apply to --motion: the motion file gives the times, "
                           "and every joint's .force is written")
    from ..analysis.motion import motion_forces       # imported here, not at start-up: it imports numba
    from ..results.result import save_columns
    out = motion_forces(model, args.motion)
    t = out["t"]
    if args.output:
        with writing(args.output):
            save_columns(args.output, out)
        print(f"wrote {args.output}: {t.size} samples, t = {t[0]:.6g} to {t[-1]:.6g}")
        return
    rows = [[name, f"{values[-1]:.6g}", f"{np.max(np.abs(values)):.6g}"] for name, values in out.items() if name != "t"]
    print(f"{model.name}: inverse dynamics of {args.motion}, {t.size} samples, t = {t[0]:.6g} to {t[-1]:.6g}")
    print(table(["force", "final", "max |value|"], rows))
