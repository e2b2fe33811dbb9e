"""Compiled tree-dynamics kernels over the flat arrays of a CompiledModel.

Notation follows Featherstone, *Rigid Body Dynamics Algorithms* (RBDA): S motion subspace,
v/a spatial velocity/acceleration, c velocity-product acceleration, IA/pA articulated inertia
and bias force, U = IA S, D = S^T U, u = tau - S^T pA.  All spatial quantities are in world
axes at the world origin (papers/000 §2.1, inertial coordinates), so that the recursions
(papers/000 eqs. 4-6) carry no coordinate transforms: Sdot = v x S for every joint here.
"""
import numpy as np
from numba import njit

from ..modeling.joints import PRIM_H, PRIM_P, PRIM_R, PRIM_S
from ..spatial.algebra import (JIT, axis_angle_matrix, body_inertia_world, crf_add, crm, cross3, matmul3,
                               matvec3, quat_matrix, quat_rate)
from .layout import (AXIS, COM, F_BODY_FORCE, F_JOINT_FORCE, F_JOINT_SPRING, F_SPRING_DAMPER, ICOM, MASS,
                     PARENT, PITCH, POS_TREE, PTYPE, QI, ROT_TREE, VI)

# workspace per node: R 9, p 3, S 18, vel 6, c 6, IA 36, pA 6, U 18, Dinv 9, u 3, acc 6, fext 6
NODE_WORKSPACE = 126
OK = -1   # kernel status: OK, or the index of the node whose joint-space inertia D is singular


def workspace_size(n_nodes, nv):
    return NODE_WORKSPACE * n_nodes + nv


@njit(**JIT)
def carve(ws, n, nv):
    """Named views into the flat workspace (no allocation in the kernels)."""
    o = 0
    R = ws[o:o + 9 * n].reshape((n, 3, 3)); o += 9 * n
    p = ws[o:o + 3 * n].reshape((n, 3)); o += 3 * n
    S = ws[o:o + 18 * n].reshape((n, 6, 3)); o += 18 * n
    vel = ws[o:o + 6 * n].reshape((n, 6)); o += 6 * n
    c = ws[o:o + 6 * n].reshape((n, 6)); o += 6 * n
    IA = ws[o:o + 36 * n].reshape((n, 6, 6)); o += 36 * n
    pA = ws[o:o + 6 * n].reshape((n, 6)); o += 6 * n
    U = ws[o:o + 18 * n].reshape((n, 6, 3)); o += 18 * n
    Dinv = ws[o:o + 9 * n].reshape((n, 3, 3)); o += 9 * n
    u = ws[o:o + 3 * n].reshape((n, 3)); o += 3 * n
    acc = ws[o:o + 6 * n].reshape((n, 6)); o += 6 * n
    fext = ws[o:o + 6 * n].reshape((n, 6)); o += 6 * n
    tau = ws[o:o + nv]
    return R, p, S, vel, c, IA, pA, U, Dinv, u, acc, fext, tau


@njit(**JIT)
def dof(ptype):
    """Velocity coordinates of a primitive: R, P, H one; S three; weld none."""
    if ptype == PRIM_S:
        return 3
    return 1 if ptype <= PRIM_H else 0


