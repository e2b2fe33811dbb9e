"""Compiled constraint equations: residual g, velocity Jacobian G, and the acceleration bias.

Every scalar equation h(q, t) = 0 is one row of the tables built in compiled.py (layout.py gives
the columns). A geometric row's rate is linear in the two nodes' spatial velocities (world axes, at
the reference point, as everywhere in the kernels): hdot = w . (V_b - V_a), so its Jacobian row is
w^T (J_b - J_a) with J_i the columns S_j of the nodes on i's path to the root (Wood & Kennedy 2003, eq. 15: G = A phi^T H^T, here
A holds the rows' w), and the constraint force it carries is the wrench +-lambda w on the two nodes.
The acceleration bias gamma = f'' - hddot(qdd = 0) (Wood & Kennedy 2003, eqs. 10, 13) uses the nodes'
velocity-product accelerations acc0_i = sum of c_j on the path (no gravity, no qdd).
"""
import numpy as np
from numba import njit

from ..spatial.algebra import INLINE, JIT
from .kernels import PASS, carve, dof
from .motion import (add_scaled, contact_geometry, cross, dot, direction_motion, node_entry, node_omega,
                     point_motion, surface_tangent)
from .layout import (C0, C1, DA, DB, EA, KA, KB, NODE_A, NODE_B, PA, PARENT, PB, POLY_A, POLY_NX, POLY_NY, POLY_TERMS,
                     POLY_X0, PTYPE, QI, ROW_COORD, ROW_DISTANCE, ROW_CONTACT_GAP, ROW_CONTACT_SLIP, ROW_PERP, ROW_POLY,
                     ROW_SCREW, ROW_TYPE, RS, SURF, TK, VI)

# The rows of the current mode in a run's DataArrays (dynamics/data.py): the first counts[ACTIVE] entries of .active
# and the first counts[HELD] of .held, arrays of one entry per row of the model that a mode switch rewrites.
ACTIVE, HELD = 0, 1


@njit(**PASS)
def active_rows(data):
    """The rows taking part: the held rows the redundancy analysis of the mode keeps (independent). Inlined in
    numba's IR (PASS): a compiled call returns no view of an array it was not handed."""
    return data.active[:data.counts[ACTIVE]]


@njit(**PASS)
def held_rows(data):
    """The rows that hold in the mode: every row that always holds and the switched rows that are closed."""
    return data.held[:data.counts[HELD]]


@njit(**INLINE)
def contact_direction(kind, f, na, nb, R, p, vel, acc0):
    """(h, c, cd, d, dd) of a contact row: its residual (the gap; 0 for a slip), the contact point with
    its rate, and the row's direction (the surface's normal, or its tangent TK) with its rate."""
    gap, c, cd, n, nd = contact_geometry(R, p, vel, acc0, na, nb, (int(f[SURF]), f[RS], f[PA:PA + 3], f[EA:EA + 3]),
                                         (f[PB:PB + 3], f[DB:DB + 3], f[C1]))
    if kind == ROW_CONTACT_GAP:
        return gap, c, cd, n, nd
    e, ed, _ = direction_motion(R, vel, acc0, na, f[DA:DA + 3])
    d, dd = surface_tangent(n, nd, e, ed, f[TK] == 2.0)
    return 0.0, c, cd, d, dd


@njit(**JIT)
def contact_samples(kind, f, na, nb, R, p, vel, h, c, d):
    """A contact row at every sample of a Result (R, p, vel: (N, nodes, ...)): its residual h (N), the
    contact point c and the row's direction d (N, 3), for the contacts' signals (results/result.py)."""
    for k in range(R.shape[0]):
        h[k], ck, _, dk, _ = contact_direction(kind, f, na, nb, R[k], p[k], vel[k], vel[k])
        for j in range(3):
            c[k, j], d[k, j] = ck[j], dk[j]


