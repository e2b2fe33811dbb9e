"""Consistent initial conditions (Wood & Kennedy 2003, §3.7): positions by trust-region Gauss–Newton with
minimum-norm steps from q0 (so the free coordinates move as little as possible), a homotopy
g(q) - (1 - s) g(q0) = 0 (eq. 42) from s = 0 to 1 when that fails, then velocities by one linear
least-squares correction of v0."""
import numpy as np

from ..dynamics.api import constraint_values
from ..dynamics.kernels import normalize_quaternions
from ..dynamics.projection import integrate_coordinates
from ..errors import ModelError, keyword
from ..modeling.primitives import PRIMITIVES
from ..results.state import State
from .redundancy import RANK_TOL, Analysis, analyse

TOL = 1e-12          # assembled: max |g| below this (lengths in m, angles in rad)


def assemble(model, fixed=None, t=0.0, what=f"assemble(): {keyword('fixed')}", start=None):
    """A State on the constraint manifold near q0/v0 (or the (q, v) ``start``) with the ``fixed``
    coordinates held; runs the redundancy analysis at the assembled configuration (state.analysis). ``what``
    names the argument ``fixed`` in error messages."""
    cm = model.compile()
    q, v = (cm.q0, cm.v0) if start is None else start
    q, v = np.array(q, dtype=float), np.array(v, dtype=float)
    held = held_velocities(cm, fixed, q, v, what)
    if cm.n_rows == 0:
        return State(cm, q, v, t)
    if cm.every_row.size == 0:              # switched rows only (stops, frictions, contacts): none holds yet
        state = State(cm, q, v, t)
        state.analysis = Analysis(np.zeros(0, dtype=np.int64), [], 0, cm.nv)
        return state
    free = np.setdiff1d(np.arange(cm.nv), held)
    analyse(cm, constraint_values(cm, q, v, t)[2])          # names an inconsistent driver before assembling
    q = solve_positions(cm, q, v, t, free)
    analysis = analyse(cm, constraint_values(cm, q, v, t)[2])
    state = State(cm, q, solve_velocities(cm, q, v, t, free, analysis.active), t)
    state.analysis = analysis
    return state


def solve_velocities(cm, q, v, t, free, rows):
    """v corrected over the free coordinates by least squares so that G v = f' on the rows ``rows`` (the active
    rows of a redundancy analysis)."""
    _, hd, G = constraint_values(cm, q, v, t)
    v = v.copy()
    v[free] -= np.linalg.lstsq(G[np.ix_(rows, free)], hd[rows], rcond=None)[0]
    return v


def held_velocities(cm, fixed, q, v, what):
    """Velocity indices of the coordinates the user holds (joint names, coordinate names, a dict of
    values); values given in a dict are set in q or v."""
    items = fixed_items(fixed, what)
    v_of_q = _velocity_of_position(cm) if items else None
    held = []
    for name, value in items:
        if name in cm.joint_v:                                  # a joint: all its coordinates
            held += range(cm.joint_v[name].start, cm.joint_v[name].stop)
            _set(q, cm.joint_q[name], value, name, what)
            continue
        joint, _, kind = str(name).rpartition(".")
        if name in cm.q_names or (joint in cm.joint_q and kind == "q"):
            index = cm.q_names.index(name) if name in cm.q_names else cm.joint_q[joint]
            _set(q, index, value, name, what)
            indices = range(index.start, index.stop) if isinstance(index, slice) else [index]
            held += sorted({vi for qi in indices for vi in v_of_q[qi]})
        elif name in cm.v_names or (joint in cm.joint_v and kind == "v"):
            index = cm.v_names.index(name) if name in cm.v_names else cm.joint_v[joint]
            _set(v, index, value, name, what)
            held += range(index.start, index.stop) if isinstance(index, slice) else [index]
        else:
            raise ModelError(f"{what} names unknown coordinate {name!r}; use joint names or "
                             f"coordinate names ({', '.join(cm.q_names)})")
    return np.array(sorted(set(held)), dtype=int)


def fixed_items(fixed, what):
    """[(name, value or None)] of a ``fixed`` argument: a list of names or a dict {name: value}."""
    if fixed is None:
        return []
    if isinstance(fixed, dict):
        return list(fixed.items())
    if isinstance(fixed, (list, tuple)) and all(isinstance(name, str) for name in fixed):
        return [(name, None) for name in fixed]
    raise ModelError(f"{what} must be a list of joint or coordinate names or a dict {{name: value}}, got {fixed!r}")