@njit(**JIT)
def node_kinematics(node_i, node_f, q, v, R, p, S, vel, c):
    """Base-to-tip pass: world pose (R, p) of every node frame, its motion subspace S at the world
    origin, spatial velocity vel (papers/000 eq. 4) and c = vel x (S qdot) (eq. 5's a(k))."""
    RF = np.empty((3, 3))
    Rj = np.empty((3, 3))
    pF = np.empty(3)
    axis = np.empty(3)
    vJ = np.empty(6)
    for i in range(node_i.shape[0]):
        parent, ptype, qi, vi = node_i[i, PARENT], node_i[i, PTYPE], node_i[i, QI], node_i[i, VI]
        f = node_f[i]
        # pose of the joint frame F: parent pose composed with the tree transform
        for r in range(3):
            for k in range(3):
                if parent < 0:
                    RF[r, k] = f[ROT_TREE + 3 * r + k]
                else:
                    RF[r, k] = (R[parent, r, 0] * f[ROT_TREE + k] + R[parent, r, 1] * f[ROT_TREE + 3 + k]
                                + R[parent, r, 2] * f[ROT_TREE + 6 + k])
            if parent < 0:
                pF[r] = f[POS_TREE + r]
            else:
                pF[r] = p[parent, r] + (R[parent, r, 0] * f[POS_TREE] + R[parent, r, 1] * f[POS_TREE + 1]
                                        + R[parent, r, 2] * f[POS_TREE + 2])
        for r in range(3):                                 # joint axis in world
            axis[r] = RF[r, 0] * f[AXIS] + RF[r, 1] * f[AXIS + 1] + RF[r, 2] * f[AXIS + 2]
        # joint motion
        if ptype == PRIM_R or ptype == PRIM_H:
            axis_angle_matrix(f[AXIS:AXIS + 3], q[qi], Rj)
            matmul3(RF, Rj, R[i])
        elif ptype == PRIM_S:
            quat_matrix(q[qi:qi + 4], Rj)
            matmul3(RF, Rj, R[i])
        else:
            R[i] = RF
        shift = q[qi] if ptype == PRIM_P else (f[PITCH] * q[qi] if ptype == PRIM_H else 0.0)
        for r in range(3):
            p[i, r] = pF[r] + axis[r] * shift
        # motion subspace at the world origin: a screw about the axis through p[i]
        Si = S[i]
        Si[:, :] = 0.0
        if ptype == PRIM_R or ptype == PRIM_H:
            Si[0:3, 0] = axis
            cross3(p[i], axis, Si[3:6, 0])
            if ptype == PRIM_H:
                for r in range(3):
                    Si[3 + r, 0] += f[PITCH] * axis[r]
        elif ptype == PRIM_P:
            Si[3:6, 0] = axis
        elif ptype == PRIM_S:
            for k in range(3):
                Si[0:3, k] = R[i, :, k]
                cross3(p[i], R[i, :, k], Si[3:6, k])
        nd = dof(ptype)
        for r in range(6):
            s = 0.0
            for k in range(nd):
                s += Si[r, k] * v[vi + k]
            vJ[r] = s
            vel[i, r] = s if parent < 0 else vel[parent, r] + s
        crm(vel[i], vJ, c[i])


@njit(**JIT)
def body_inertias(node_f, R, p, IA):
    """Spatial inertia of every node's body at the world origin."""
    cw = np.empty(3)
    for i in range(node_f.shape[0]):
        f = node_f[i]
        for r in range(3):
            cw[r] = p[i, r] + R[i, r, 0] * f[COM] + R[i, r, 1] * f[COM + 1] + R[i, r, 2] * f[COM + 2]
        body_inertia_world(f[MASS], cw, f[ICOM:ICOM + 9], R[i], IA[i])


@njit(**JIT)
def point_state(R, p, vel, node, point_local, x, xdot):
    """World position x and velocity xdot of a point fixed in a node (ground for node < 0)."""
    if node < 0:
        x[:] = point_local
        xdot[:] = 0.0
        return
    matvec3(R[node], point_local, x)
    x += p[node]
    cross3(vel[node, 0:3], x, xdot)
    xdot += vel[node, 3:6]


@njit(**JIT)
def add_point_force(fext, node, x, force, sign):
    """fext[node] += sign * wrench at the world origin of a force applied at world point x."""
    if node < 0:
        return
    for k in range(3):
        fext[node, 3 + k] += sign * force[k]
    fext[node, 0] += sign * (x[1] * force[2] - x[2] * force[1])
    fext[node, 1] += sign * (x[2] * force[0] - x[0] * force[2])
    fext[node, 2] += sign * (x[0] * force[1] - x[1] * force[0])


