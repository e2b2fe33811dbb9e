"""The mechanics as a first-order system y = [q; v] for the integrators, compiled:

- ``state_derivative(model, data, t, y, dy)``: dy/dt = [H(q) v; vdot], vdot with the constraints
  enforced by their multipliers;
- ``correct_state(model, data, t, y)``: the drift correction applied after every accepted step
  and at every output (unit quaternions; projection or stabilization, papers/000 §3.3–3.5);
- ``signal_values(model, data, t, y, g)``: the signals compiled event conditions watch, less
  the values they cross.

Each first evaluates the time functions of the model (expressions of t for force values and
constraint targets) at t, so that the whole run stays compiled when nothing else varies; values
set from Python (inputs, callables) are left as the driver wrote them. LLVM inlines them into
their callers (INLINE) and they hand the compiled kernels only the arrays those read: a compiled
call, or numba's own inlining, of a function taking the whole model and data copies and
reference-counts every array in them, ~0.3 us an evaluation (measured; SPEC §6).
"""
from numba import njit

from ..spatial.algebra import INLINE, JIT, transform_point
from ..status import OK
from .data import BAUMGARTE
from .kernels import carve, first_pass, kinematic_map, normalize_quaternions
from .multipliers import solve_constrained
from .projection import project
from .time_functions import evaluate

# compiled event signals: signal_i = [kind, index (coordinate in y, or node), component, 0],
# signal_f = [value crossed, point in node coordinates (BODY_POSITION, BODY_VELOCITY)]
COORDINATE, BODY_POSITION, BODY_VELOCITY, BODY_OMEGA = 0, 1, 2, 3


@njit(**JIT)
def update_time_functions(ops, consts, slot_span, row_span, u, con_t, stack, t):
    """Force values u and constraint targets con_t (f, f', f'') given as expression programs of t
    (ModelArrays: time_ops, time_consts, slot_span, row_span), at t."""
    for slot in range(slot_span.shape[0]):
        if slot_span[slot, 0] >= 0:
            u[slot] = evaluate(ops, consts, slot_span[slot, 0], slot_span[slot, 1], t, stack)[0]
    for row in range(row_span.shape[0]):
        if row_span[row, 0] >= 0:
            f, df, ddf = evaluate(ops, consts, row_span[row, 0], row_span[row, 1], t, stack)
            con_t[row, 0], con_t[row, 1], con_t[row, 2] = f, df, ddf


@njit(**INLINE)
def state_derivative(model, data, t, y, dy):
    """dy/dt = [H(q) v; vdot] at (t, y); returns OK, a singular node or SINGULAR. The kernels it calls
    take the arrays they read, not the model and data (a compiled call would copy and count
    references to every array of both: ~0.4 us an evaluation)."""
    nq = model.nq
    q, v = y[:nq], y[nq:]
    if model.time_ops.shape[0]:
        update_time_functions(model.time_ops, model.time_consts, model.slot_span, model.row_span, data.u, data.con_t,
                              data.stack, t)
    kinematic_map(model.node_i, q, v, dy[:nq])
    return solve_constrained(model.node_i, model.node_f, model.force_i, model.force_f, model.gravity, data.u, data.tau,
                             q, v, data.ws, model.con_i, model.con_f, data.con_t, model.every_row, data.active,
                             data.cw, data.solver, data.alpha, data.beta, dy[nq:])


@njit(**INLINE)
def correct_state(model, data, t, y):
    """Bring y back onto its manifold in place: unit quaternions, and the constraints when the drift
    control is projection or stabilization. Returns the status."""
    normalize_quaternions(model.quat_q, y)
    if data.drift >= BAUMGARTE or model.con_i.shape[0] == 0:
        return OK
    if model.time_ops.shape[0]:
        update_time_functions(model.time_ops, model.time_consts, model.slot_span, model.row_span, data.u, data.con_t,
                              data.stack, t)
    return project(model, data, y[:model.nq], y[model.nq:])


@njit(**INLINE)
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
