"""Inverse dynamics along a tabulated motion (``mechsim inverse --motion``): the generalized forces
that make an open tree follow the positions, and optionally velocities and accelerations, of a
run file. Missing rates come from cubic-spline derivatives of the positions."""
import numpy as np

from ..dynamics.api import inverse_dynamics, refuse_closed_loops
from ..errors import MechsimError
from ..results.run_file import load_columns
from ..simulation.run_inputs import input_sources


def motion_forces(model, path):
    """{"t", "<joint>.force" or "<joint>.force[k]"} of ``model`` along the motion in the .csv or .npz file
    ``path``: columns t and every coordinate (named as in ``m.coordinates()``), optionally the joints'
    .v and .a. The model file's simulation: inputs act meanwhile."""
    cm = model.compile()
    refuse_closed_loops(cm, "inverse dynamics of a motion")
    t, q, v, a = _motion(cm, model, load_columns(path, "the motion file"), path)
    sources = input_sources(model, model.simulation.get("inputs"), "inverse")
    if sources:
        tau = np.array([inverse_dynamics(model, q[k], v[k], a[k], t[k],
                                         inputs={name: value(t[k]) for name, value in sources.items()})
                        for k in range(t.size)])
    else:
        tau = inverse_dynamics(model, q, v, a, t)
    out = {"t": t}
    for joint in cm.joint_order:
        vs = cm.joint_v[joint]
        width = vs.stop - vs.start
        for k in range(width):
            out[f"{joint}.force" if width == 1 else f"{joint}.force[{k}]"] = tau[:, vs.start + k]
    return out


def _motion(cm, model, columns, source):
    """(t, q, v, a) of the columns: q by coordinate name, v and a by name or by spline derivatives."""
    from scipy.interpolate import CubicSpline
    if "t" not in columns:
        raise MechsimError(f"{source}: no column 't'")
    t = np.asarray(columns["t"], dtype=float)
    if t.size < 2 or np.any(np.diff(t) <= 0) or not np.all(np.isfinite(t)):
        raise MechsimError(f"{source}: the times t must increase, over at least 2 samples")
    missing = [name for name in cm.q_names if name not in columns]
    if missing:
        listed = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
        raise MechsimError(f"{source}: no column for the coordinate(s) {listed}; it needs one column per "
                           f"coordinate of '{model.name}' ({len(cm.q_names)}), named as m.coordinates() names them")
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
            raise MechsimError(f"{source}: joint '{joint}' has quaternion coordinates: give its velocities "
                               f"({', '.join(v_names)}) as columns too")
        if all(name in columns for name in a_names):
            a[:, vs] = np.column_stack([columns[name] for name in a_names])
        else:
            a[:, vs] = CubicSpline(t, v[:, vs])(t, 1)
    return t, q, v, a
