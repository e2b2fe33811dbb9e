"""The mechanics as a first-order system y = [q; v] for the integrators, compiled, on the model's and the
run's arrays (simulation/problem.py hands them on from its System tuple), one version per formulation, so that
a run compiles only the machinery it uses:

- the right-hand side dy/dt = [H(q) v; vdot]: ``tree_derivative`` (an open tree: ABA alone),
  ``multiplier_derivative`` (vdot with the constraints enforced by their multipliers) and
  ``reduced_derivative`` (the null-space formulation);
- the drift correction applied after every accepted step and at every output (unit quaternions; projection or
  stabilization, Wood & Kennedy 2003, §3.3–3.5): ``multiplier_correct`` and ``reduced_correct`` (a tree's is
  the quaternions' alone);
- ``signal_tables``: the signals compiled event conditions watch, less the values they cross.

They first evaluate the time functions of the model (expressions of t for force values and constraint
targets) at t, so that the whole run stays compiled when nothing else varies; values set from Python
(inputs, callables) are left as the driver wrote them.

The derivatives and corrections are inlined in numba's IR into the function the integrator calls (PASS), not
compiled on their own: numba turns each kernel compiled on its own into machine code together with all it
calls, and again in every kernel that calls it, so a level between the integrator and solve_constrained or
project generates those a further time (such levels, here and in projection.py, made a first closed loop compile
~19 % longer). Their heavy parts are calls: solve_constrained, project, the null-space kernels, ABA.
"""
import numpy as np
from numba import njit

from ..expressions.evaluator import evaluate
from ..spatial.algebra import INLINE, JIT, PASS, transform_point
from ..status import OK
from .constraints import HELD, contact_rates, velocity_product_accelerations
from .data import BAUMGARTE
from .kernels import aba, carve, forward_kinematics, kinematic_map, normalize_quaternions
from .multipliers import joint_loads, n_augmented, solve_constrained, transverse_load
from .nullspace import nullspace_correct, nullspace_derivative
from .projection import project

# compiled event signals: signal_i = [kind, index (coordinate in y, node, or constraint row), component, 0],
# signal_f = [value crossed, point in node coordinates (BODY_POSITION, BODY_VELOCITY) or the sign of a
# MULTIPLIER, ...]; a MULTIPLIER (a stop's force) needs the constrained dynamics at (t, y) evaluated first;
# a SILENT signal (a switched-off stop event) stays at 1 and never crosses. Contacts (simulation/hybrid/contacts.py):
# GAP the residual of row index (a contact's gap); SLIP the slip velocity along (d1, d2) = signal_f[1:3] of
# the tangent rows index, index + 1; CONE mu_s lambda_n - |lambda_t| of a contact's resultant over its
# ``component`` points, whose normal and tangent rows are index + 3 k, + 1, + 2 (mu_s = signal_f[1]):
# reaches zero when sticking friction saturates. FRICTION_LOAD: sign lambda - F_s - mu_s r |F_perp| of a
# stuck joint friction whose level grows with the joint's load (dynamics/multipliers.py transverse_load),
# index its lock row, component the joint's node, signal_i[3] 1 for a prismatic guide, signal_f[1:4] =
# (sign, F_s, mu_s r).
COORDINATE, BODY_POSITION, BODY_VELOCITY, BODY_OMEGA, MULTIPLIER, SILENT, GAP, SLIP, CONE, FRICTION_LOAD = range(10)


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
def set_time_values(model, data, t):
    """update_time_functions of the model's expressions at t into the run's force values and targets."""
    if model.time_ops.shape[0]:
        update_time_functions(model.time_ops, model.time_consts, model.slot_span, model.row_span, data.u, data.con_t,
                              data.stack, t)


@njit(**PASS)
def tree_derivative(model, data, t, y, dy):
    """dy/dt = [H(q) v; vdot] of an open tree at (t, y): the time functions at t, then vdot by ABA with the
    generalized forces data.tau. Returns OK or a singular node."""
    nq = model.nq
    set_time_values(model, data, t)
    kinematic_map(model.node_i, y[:nq], y[nq:], dy[:nq])
    return aba(model, data, y[:nq], y[nq:], data.tau, dy[nq:])


@njit(**PASS)
def multiplier_derivative(model, data, cw, friction, penalized, slide, t, y, dy):
    """dy/dt with the constraints enforced by their multipliers (multipliers.py solve_constrained; no row acting:
    ABA, lambda 0; ``friction``, ``penalized``, ``slide``: cw's tables or None). Returns OK, a singular node or
    SINGULAR."""
    nq = model.nq
    set_time_values(model, data, t)
    kinematic_map(model.node_i, y[:nq], y[nq:], dy[:nq])
    return solve_constrained(model, data, cw, friction, penalized, slide, y[:nq], y[nq:], data.tau, dy[nq:])