@njit(**JIT)
def applied_forces(force_i, force_f, u, q, v, R, p, vel, fext, tau):
    """Force elements: world wrenches fext on nodes and generalized forces tau (added to both)."""
    if force_i.shape[0] == 0:
        return
    xa = np.empty(3)
    xb = np.empty(3)
    va = np.empty(3)
    vb = np.empty(3)
    f = np.empty(3)
    for e in range(force_i.shape[0]):
        kind, a, b, slot = force_i[e, 0], force_i[e, 1], force_i[e, 2], force_i[e, 3]
        prm = force_f[e]
        if kind == F_JOINT_SPRING:
            tau[a] += -prm[0] * (q[b] - prm[2]) - prm[1] * v[a]
        elif kind == F_JOINT_FORCE:
            tau[a] += u[slot]
        elif kind == F_BODY_FORCE:
            point_state(R, p, vel, a, prm[3:6], xa, va)
            add_point_force(fext, a, xa, u[slot + 3:slot + 6], 1.0)
            for k in range(3):
                fext[a, k] += u[slot + k]
        elif kind == F_SPRING_DAMPER:
            point_state(R, p, vel, a, prm[3:6], xa, va)
            point_state(R, p, vel, b, prm[6:9], xb, vb)
            length = np.sqrt((xb[0] - xa[0]) ** 2 + (xb[1] - xa[1]) ** 2 + (xb[2] - xa[2]) ** 2)
            if length > 1e-12:
                rate = 0.0
                for k in range(3):
                    f[k] = (xb[k] - xa[k]) / length        # unit vector a -> b
                    rate += f[k] * (vb[k] - va[k])
                tension = prm[0] * (length - prm[2]) + prm[1] * rate
                for k in range(3):                         # pulls a towards b, b towards a
                    f[k] *= tension
                add_point_force(fext, a, xa, f, 1.0)
                add_point_force(fext, b, xb, f, -1.0)


@njit(**JIT)
def invert_joint_inertia(D, n, Dinv):
    """Dinv = D^-1 for n = 1 or 3; False if D is not positive definite (singular mass matrix)."""
    if n == 1:
        if not D[0, 0] > 0.0:
            return False
        Dinv[0, 0] = 1.0 / D[0, 0]
        return True
    a, b, c_ = D[0, 0], D[0, 1], D[0, 2]
    d, e, f = D[1, 0], D[1, 1], D[1, 2]
    g, h, k = D[2, 0], D[2, 1], D[2, 2]
    det = a * (e * k - f * h) - b * (d * k - f * g) + c_ * (d * h - e * g)
    if not (a > 0.0 and a * e - b * d > 0.0 and det > 1e-14 * (a + e + k) ** 3):
        return False
    Dinv[0, 0] = (e * k - f * h) / det
    Dinv[0, 1] = (c_ * h - b * k) / det
    Dinv[0, 2] = (b * f - c_ * e) / det
    Dinv[1, 0] = (f * g - d * k) / det
    Dinv[1, 1] = (a * k - c_ * g) / det
    Dinv[1, 2] = (c_ * d - a * f) / det
    Dinv[2, 0] = (d * h - e * g) / det
    Dinv[2, 1] = (b * g - a * h) / det
    Dinv[2, 2] = (a * e - b * d) / det
    return True


@njit(**JIT)
def bias_acceleration(node_i, gravity, c, acc, i):
    """acc[i] = acc[parent] + c[i], with a_0 = -g: gravity as a fictitious base acceleration (RBDA §5.3)."""
    parent = node_i[i, PARENT]
    for r in range(3):
        acc[i, r] = c[i, r] + (acc[parent, r] if parent >= 0 else 0.0)
        acc[i, 3 + r] = c[i, 3 + r] + (acc[parent, 3 + r] if parent >= 0 else -gravity[r])


@njit(**JIT)
def add_joint_acceleration(S, qdd, acc, i, vi, nd):
    """acc[i] += S_i qdd_i."""
    for k in range(nd):
        for r in range(6):
            acc[i, r] += S[i, r, k] * qdd[vi + k]


