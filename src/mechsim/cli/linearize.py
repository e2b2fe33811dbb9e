"""``mechsim linearize``: dx/dt = A x + B u, y = C x + D u about an operating point (a state file, an
equilibrium found first, or the assembled initial state), written or summarized."""
import argparse

import numpy as np

from ..errors import MechsimError
from .common import add_model_argument, check_target, load_model, names, writing
from .trim import add_operating_point_options, fixed_items, input_values, trimmed

LINEARIZATION_SUFFIXES = (".json", ".npz", ".csv")


def add_parser(commands):
    parser = commands.add_parser(
        "linearize", help="linearize about an operating point: write or print A, B, C, D",
        description="dx/dt = A x + B u, y = C x + D u about an operating point: a --state file (from "
        "'mechsim trim -o' or 'mechsim assemble -o'), an equilibrium found first (--trim), or the assembled "
        "initial state (default). x = [dq; dv] of every coordinate (--minimal: of the independent ones only).")
    add_model_argument(parser)
    parser.add_argument("-o", "--output", help="write the matrices to this .json, .npz or .csv file")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--state", metavar="FILE", help="operating point: a .json or .csv state file")
    source.add_argument("--trim", action="store_true",
                        help="linearize about the equilibrium that 'mechsim trim' finds with the same options")
    add_operating_point_options(parser)
    parser.add_argument("--inputs", type=names, metavar="NAMES",
                        help="comma-separated inputs u: model inputs or <joint>.force (default: none)")
    parser.add_argument("--outputs", type=names, metavar="NAMES",
                        help="comma-separated outputs y: signals, name[i] for one entry (default: the states)")
    parser.add_argument("--minimal", action="store_true",
                        help="keep only the independent coordinates' states (2 x DOF states)")
    parser.add_argument("--independent", type=names, metavar="NAMES",
                        help="comma-separated joints or coordinates to choose as independent")
    parser.add_argument("--perturbation", type=float, default=1e-3, metavar="H",
                        help="first step of the finite differences (default 1e-3)")
    parser.add_argument("--adaptive", action=argparse.BooleanOptionalAction, default=True,
                        help="Richardson extrapolation on a ladder of steps (default: on)")
    parser.set_defaults(run=linearize)


def linearize(args):
    check_target(args.output, LINEARIZATION_SUFFIXES, "--output")
    model = load_model(args)
    state, origin = _operating_point(model, args)
    if not float(args.perturbation) > 0:
        raise MechsimError(f"--perturbation must be positive, got {args.perturbation:g}")
    lin = model.linearize(state, inputs=args.inputs, outputs=args.outputs, minimal=args.minimal,
                          independent=args.independent, perturbation=args.perturbation, adaptive=args.adaptive)
    if args.output is None:
        print(_summary(model, lin, state, origin))
        return
    with writing(args.output):
        lin.save(args.output)
    print(f"wrote {args.output}: A {_shape(lin.A)}, B {_shape(lin.B)}, C {_shape(lin.C)}, D {_shape(lin.D)}")


def _operating_point(model, args):
    """(state, where it comes from): the --state file, the equilibrium of --trim, or the assembly."""
    if args.state is not None:
        if args.fixed or args.free_inputs:
            raise MechsimError("--fixed and --free-inputs choose the operating point of --trim or of the assembly, "
                               "not of a --state file")
        from ..results.run_file import load_state    # imported here, not at start-up: it imports numba
        return load_state(model, args.state, args.t, input_values(model, args.values)), args.state
    if args.trim or args.free_inputs:
        return trimmed(model, args), "trim"
    state = model.assemble(fixed=fixed_items(args.fixed), t=0.0 if args.t is None else args.t)
    state.inputs = {**model.inputs, **(input_values(model, args.values) or {})}
    return state, "assembly"


def _shape(matrix):
    return "x".join(str(n) for n in np.shape(matrix))


def _summary(model, lin, state, origin):
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