@njit(**JIT)
def contact_row(kind, f, na, nb, R, p, vel, acc0, w):
    """(h, hdot, hddot at qdd = 0) of a contact row along d (the normal n for the gap, a tangent of the
    surface for a slip): the unit force d at the contact point c, w = [c x d; d], so hdot = w . (V_b - V_a)
    is d . (velocity of b's material point at c relative to a's): for the gap the envelope of the shape
    moving over its surface, for a slip a rolling constraint (not integrable: no residual). hddot =
    wdot . dV + w . dA0 with c moving as a geometric point (Featherstone, RBDA 2008 §2.10: the rate of a
    force's Pluecker coordinates). h: the gap (motion.py contact_geometry); 0 for a slip. A call of its
    own (JIT): inlined, the surfaces' geometry would grow every row evaluation in the compiled loop."""
    h, c, cd, d, dd = contact_direction(kind, f, na, nb, R, p, vel, acc0)
    m = cross(c, d)
    md = add_scaled(cross(cd, d), cross(c, dd), 1.0)
    w[0], w[1], w[2], w[3], w[4], w[5] = m[0], m[1], m[2], d[0], d[1], d[2]
    hd, hdd = 0.0, 0.0
    for j in range(6):
        dv = node_entry(vel, nb, j) - node_entry(vel, na, j)
        wd = md[j] if j < 3 else dd[j - 3]
        hd += w[j] * dv
        hdd += wd * dv + w[j] * (node_entry(acc0, nb, j) - node_entry(acc0, na, j))
    return h, hd, hdd


@njit(**INLINE)
def contact_rates(model, con_t, w, cw, row):
    """cw.h[row] and cw.hd[row] of contact row ``row`` as evaluate_row gives them, without its Jacobian row and
    gamma: what the contacts' event signals read, at every sample and root iteration of event location."""
    con_i, f = model.con_i, model.con_f[row]
    value, rate, _ = contact_row(con_i[row, ROW_TYPE], f, con_i[row, NODE_A], con_i[row, NODE_B], w.R, w.p, w.vel,
                                 cw.acc0, cw.wrench[row])
    cw.h[row] = value - f[C0] - con_t[row, 0]
    cw.hd[row] = rate - con_t[row, 1]