@njit(**JIT)
def aba_passes(node_i, gravity, S, c, IA, pA, U, Dinv, u, acc, tau, qdd):
    """Articulated-body algorithm, RBDA Table 7.1 (papers/000 §2.2: the O(n) elimination of eq. 8),
    given the kinematics and pA = v x* I v - fext. Returns OK or the first singular node."""
    n = node_i.shape[0]
    D = np.empty((3, 3))
    Ia = np.empty((6, 6))
    pa = np.empty(6)
    UD = np.empty((6, 3))
    for i in range(n - 1, -1, -1):
        parent, vi, nd = node_i[i, PARENT], node_i[i, VI], dof(node_i[i, PTYPE])
        for k in range(nd):                               # U = IA S, u = tau - S^T pA
            for r in range(6):
                s = 0.0
                for l in range(6):
                    s += IA[i, r, l] * S[i, l, k]
                U[i, r, k] = s
            s = tau[vi + k]
            for l in range(6):
                s -= S[i, l, k] * pA[i, l]
            u[i, k] = s
        for k in range(nd):                               # D = S^T U
            for j in range(nd):
                s = 0.0
                for l in range(6):
                    s += S[i, l, k] * U[i, l, j]
                D[k, j] = s
        if nd > 0 and not invert_joint_inertia(D, nd, Dinv[i]):
            return i
        if parent < 0:
            continue
        for r in range(6):                                # UD = U D^-1
            for k in range(nd):
                s = 0.0
                for j in range(nd):
                    s += U[i, r, j] * Dinv[i, j, k]
                UD[r, k] = s
        for r in range(6):                                # Ia = IA - U D^-1 U^T
            for l in range(6):
                s = IA[i, r, l]
                for k in range(nd):
                    s -= UD[r, k] * U[i, l, k]
                Ia[r, l] = s
        for r in range(6):                                # pa = pA + Ia c + U D^-1 u
            s = pA[i, r]
            for l in range(6):
                s += Ia[r, l] * c[i, l]
            for k in range(nd):
                s += UD[r, k] * u[i, k]
            pa[r] = s
        IA[parent] += Ia
        pA[parent] += pa
    for i in range(n):
        vi, nd = node_i[i, VI], dof(node_i[i, PTYPE])
        bias_acceleration(node_i, gravity, c, acc, i)
        for k in range(nd):                               # qdd = D^-1 (u - U^T a)
            s = 0.0
            for j in range(nd):
                t = u[i, j]
                for l in range(6):
                    t -= U[i, l, j] * acc[i, l]
                s += Dinv[i, k, j] * t
            qdd[vi + k] = s
        add_joint_acceleration(S, qdd, acc, i, vi, nd)
    return OK


@njit(**JIT)
def aba(node_i, node_f, force_i, force_f, gravity, u_force, q, v, tau_in, ws, qdd):
    """Forward dynamics qdd = FD(q, v, tau_in + force elements); returns OK or a singular node."""
    n, nv = node_i.shape[0], v.shape[0]
    R, p, S, vel, c, IA, pA, U, Dinv, u, acc, fext, tau = carve(ws, n, nv)
    node_kinematics(node_i, node_f, q, v, R, p, S, vel, c)
    fext[:, :] = 0.0
    tau[:] = tau_in
    applied_forces(force_i, force_f, u_force, q, v, R, p, vel, fext, tau)
    body_inertias(node_f, R, p, IA)
    gyroscopic = np.empty(6)
    for i in range(n):                                    # pA = v x* I v - fext
        for r in range(6):
            s = 0.0
            for l in range(6):
                s += IA[i, r, l] * vel[i, l]
            gyroscopic[r] = s
        for r in range(6):
            pA[i, r] = -fext[i, r]
        crf_add(vel[i], gyroscopic, pA[i])
    return aba_passes(node_i, gravity, S, c, IA, pA, U, Dinv, u, acc, tau, qdd)


@njit(**JIT)
def rnea(node_i, node_f, force_i, force_f, gravity, u_force, q, v, qdd, ws, tau_out):
    """Inverse dynamics by recursive Newton-Euler (papers/000 eqs. 4-6, RBDA Table 5.1): the joint
    forces tau_out that, with the force elements, produce qdd."""
    n, nv = node_i.shape[0], v.shape[0]
    R, p, S, vel, c, IA, pA, U, Dinv, u, acc, fext, tau = carve(ws, n, nv)
    node_kinematics(node_i, node_f, q, v, R, p, S, vel, c)
    fext[:, :] = 0.0
    tau[:] = 0.0
    applied_forces(force_i, force_f, u_force, q, v, R, p, vel, fext, tau)
    body_inertias(node_f, R, p, IA)
    f = pA                                               # body forces f_i, accumulated tip to base
    h = np.empty(6)
    for i in range(n):
        vi, nd = node_i[i, VI], dof(node_i[i, PTYPE])
        bias_acceleration(node_i, gravity, c, acc, i)
        add_joint_acceleration(S, qdd, acc, i, vi, nd)
        for r in range(6):                               # f = I a + v x* I v - fext
            s = 0.0
            t = 0.0
            for l in range(6):
                s += IA[i, r, l] * acc[i, l]
                t += IA[i, r, l] * vel[i, l]
            f[i, r] = s - fext[i, r]
            h[r] = t
        crf_add(vel[i], h, f[i])
    for i in range(n - 1, -1, -1):
        parent, vi, nd = node_i[i, PARENT], node_i[i, VI], dof(node_i[i, PTYPE])
        for k in range(nd):
            s = 0.0
            for l in range(6):
                s += S[i, l, k] * f[i, l]
            tau_out[vi + k] = s - tau[vi + k]
        if parent >= 0:
            f[parent] += f[i]