def _set(x, index, value, name, what):
    """x[index] = value (None: left as it is), finite numbers of the coordinate's size."""
    if value is None:
        return
    try:
        value = np.broadcast_to(np.asarray(value, dtype=float), np.shape(x[index]))
    except (TypeError, ValueError, OverflowError):
        value = None
    if value is None or not np.all(np.isfinite(value)):
        raise ModelError(f"{what} {name!r}: the value must be {np.size(x[index])} finite number(s)")
    x[index] = value


def _velocity_of_position(cm):
    """For every q index, the v indices it moves with: its own, or a quaternion's 3 for each of its 4."""
    out = {}
    for ptype, qi, vi in cm.node_i[:, 1:4]:
        kind = PRIMITIVES[ptype]
        for k in range(kind.nq):
            out[qi + k] = list(range(vi, vi + kind.nv)) if kind.quaternion else [vi + k]
    return out


def _residual(cm, q, v, t):
    h, _, G = constraint_values(cm, q, v, t)
    return h, G


def _gauss_newton(cm, q, v, t, free, offset=None, max_iter=50):
    """Trust-region Gauss–Newton on g(q) - offset = 0 over the free coordinates, minimum-norm steps
    on the numerically independent directions of G (singular values above RANK_TOL of the largest,
    as the redundancy analysis counts them: an equation redundant at the solution is nearly so around
    it, and the step along its vanishing singular value would be all rounding). Returns (q, max |residual|)."""
    h, G = _residual(cm, q, v, t)
    r = h if offset is None else h - offset
    radius = 1.0
    for _ in range(max_iter):
        norm = np.linalg.norm(r)
        if np.max(np.abs(r), initial=0.0) < TOL:
            break
        step = np.zeros(cm.nv)      # truncated: a direction of G near rank loss would take a huge step
        step[free] = -np.linalg.lstsq(G[:, free], r, rcond=RANK_TOL)[0]
        size = np.linalg.norm(step)
        if size > radius:
            step *= radius / size
        trial = q.copy()
        integrate_coordinates(cm.node_i, trial, step)
        normalize_quaternions(cm.quat_q, trial)
        h_new, G_new = _residual(cm, trial, v, t)
        r_new = h_new if offset is None else h_new - offset
        if np.linalg.norm(r_new) < norm:
            q, r, G = trial, r_new, G_new
            radius = min(2.0 * radius, 10.0) if np.linalg.norm(r_new) < 0.5 * norm else radius
        else:
            radius *= 0.25
            if radius < 1e-14:
                break
    return q, np.max(np.abs(r), initial=0.0)


def solve_positions(cm, q0, v, t, free):
    """q on the constraints near q0, moving only the free velocity coordinates (Gauss–Newton, then
    homotopy); ModelError naming the loop or constraint that cannot close."""
    q, err = _gauss_newton(cm, q0.copy(), v, t, free)
    if err < TOL:
        return q
    g0 = _residual(cm, q0, v, t)[0]                  # homotopy (eq. 42): shrink the initial misfit gradually
    q, s, ds = q0.copy(), 0.0, 0.1
    while s < 1.0 and ds > 1e-4:
        s_new = min(1.0, s + ds)
        trial, err = _gauss_newton(cm, q.copy(), v, t, free, offset=(1.0 - s_new) * g0, max_iter=30)
        if err < 1e-9:
            q, s, ds = trial, s_new, min(2 * ds, 0.25)
        else:
            ds *= 0.5
    q, err = _gauss_newton(cm, q, v, t, free)
    if err < 1e-9:
        return q
    raise ModelError(_failure_message(cm, _residual(cm, q, v, t)[0]))


def _failure_message(cm, h):
    row = int(np.argmax(np.abs(h)))
    kind, name, label = cm.rows.owner[row]
    miss = f"{abs(h[row]):.3g}"
    if kind == "joint":
        loop = cm.topology.loops[cm.topology.cut.index(name)]
        return (f"cannot assemble the loop {' -> '.join(loop)} (closed by cut joint '{name}'): it misses closing by "
                f"{miss} (equation {label}); check the bodies' dimensions and the joint frames, or the fixed "
                "coordinates and drivers")
    what = f"driver '{name}'" if kind == "driver" else f"constraint '{name}'"
    return f"cannot assemble: {what} cannot be satisfied (residual {miss}); check it against the mechanism's geometry"
