"""The mechanics as a first-order system y = [q; v] for the integrators, compiled:

- ``state_derivative(model, data, t, y, dy)``: dy/dt = [H(q) v; vdot], vdot with the constraints
  enforced by their multipliers;
- ``correct_state(model, data, t, y)``: the drift correction applied after every accepted step
  and at every output (unit quaternions; projection or stabilization, papers/000 §3.3–3.5);
- ``signal_values(model, data, t, y, g)``: the signals compiled event conditions watch, less
  the values they cross.

Each first evaluates the time functions of the model (expressions of t for force values and
constraint targets) at t, so that the whole run stays compiled when nothing else varies; values
set from Python (inputs, callables) are left as the driver wrote them.
"""
from numba import njit

from ..spatial.algebra import JIT, transform_point
from ..status import OK
from .data import BAUMGARTE
from .kernels import carve, first_pass, kinematic_map, normalize_quaternions
from .multipliers import constrained_dynamics
from .projection import project
from .time_functions import evaluate

# compiled event signals: signal_i = [kind, index (coordinate in y, or node), component, 0],
# signal_f = [value crossed, point in node coordinates (BODY_POSITION, BODY_VELOCITY)]
COORDINATE, BODY_POSITION, BODY_VELOCITY, BODY_OMEGA = 0, 1, 2, 3


@njit(**JIT)
def update_time_functions(model, data, t):
    """Force values and constraint targets (f, f', f'') given as expressions of t, at t."""
    for slot in range(model.slot_span.shape[0]):
        start = model.slot_span[slot, 0]
        if start >= 0:
            data.u[slot] = evaluate(model.time_ops, model.time_consts, start, model.slot_span[slot, 1], t,
                                    data.stack)[0]
    for row in range(model.row_span.shape[0]):
        start = model.row_span[row, 0]
        if start >= 0:
            f, df, ddf = evaluate(model.time_ops, model.time_consts, start, model.row_span[row, 1], t, data.stack)
            data.con_t[row, 0], data.con_t[row, 1], data.con_t[row, 2] = f, df, ddf


@njit(**JIT)
def state_derivative(model, data, t, y, dy):
    """dy/dt = [H(q) v; vdot] at (t, y); returns OK, a singular node or SINGULAR."""
    update_time_functions(model, data, t)
    nq = model.nq
    q, v = y[:nq], y[nq:]
    kinematic_map(model.node_i, q, v, dy[:nq])
    return constrained_dynamics(model, data, q, v, data.tau, dy[nq:])


@njit(**JIT)
def correct_state(model, data, t, y):
    """Bring y back onto its manifold in place: unit quaternions, and the constraints when the drift
    control is projection or stabilization. Returns the status."""
    normalize_quaternions(model.quat_q, y)
    if data.drift >= BAUMGARTE or model.con_i.shape[0] == 0:
        return OK
    update_time_functions(model, data, t)
    return project(model, data, y[:model.nq], y[model.nq:])


@njit(**JIT)
def signal_values(model, data, t, y, g):
    """g[k] = signal k at (t, y) less the value it crosses (data.signal_i / signal_f)."""
    nq, sig_i, sig_f = model.nq, data.signal_i, data.signal_f
    w = carve(data.ws)
    kinematics_done = False
    for k in range(sig_i.shape[0]):
        kind, index, component = sig_i[k, 0], sig_i[k, 1], sig_i[k, 2]
        if kind == COORDINATE:
            g[k] = y[index] - sig_f[k, 0]
            continue
        if not kinematics_done:
            first_pass(model.node_i, model.node_f, y[:nq], y[nq:], w.R, w.p, w.S, w.RF, w.RJ, w.vel, w.c, w.IA,
                       w.pA)
            kinematics_done = True
        if kind == BODY_OMEGA:
            value = w.vel[index, component]
        else:
            x = transform_point(w.R[index], w.p[index], sig_f[k, 1:4])
            if kind == BODY_POSITION:
                value = x[component]
            else:                                         # velocity of the point: v_O + w x x
                i, j = (component + 1) % 3, (component + 2) % 3
                value = w.vel[index, 3 + component] + w.vel[index, i] * x[j] - w.vel[index, j] * x[i]
        g[k] = value - sig_f[k, 0]
    return OK