@njit(**PASS)
def reduced_derivative(model, data, cw, ns, friction, penalized, slide, t, y, dy):
    """dy/dt of the null-space formulation (nullspace.py) while a row is held, else multiplier_derivative."""
    if data.counts[HELD]:
        set_time_values(model, data, t)
        return nullspace_derivative(model, data, cw, ns, t, y, dy)
    return multiplier_derivative(model, data, cw, friction, penalized, slide, t, y, dy)


@njit(**PASS)
def multiplier_correct(model, data, cw, penalized, t, y):
    """Bring y back onto its manifold in place: unit quaternions, and the constraints when the drift control
    (data.drift) is projection or stabilization (projection.py; ``penalized``: cw.penalized or None). Returns the
    status."""
    normalize_quaternions(model.quat_q, y)
    if data.drift >= BAUMGARTE or model.con_i.shape[0] == 0 or \
            data.counts[HELD] == 0 and n_augmented(cw, penalized) == 0:
        return OK                               # nothing to project on (a ball in flight): no call passing cw
    set_time_values(model, data, t)
    nq = model.nq
    return project(model, data, cw, penalized, y[:nq], y[nq:])


@njit(**PASS)
def reduced_correct(model, data, cw, ns, penalized, t, y):
    """The null-space formulation's correction (nullspace.py) while a row is held, else multiplier_correct."""
    if data.counts[HELD]:
        normalize_quaternions(model.quat_q, y)
        set_time_values(model, data, t)
        nq = model.nq
        return nullspace_correct(model, data, cw, ns, t, y[:nq], y[nq:])
    return multiplier_correct(model, data, cw, penalized, t, y)


@njit(**INLINE)
def watches_multipliers(sig_i):
    for k in range(sig_i.shape[0]):
        if sig_i[k, 0] == MULTIPLIER or sig_i[k, 0] == CONE or sig_i[k, 0] == FRICTION_LOAD:
            return True
    return False


@njit(**INLINE)
def signal_tables(model, data, cw, sig_i, sig_f, y, g):
    """g[k] = signal k at (t, y) less the value it crosses (sig_i / sig_f). cw.lam and data.ydot: the multipliers
    and the state derivative at (t, y), when watched; cw None (an open tree): signals of rows never occur.
    Inlined: event location evaluates it at every sample and root iteration, and a call passing the
    constraint workspace costs ~0.2 us (measured), more than a contact's gap; its heavy parts are calls."""
    nq, node_i, ydot, w = model.nq, model.node_i, data.ydot, carve(data.ws)
    kinematics_done = loads_done = False
    q, v = y[:nq], y[nq:]
    for k in range(sig_i.shape[0]):
        kind, index, component = sig_i[k, 0], sig_i[k, 1], sig_i[k, 2]
        if kind == COORDINATE:
            g[k] = y[index] - sig_f[k, 0]
            continue
        if kind == SILENT:
            g[k] = 1.0
            continue
        if cw is not None:
            if kind == FRICTION_LOAD:
                if not loads_done:               # the joints' loads into w.pA (and the kinematics they need)
                    joint_loads(model, data, cw, q, v, ydot[nq:])
                    velocity_product_accelerations(node_i, w.c, cw.acc0)
                    loads_done = kinematics_done = True
                load = transverse_load(w.S, w.pA, component, sig_i[k, 3] > 0)
                g[k] = sig_f[k, 1] * cw.lam[index] - sig_f[k, 2] - sig_f[k, 3] * load - sig_f[k, 0]
                continue
            if kind == MULTIPLIER:
                g[k] = sig_f[k, 1] * cw.lam[index] - sig_f[k, 0]
                continue
            if kind == CONE:
                normal, t1, t2 = 0.0, 0.0, 0.0
                for row in range(index, index + 3 * component, 3):
                    normal, t1, t2 = normal + cw.lam[row], t1 + cw.lam[row + 1], t2 + cw.lam[row + 2]
                g[k] = sig_f[k, 1] * normal - np.sqrt(t1 * t1 + t2 * t2) - sig_f[k, 0]
                continue
        if not kinematics_done:
            forward_kinematics(model, q, v, w)
            if cw is not None:
                velocity_product_accelerations(node_i, w.c, cw.acc0)
            kinematics_done = True
        if cw is not None:
            if kind == GAP or kind == SLIP:
                for row in range(index, index + (1 if kind == GAP else 2)):
                    contact_rates(model, data.con_t, w, cw, row)
                g[k] = (cw.h[index] if kind == GAP else sig_f[k, 1] * cw.hd[index] + sig_f[k, 2] * cw.hd[index + 1]) \
                    - sig_f[k, 0]
                continue
        if kind == BODY_OMEGA:
            value = w.vel[index, component]
        else:
            x = transform_point(w.R[index], w.p[index], sig_f[k, 1:4])
            if kind == BODY_POSITION:                     # x in world: less the ground's row of p (reference_point)
                value = x[component] - w.p[node_i.shape[0], component]
            else:                                         # velocity of the point: v_O + w x x
                i, j = (component + 1) % 3, (component + 2) % 3
                value = w.vel[index, 3 + component] + w.vel[index, i] * x[j] - w.vel[index, j] * x[i]
        g[k] = value - sig_f[k, 0]
    return OK