@njit(**JIT)
def crba(node_i, node_f, q, ws, M):
    """Joint-space mass matrix by the composite-rigid-body algorithm (RBDA Table 6.2)."""
    n = node_i.shape[0]
    R, p, S, vel, c, IA, pA, U, Dinv, u, acc, fext, tau = carve(ws, n, M.shape[0])
    zero_v = np.zeros(M.shape[0])
    node_kinematics(node_i, node_f, q, zero_v, R, p, S, vel, c)
    body_inertias(node_f, R, p, IA)
    M[:, :] = 0.0
    F = np.empty((6, 3))
    for i in range(n - 1, -1, -1):
        parent, vi, nd = node_i[i, PARENT], node_i[i, VI], dof(node_i[i, PTYPE])
        for k in range(nd):                              # F = Ic S
            for r in range(6):
                s = 0.0
                for l in range(6):
                    s += IA[i, r, l] * S[i, l, k]
                F[r, k] = s
        j = i
        while j >= 0 and nd > 0:                         # M_ij = F^T S_j along the path to the root
            vj, ndj = node_i[j, VI], dof(node_i[j, PTYPE])
            for k in range(nd):
                for m in range(ndj):
                    s = 0.0
                    for l in range(6):
                        s += F[l, k] * S[j, l, m]
                    M[vi + k, vj + m] = s
                    M[vj + m, vi + k] = s
            j = node_i[j, PARENT]
        if parent >= 0:
            IA[parent] += IA[i]


@njit(**JIT)
def kinematic_map(node_i, q, v, qdot):
    """qdot = H(q) v: identity for R, P, H; 1/2 q (x) (0, w) for quaternions."""
    for i in range(node_i.shape[0]):
        ptype, qi, vi = node_i[i, PTYPE], node_i[i, QI], node_i[i, VI]
        if ptype == PRIM_S:
            quat_rate(q[qi:qi + 4], v[vi:vi + 3], qdot[qi:qi + 4])
        elif ptype <= PRIM_H:
            qdot[qi] = v[vi]


@njit(**JIT)
def state_derivative(node_i, node_f, force_i, force_f, gravity, u_force, tau_in, y, nq, ws, dy):
    """dy/dt for y = [q; v]: [H(q) v; FD(q, v, tau)]. Returns OK or a singular node."""
    q, v = y[:nq], y[nq:]
    kinematic_map(node_i, q, v, dy[:nq])
    return aba(node_i, node_f, force_i, force_f, gravity, u_force, q, v, tau_in, ws, dy[nq:])


@njit(**JIT)
def normalize_quaternions(quat_q, y):
    for qi in quat_q:
        s = np.sqrt(y[qi] ** 2 + y[qi + 1] ** 2 + y[qi + 2] ** 2 + y[qi + 3] ** 2)
        y[qi:qi + 4] /= s


@njit(**JIT)
def trajectory(node_i, node_f, force_i, force_f, gravity, U_force, TAU, Q, V, ws, QDD, R_out, p_out, vel_out, acc_out):
    """Forward dynamics over samples k: joint accelerations QDD[k] and every node's world pose,
    spatial velocity and spatial acceleration (at the world origin). Returns OK or a singular node."""
    n, nv = node_i.shape[0], V.shape[1]
    for k in range(Q.shape[0]):
        status = aba(node_i, node_f, force_i, force_f, gravity, U_force[k], Q[k], V[k], TAU[k], ws, QDD[k])
        if status != OK:
            return status
        R, p, S, vel, c, IA, pA, Ucol, Dinv, u, acc, fext, tau = carve(ws, n, nv)
        R_out[k] = R
        p_out[k] = p
        vel_out[k] = vel
        acc_out[k] = acc
    return OK