@njit(**INLINE)
def geometric_row(kind, f, na, nb, R, p, vel, acc0, w):
    """(h + C0, hdot, hddot at qdd = 0) of a geometric row; its wrench w (6) on node b (-w on a)."""
    if kind == ROW_CONTACT_GAP or kind == ROW_CONTACT_SLIP:
        return contact_row(kind, f, na, nb, R, p, vel, acc0, w)
    if kind == ROW_PERP:                       # h = u . s, u fixed in a, s fixed in b
        u, ud, udd = direction_motion(R, vel, acc0, na, f[DA:DA + 3])
        s, sd, sdd = direction_motion(R, vel, acc0, nb, f[DB:DB + 3])
        m = cross(s, u)                       # hdot = (w_b - w_a) . (s x u)
        w[0], w[1], w[2], w[3], w[4], w[5] = m[0], m[1], m[2], 0.0, 0.0, 0.0
        return dot(u, s), dot(ud, s) + dot(u, sd), dot(udd, s) + 2.0 * dot(ud, sd) + dot(u, sdd)
    xa, xad, xadd = point_motion(R, p, vel, acc0, na, f[PA:PA + 3])
    xb, xbd, xbdd = point_motion(R, p, vel, acc0, nb, f[PB:PB + 3])
    r, rd, rdd = add_scaled(xb, xa, -1.0), add_scaled(xbd, xad, -1.0), add_scaled(xbdd, xadd, -1.0)
    if kind == ROW_DISTANCE:                   # h = |r|: a force along r through both points
        length = np.sqrt(dot(r, r))
        n = (r[0] / length, r[1] / length, r[2] / length)
        m = cross(xb, n)
        w[0], w[1], w[2], w[3], w[4], w[5] = m[0], m[1], m[2], n[0], n[1], n[2]
        hd = dot(n, rd)
        return length, hd, dot(n, rdd) + (dot(rd, rd) - hd * hd) / length
    # ROW_POINT_DIR and ROW_SCREW: h = d . r with d fixed in a; d's rotation makes w_a = -w_b exactly
    d, dd, ddd = direction_motion(R, vel, acc0, na, f[DA:DA + 3])
    m = cross(xb, d)
    w[0], w[1], w[2], w[3], w[4], w[5] = m[0], m[1], m[2], d[0], d[1], d[2]
    h, hd, hdd = dot(d, r), dot(dd, r) + dot(d, rd), dot(ddd, r) + 2.0 * dot(dd, rd) + dot(d, rdd)
    if kind == ROW_SCREW:                      # ... - pitch * angle about d: a moment along d as well
        pitch = f[C1]
        wa, aa = node_omega(vel, acc0, na)
        wb, ab = node_omega(vel, acc0, nb)
        e, _, _ = direction_motion(R, vel, acc0, na, f[EA:EA + 3])
        s, _, _ = direction_motion(R, vel, acc0, nb, f[DB:DB + 3])
        x, y = dot(e, s), dot(cross(e, s), d)           # angle = atan2(y, x) from e (on a) to s (on b)
        angle = np.arctan2(y, x)
        turns = np.round((h / pitch - angle) / (2.0 * np.pi)) if pitch != 0.0 else 0.0
        # d angle/dt = k . (w_b - w_a), k = (x s x (d x e) + y e x s) / (x^2 + y^2), = d on the manifold
        k = add_scaled(cross(s, cross(d, e)), cross(e, s), y / x) if abs(x) > abs(y) else \
            add_scaled(cross(e, s), cross(s, cross(d, e)), x / y)
        scale = (x if abs(x) > abs(y) else y) / (x * x + y * y)
        k = (k[0] * scale, k[1] * scale, k[2] * scale)
        wr, ar = add_scaled(wb, wa, -1.0), add_scaled(ab, aa, -1.0)
        for j in range(3):
            w[j] -= pitch * k[j]
        h -= pitch * (angle + 2.0 * np.pi * turns)     # the branch nearest the slide, so h is continuous
        hd -= pitch * dot(k, wr)
        hdd -= pitch * (dot(dd, wr) + dot(k, ar))     # kdot taken as ddot: exact on the manifold
    return h, hd, hdd


@njit(**INLINE)
def polynomial_row(f, q, v, G, row):
    """(h + C0, hdot, hddot at qdd = 0) of a ROW_POLY row h = y - P(d) - C0, d = x - x0, with y = sum c q and
    x = sum c q over coordinates with qdot = v (layout.py), and its Jacobian into G[row]: hdot = ydot - P'(d) xdot,
    so G = c_y - P'(d) c_x, and hddot = G qdd - P''(d) xdot^2 (the chain rule twice; y and x are linear in q)."""
    ny, nx = int(f[POLY_NY]), int(f[POLY_NX])
    y = ydot = 0.0
    d, xdot = -f[POLY_X0], 0.0
    for k in range(ny + nx):
        qi, vi, c = int(f[POLY_TERMS + 3 * k]), int(f[POLY_TERMS + 3 * k + 1]), f[POLY_TERMS + 3 * k + 2]
        if k < ny:
            y, ydot = y + c * q[qi], ydot + c * v[vi]
            G[row, vi] += c
        else:
            d, xdot = d + c * q[qi], xdot + c * v[vi]
    a1, a2, a3, a4 = f[POLY_A], f[POLY_A + 1], f[POLY_A + 2], f[POLY_A + 3]
    P = d * (a1 + d * (a2 + d * (a3 + d * a4)))
    dP = a1 + d * (2.0 * a2 + d * (3.0 * a3 + d * 4.0 * a4))
    ddP = 2.0 * a2 + d * (6.0 * a3 + d * 12.0 * a4)
    for k in range(ny, ny + nx):
        G[row, int(f[POLY_TERMS + 3 * k + 1])] -= dP * f[POLY_TERMS + 3 * k + 2]
    return y - P, ydot - dP * xdot, -ddP * xdot * xdot


@njit(**INLINE)
def add_path_jacobian(node_i, S, node, w, sign, G, row):
    """G[row] += sign * w^T S_j for every node j on node's path to the root."""
    j = node
    while j >= 0:
        vj = node_i[j, VI]
        for k in range(dof(node_i[j, PTYPE])):
            s = 0.0
            for r in range(6):
                s += w[r] * S[j, r, k]
            G[row, vj + k] += sign * s
        j = node_i[j, PARENT]


@njit(**PASS)
def velocity_product_accelerations(node_i, c, acc0):
    """acc0_i = acc0_parent + c_i: node accelerations at qdd = 0 without gravity."""
    for i in range(node_i.shape[0]):
        parent = node_i[i, PARENT]
        for r in range(6):
            acc0[i, r] = c[i, r] + (acc0[parent, r] if parent >= 0 else 0.0)


@njit(**PASS)
def evaluate_rows(model, data, cw, rows, q, v):
    """evaluate_row for each of the given rows, on the kinematics in data.ws (forward_kinematics) and cw.acc0
    (velocity_product_accelerations) at (q, v), with the targets data.con_t."""
    w = carve(data.ws)
    for row in rows:
        evaluate_row(model, data.con_t, w, cw, row, q, v)


@njit(**INLINE)
def evaluate_row(model, con_t, w, cw, row, q, v):
    """Row ``row``'s residual h = g(q, t), velocity residual hd = G v - f', acceleration right-hand
    side gamma = f'' - (Gdot v) (Wood & Kennedy 2003, eq. 10), Jacobian row G (nv), wrench on node b (6), into
    cw (h, hd, gamma, G, wrench), from the kinematics in the workspace views w and cw.acc0. G[row] is written on the
    row's columns (sparsity.py row_cols) only: it is 0 elsewhere."""
    node_i, con_i, h, hd, gamma, G, wrench = model.node_i, model.con_i, cw.h, cw.hd, cw.gamma, cw.G, cw.wrench
    for c in range(1, cw.row_cols[row, 0] + 1):
        G[row, cw.row_cols[row, c]] = 0.0
    kind, na, nb, f = con_i[row, ROW_TYPE], con_i[row, NODE_A], con_i[row, NODE_B], model.con_f[row]
    if kind == ROW_COORD:                  # q_a - C1 q_b (R, P, H, T coordinates: qdot = v)
        ka = int(f[KA])
        value, rate = q[node_i[na, QI] + ka], v[node_i[na, VI] + ka]
        G[row, node_i[na, VI] + ka] += 1.0
        if nb >= 0:
            kb = int(f[KB])
            value -= f[C1] * q[node_i[nb, QI] + kb]
            rate -= f[C1] * v[node_i[nb, VI] + kb]
            G[row, node_i[nb, VI] + kb] -= f[C1]
        accel = 0.0
        wrench[row, :] = 0.0
    elif kind == ROW_POLY:
        value, rate, accel = polynomial_row(f, q, v, G, row)
        wrench[row, :] = 0.0
    else:
        value, rate, accel = geometric_row(kind, f, na, nb, w.R, w.p, w.vel, cw.acc0, wrench[row])
        add_path_jacobian(node_i, w.S, nb, wrench[row], 1.0, G, row)
        add_path_jacobian(node_i, w.S, na, wrench[row], -1.0, G, row)
    h[row] = value - f[C0] - con_t[row, 0]
    hd[row] = rate - con_t[row, 1]
    gamma[row] = con_t[row, 2] - accel
