"""Compiled tree-dynamics kernels over the flat arrays of a CompiledModel.

Notation follows Featherstone, *Rigid Body Dynamics Algorithms* (RBDA): S motion subspace,
v/a spatial velocity/acceleration, c velocity-product acceleration, IA/pA articulated inertia
and bias force, U = IA S, D = S^T U, u = tau - S^T pA.  All spatial quantities are in world
axes (Wood & Kennedy 2003, §2.1, inertial coordinates), so that the recursions (Wood & Kennedy 2003,
eqs. 4-6) carry no coordinate transforms: Sdot = v x S for every joint here. They are referred to a
point fixed in the world for the evaluation, chosen on the machine (reference_point) rather than at the
world origin: a moment about a point 100 km away is the difference of numbers 1e5 times larger, and
the accelerations of a machine far from the origin would lose five digits to it.

Body and articulated inertias and ABA's bias forces are the exception: node i's are about its origin p_i in its
own axes R_i, as in body-coordinate ABA (RBDA Table 7.1), and go to its parent's by X^T Ia X (move_inertia) and
X^T pA (move_force). A light body's joint inertia D ~ m r^2 (r: the radius of gyration about the axis) is a small
difference of entries ~ m |d|^2 of its inertia about a point d away, and in world axes of entries mixed by the
rotation: rounded about the reference point in world axes, D loses |d|^2 / r^2 in relative accuracy (iCub's head
on its neck: accelerations 100 times less accurate than Pinocchio's body-coordinate ABA, as accurate as its
Convention.WORLD). Likewise a light hand's bias force, whose moment about the reference point, metres away, is
the difference of large ones: its joints' u = tau - S^T pA lost up to 300 times Pinocchio's error when its
accelerations are of order 1 (issue 45; benchmarks/accuracy.py).

The kernels allocate nothing: the per-node quantities live in the workspace, one block of
NODE_ROWS x 6 floats per node and one for the ground, which ``carve`` cuts into named (n + 1, ...)
views once per call.
Per-node steps are inlined by LLVM (INLINE); the passes, which hand a dozen of those views on,
are inlined into the entry points at numba-IR level (PASS): handing views to a separately
compiled function costs ~0.1 us per call even when LLVM inlines it (SPEC §6).

Kernels take the model's arrays as one tuple (layout.py ModelArrays) and a run's as another
(data.py DataArrays), then what they take per call: ``kernel(model, data, ..., q, v, ...)``.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from ..modeling.primitives import PRIM_H, PRIM_P, PRIM_R, PRIM_S, PRIM_T, PRIM_WELD
from ..spatial.algebra import (INLINE, JIT, PASS, axis_angle_matrix, body_inertia_world, crm, cross3,
                               matmul3, matvec3, matvec6, quat_matrix, quat_rate, tmatvec3,
                               transform_point)
from ..status import OK, WRONG_SIZE
from .forces import applied_forces
from .layout import (AXIS, AXIS_K, COM, FORCE_VALUES, GRAVITY, ICOM, INERTIA, MASS, PARENT, PITCH, POS_TREE, PTYPE,
                     QI, ROT_TREE, UNTURNED, VI, ModelArrays)
from .motion import cross, dot, ground_point



# kernel status: OK, another code of mechsim.status, or the index of the node whose joint-space inertia D
# is singular

NODE_ROWS = 24   # rows of 6 floats in a node's workspace block, laid out in carve()
Workspace = namedtuple("Workspace", "IA S U RF RJ R Dinv p u vel c pA acc cn")
TURNED, ABOUT_AXIS, JOINT_ROTATION, NOT_TURNED = 0, 1, 2, 3   # how a node's axes sit in its parent's (parent_rotation)


def new_workspace(n_nodes):
    """The kernels' workspace argument ws: one NODE_ROWS x 6 block per node and a last one for the
    ground (node -1), of which only p is used (motion.py ground_point)."""
    return np.zeros((n_nodes + 1, NODE_ROWS, 6))


@njit(**PASS)
def carve(ws):
    """Named (n + 1, ...) views of the node blocks ws[i] and the ground's: basic slices, so no copy and
    no reshape. 6x3 and 3x3 parts sit side by side in columns 0:3 | 3:6."""
    return Workspace(
        IA=ws[:, 0:6, :],                             # 6x6 articulated inertia, node axes (CRBA: composite, world)
        S=ws[:, 6:12, 0:3], U=ws[:, 6:12, 3:6],       # 6x3 motion subspace | U = IA S (CRBA: F = Ic S)
        RF=ws[:, 12:15, 0:3], RJ=ws[:, 12:15, 3:6],   # 3x3 rotation of the joint frame F | joint rotation
        R=ws[:, 15:18, 0:3], Dinv=ws[:, 15:18, 3:6],  # 3x3 node rotation | D^-1
        p=ws[:, 18, 0:3], u=ws[:, 18, 3:6],           # node origin | u = tau - S^T pA
        vel=ws[:, 19], c=ws[:, 20], pA=ws[:, 21], acc=ws[:, 22],
        cn=ws[:, 23])                                 # ABA: c in node axes at the node's origin


@njit(**INLINE)
def dof(ptype):
    """Velocity coordinates of a primitive: R, P, H one; S and T three; weld none."""
    if ptype == PRIM_S or ptype == PRIM_T:
        return 3
    return 1 if ptype <= PRIM_H else 0


@njit(**INLINE)
def coordinate_counts(node_i):
    """(nq, nv): q and v indices are assigned in node order (compiled.py), so the last node ends both."""
    n = node_i.shape[0]
    if n == 0:
        return 0, 0
    ptype, nd = node_i[n - 1, PTYPE], dof(node_i[n - 1, PTYPE])
    return node_i[n - 1, QI] + (4 if ptype == PRIM_S else nd), node_i[n - 1, VI] + nd


@njit(**INLINE)
def joint_frame(node_i, node_f, R, p, RF, i):
    """World rotation RF[i] of node i's joint frame F (the parent's rotation composed with the tree
    transform, none when it is the identity: UNTURNED); returns F's origin and the joint axis in world, as 3-tuples."""
    parent, f = node_i[i, PARENT], node_f[i]
    if parent < 0:
        for r in range(3):
            for k in range(3):
                RF[i, r, k] = f[ROT_TREE + 3 * r + k]
        pF = ground_point(p, f[POS_TREE:POS_TREE + 3])
    elif f[UNTURNED] != 0.0:
        for r in range(3):
            for k in range(3):
                RF[i, r, k] = R[parent, r, k]
        pF = transform_point(R[parent], p[parent], f[POS_TREE:POS_TREE + 3])
    else:
        for r in range(3):
            for k in range(3):
                RF[i, r, k] = (R[parent, r, 0] * f[ROT_TREE + k] + R[parent, r, 1] * f[ROT_TREE + 3 + k]
                               + R[parent, r, 2] * f[ROT_TREE + 6 + k])
        pF = transform_point(R[parent], p[parent], f[POS_TREE:POS_TREE + 3])
    return pF, matvec3(RF[i], f[AXIS:AXIS + 3])


@njit(**INLINE)
def motion_subspace(ptype, pitch, axis, Ri, pi, Si):
    """The dof(ptype) columns of S at the reference point (the kernels read no others): a screw of the
    given pitch (0 for R) about the axis through pi (R, H), a translation along it (P), rotations
    about the node axes through pi (S), or translations along them (T)."""
    if ptype == PRIM_R or ptype == PRIM_H:
        cross3(pi, axis, Si[3:6, 0])
        for r in range(3):
            Si[r, 0] = axis[r]
            Si[3 + r, 0] += pitch * axis[r]
    elif ptype == PRIM_P:
        for r in range(3):
            Si[r, 0] = 0.0
            Si[3 + r, 0] = axis[r]
    elif ptype == PRIM_S:
        for k in range(3):
            cross3(pi, Ri[:, k], Si[3:6, k])
            for r in range(3):
                Si[r, k] = Ri[r, k]
    elif ptype == PRIM_T:
        for k in range(3):
            for r in range(3):
                Si[r, k] = 0.0
                Si[3 + r, k] = Ri[r, k]


@njit(**INLINE)
def axis_dot(a, j, x, o):
    """a . x[o:o + 3], as a[j] x[o + j] for a = +-e_j (j >= 0: AXIS_K - 1)."""
    return a[j] * x[o + j] if j >= 0 else a[0] * x[o] + a[1] * x[o + 1] + a[2] * x[o + 2]


@njit(**INLINE)
def subspace_dot(ptype, f, k, x):
    """S_k . x for column k of S in node axes at the node's origin and 6 numbers x: S_k is the axis and pitch times
    it (R, H: the joint rotates about its axis, so the axis is the same in F's axes and the node's), the axis as a
    translation (P), or node axis k as a rotation (S) or translation (T, whose node axes are F's)."""
    if ptype == PRIM_S or ptype == PRIM_T:
        return x[k] if ptype == PRIM_S else x[3 + k]
    a, j = f[AXIS:AXIS + 3], int(f[AXIS_K]) - 1
    if ptype == PRIM_P:
        return axis_dot(a, j, x, 3)
    return axis_dot(a, j, x, 0) if ptype == PRIM_R else axis_dot(a, j, x, 0) + f[PITCH] * axis_dot(a, j, x, 3)


@njit(**INLINE)
def subspace_times(ptype, f, v, vi):
    """S_i v[vi:vi + dof] in node axes at the node's origin (the columns subspace_dot takes), a 6-tuple."""
    if ptype == PRIM_S:
        return v[vi], v[vi + 1], v[vi + 2], 0.0, 0.0, 0.0
    if ptype == PRIM_T:
        return 0.0, 0.0, 0.0, v[vi], v[vi + 1], v[vi + 2]
    if ptype == PRIM_WELD:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    a = f[AXIS] * v[vi], f[AXIS + 1] * v[vi], f[AXIS + 2] * v[vi]
    if ptype == PRIM_P:
        return 0.0, 0.0, 0.0, a[0], a[1], a[2]
    h = f[PITCH] if ptype == PRIM_H else 0.0
    return a[0], a[1], a[2], h * a[0], h * a[1], h * a[2]


@njit(**INLINE)
def node_pose(node_i, node_f, q, R, p, S, RF, RJ, i):
    """World pose (R, p) of node i's frame and its motion subspace S."""
    ptype, qi, f = node_i[i, PTYPE], node_i[i, QI], node_f[i]
    pF, axis = joint_frame(node_i, node_f, R, p, RF, i)
    if ptype == PRIM_R or ptype == PRIM_H:
        axis_angle_matrix(f[AXIS:AXIS + 3], q[qi], RJ[i])
        if f[AXIS_K] > 0.0:
            turn_columns(RF[i], int(f[AXIS_K]) - 1, RJ[i], R[i])
        else:
            matmul3(RF[i], RJ[i], R[i])
    elif ptype == PRIM_S:
        quat_matrix(q[qi:qi + 4], RJ[i])
        matmul3(RF[i], RJ[i], R[i])
    else:
        for r in range(3):
            for k in range(3):
                R[i, r, k] = RF[i, r, k]
    shift = q[qi] if ptype == PRIM_P else (f[PITCH] * q[qi] if ptype == PRIM_H else 0.0)
    for r in range(3):
        p[i, r] = pF[r] + axis[r] * shift
        if ptype == PRIM_T:                  # q[qi:qi + 3] along F's axes
            p[i, r] += RF[i, r, 0] * q[qi] + RF[i, r, 1] * q[qi + 1] + RF[i, r, 2] * q[qi + 2]
    motion_subspace(ptype, f[PITCH], axis, R[i], p[i], S[i])


@njit(**INLINE)
def turn(x, y, c, s):
    """(x, y) turned by the angle whose cosine and sine are c and s: (c x - s y, s x + c y)."""
    return c * x - s * y, s * x + c * y


@njit(**INLINE)
def turn_columns(M, k, E, out):
    """out = M E for a 3x3 M and E a rotation about the coordinate axis k: columns k + 1 and k + 2 mix (the axes
    as constants in each branch, so that the compiled code indexes fixed places)."""
    if k == 0:
        turn_column_pair(M, 0, 1, 2, E, out)
    elif k == 1:
        turn_column_pair(M, 1, 2, 0, E, out)
    else:
        turn_column_pair(M, 2, 0, 1, E, out)


@njit(**INLINE)
def turn_column_pair(M, k, i, j, E, out):
    """turn_columns with the axes i = k + 1 and j = k + 2 (mod 3) given."""
    for r in range(3):
        out[r, i], out[r, j] = turn(M[r, i], M[r, j], E[i, i], E[i, j])
        out[r, k] = M[r, k]


@njit(**INLINE)
def node_velocity(node_i, v, S, vel, c, i):
    """vel_i = vel_parent + S_i qdot_i (Wood & Kennedy 2003, eq. 4) and c_i = vel_i x S_i qdot_i (eq. 5's a(k)),
    which is vel_parent x vel_i since v x v = 0."""
    parent, vi, nd = node_i[i, PARENT], node_i[i, VI], dof(node_i[i, PTYPE])
    for r in range(6):
        s = 0.0
        for k in range(nd):
            s += S[i, r, k] * v[vi + k]
        vel[i, r] = s if parent < 0 else vel[parent, r] + s
    if parent < 0:
        for r in range(6):
            c[i, r] = 0.0
    else:
        crm(vel[parent], vel[i], c[i])


@njit(**INLINE)
def node_inertia(node_f, R, p, IA, i):
    """Spatial inertia of node i's body at the reference point, into IA[i] (CRBA)."""
    f = node_f[i]
    body_inertia_world(f[MASS], transform_point(R[i], p[i], f[COM:COM + 3]), f[ICOM:ICOM + 9], R[i], IA[i])


@njit(**INLINE)
def body_inertia(node_f, IA, i):
    """Spatial inertia of node i's body about its origin in its own axes, into IA[i] (ABA, RNEA): the model's
    constant (compiled.py node_axes_columns)."""
    f = node_f[i]
    for r in range(6):
        for l in range(6):
            IA[i, r, l] = f[INERTIA + 6 * r + l]


@njit(**INLINE)
def bias_force(f, v):
    """v x* I v (RBDA Table 7.1's p_i without external forces) for node row f's body and its velocity v, both in node
    axes about the node's origin, from the body's mass m, COM c and inertia I_c about the COM: with p = m (v_O + w x c)
    its momentum, (w x I_c w + c x (w x p), w x p), a 6-tuple. The moment as v x* (I v) sums it holds v_O x m v_O,
    zero as the difference of two numbers ~ m |v_O|^2: a light body moving fast far out on an arm would lose
    |v_O| / (|w| |c|) of its bias force in it (issue 45)."""
    m, c, Ic = f[MASS], f[COM:COM + 3], f[ICOM:ICOM + 9]
    w = (v[0], v[1], v[2])
    wc = cross(w, c)
    g = cross(w, (m * (v[3] + wc[0]), m * (v[4] + wc[1]), m * (v[5] + wc[2])))
    n = cross(w, (Ic[0] * w[0] + Ic[1] * w[1] + Ic[2] * w[2], Ic[3] * w[0] + Ic[4] * w[1] + Ic[5] * w[2],
                  Ic[6] * w[0] + Ic[7] * w[1] + Ic[8] * w[2]))
    cg = cross(c, g)
    return n[0] + cg[0], n[1] + cg[1], n[2] + cg[2], g[0], g[1], g[2]


@njit(**INLINE)
def to_node(R, x, m):
    """Motion vector m (world axes, at the reference point) in the axes R at the point x: R^T (w, v + w x x)
    (RBDA eq. 2.23), a 6-tuple."""
    w, wx = m[0:3], cross(m[0:3], x)
    return tmatvec3(R, w) + tmatvec3(R, (m[3] + wx[0], m[4] + wx[1], m[5] + wx[2]))


@njit(**INLINE)
def from_node(R, x, f):
    """Force vector f (axes R, at the point x) in world axes at the reference point: (R n + x x R f, R f)
    (RBDA eq. 2.24), a 6-tuple."""
    n, g = matvec3(R, f[0:3]), matvec3(R, f[3:6])
    xg = cross(x, g)
    return n[0] + xg[0], n[1] + xg[1], n[2] + xg[2], g[0], g[1], g[2]


@njit(**INLINE)
def force_to_node(R, x, f):
    """Force vector f (world axes, at the reference point) in the axes R at the point x: R^T (n - x x f, f)
    (RBDA eq. 2.24, the inverse of from_node), a 6-tuple."""
    xf = cross(x, f[3:6])
    return tmatvec3(R, (f[0] - xf[0], f[1] - xf[1], f[2] - xf[2])) + tmatvec3(R, f[3:6])


@njit(**INLINE)
def inertia_times(I, R, x, m):
    """I m at the reference point in world axes, for I in the axes R about the point x: X^T I X m (RBDA eq. 2.66)."""
    return from_node(R, x, matvec6(I, to_node(R, x, m)))


@njit(**INLINE)
def rows3(M):
    """The rows of a 3x3 array as a tuple of 3-tuples: values, which stores into the workspace do not make the
    compiled code read again."""
    return (M[0, 0], M[0, 1], M[0, 2]), (M[1, 0], M[1, 1], M[1, 2]), (M[2, 0], M[2, 1], M[2, 2])


@njit(**INLINE)
def rows_times(E, x):
    """E x for E given by its rows (rows3) and a 3-vector x."""
    return dot(E[0], x), dot(E[1], x), dot(E[2], x)


@njit(**INLINE)
def relative_rotation(Rp, Ri):
    """Rp^T Ri, node i's axes in its parent's, by rows (rows3)."""
    return (tmatvec3(Ri, (Rp[0, 0], Rp[1, 0], Rp[2, 0])), tmatvec3(Ri, (Rp[0, 1], Rp[1, 1], Rp[2, 1])),
            tmatvec3(Ri, (Rp[0, 2], Rp[1, 2], Rp[2, 2])))


@njit(**INLINE)
def rotate_block(I, E, a, b):
    """The 3x3 block of I at (a, b) <- E block E^T (E: rows, a tuple), and the block at (b, a) its transpose; a
    diagonal block (a == b), symmetric, from its upper triangle."""
    t = (rows_times(E, I[a, b:b + 3]), rows_times(E, I[a + 1, b:b + 3]), rows_times(E, I[a + 2, b:b + 3]))  # block E^T
    for r in range(3):
        for l in range(r if a == b else 0, 3):
            x = dot(E[r], (t[0][l], t[1][l], t[2][l]))
            I[a + r, b + l] = x
            I[b + l, a + r] = x


@njit(**INLINE)
def rotate_inertia(I, E):
    """I <- E I E^T blockwise: an inertia in a node's axes in the axes E^T of its parent (E, by rows (rows3): the
    node's axes in the parent's; RBDA eq. 2.66 without translation)."""
    rotate_block(I, E, 0, 0)
    rotate_block(I, E, 0, 3)
    rotate_block(I, E, 3, 3)


@njit(**INLINE)
def turn_block(I, a, b, i, j, c, s):
    """The 3x3 block M of I at (a, b) <- E M E^T, E the rotation by (c, s) that turns axis i towards axis j: rows i
    and j of M turned, then its columns (turn)."""
    for l in range(b, b + 3):
        I[a + i, l], I[a + j, l] = turn(I[a + i, l], I[a + j, l], c, s)
    for r in range(a, a + 3):
        I[r, b + i], I[r, b + j] = turn(I[r, b + i], I[r, b + j], c, s)


@njit(**INLINE)
def rotate_inertia_about(I, k, E):
    """rotate_inertia for E a rotation about the coordinate axis k, of the blocks translate_inertia reads (not B^T);
    the axes as constants in each branch (turn_columns)."""
    if k == 0:
        turn_blocks(I, 1, 2, E)
    elif k == 1:
        turn_blocks(I, 2, 0, E)
    else:
        turn_blocks(I, 0, 1, E)


@njit(**INLINE)
def turn_blocks(I, i, j, E):
    """Blocks A, B, C of I turned by E about the axis that turns axis i towards axis j (turn_block)."""
    c, s = E[i, i], E[j, i]
    turn_block(I, 0, 0, i, j, c, s)
    turn_block(I, 0, 3, i, j, c, s)
    turn_block(I, 3, 3, i, j, c, s)


@njit(**INLINE)
def translate_inertia(I, d, out):
    """out += X^T I X for X the translation by d (RBDA eq. 2.66): an inertia I = [[A, B], [B^T, C]] about a point
    taken to the point d from it (axes kept) is [[A + H + H^T + G d~^T, B + G], [., C]] with G = d~ C, H = d~ B^T.
    From A's upper triangle, B and C (not B^T); out stays symmetric."""
    g = (cross(d, I[3:6, 3]), cross(d, I[3:6, 4]), cross(d, I[3:6, 5]))        # columns of G
    h = (cross(d, I[0, 3:6]), cross(d, I[1, 3:6]), cross(d, I[2, 3:6]))        # columns of H
    for r in range(3):
        gd = cross(d, (g[0][r], g[1][r], g[2][r]))                              # row r of G d~^T
        for l in range(3):
            out[r, 3 + l] += I[r, 3 + l] + g[l][r]
            out[3 + l, r] = out[r, 3 + l]
            if l >= r:
                out[r, l] += I[r, l] + h[l][r] + h[r][l] + gd[l]
                out[l, r] = out[r, l]
                out[3 + r, 3 + l] += I[3 + r, 3 + l]
                out[3 + l, 3 + r] = out[3 + r, 3 + l]


@njit(**INLINE)
def same_frame(node_f, i):
    """Whether node i's joint frame F is its parent's frame (no tree offset): an intermediate primitive."""
    f = node_f[i]
    for k in range(3):
        if f[POS_TREE + k] != 0.0:
            return False
        for r in range(3):
            if f[ROT_TREE + 3 * r + k] != (1.0 if r == k else 0.0):
                return False
    return True


@njit(**INLINE)
def reference_point(node_i, node_f, q, p):
    """The point the kernels refer spatial quantities to, a point on the machine: the origin of node 0's
    joint frame moved by the translations (P, T) that head the tree without a frame offset — a free or
    planar joint's, a rail's —, so the first body's origin or a point of its joint. Its world position
    goes negated into the ground's row of p (motion.py ground_point)."""
    n = node_i.shape[0]
    t0, t1, t2 = 0.0, 0.0, 0.0                       # the translations, in node 0's frame F axes
    for i in range(n):
        ptype, qi, f = node_i[i, PTYPE], node_i[i, QI], node_f[i]
        if i > 0 and not (node_i[i, PARENT] == i - 1 and same_frame(node_f, i)):
            break
        if ptype == PRIM_P:
            t0, t1, t2 = t0 + f[AXIS] * q[qi], t1 + f[AXIS + 1] * q[qi], t2 + f[AXIS + 2] * q[qi]
        elif ptype == PRIM_T:
            t0, t1, t2 = t0 + q[qi], t1 + q[qi + 1], t2 + q[qi + 2]
        else:
            break
    if n > 0:
        f = node_f[0]
        for r in range(3):
            p[n, r] = -(f[POS_TREE + r] + f[ROT_TREE + 3 * r] * t0 + f[ROT_TREE + 3 * r + 1] * t1
                        + f[ROT_TREE + 3 * r + 2] * t2)
    else:
        for r in range(3):
            p[n, r] = 0.0


@njit(**PASS)
def forward_kinematics(model, q, v, w):
    """Base-to-tip pass of the kinematics (RBDA Table 5.1) into the workspace views w (carve): every node's
    pose (from reference_point), S, velocity and c; all that constraint rows and event signals read."""
    node_i, node_f = model.node_i, model.node_f
    reference_point(node_i, node_f, q, w.p)
    for i in range(node_i.shape[0]):
        node_pose(node_i, node_f, q, w.R, w.p, w.S, w.RF, w.RJ, i)
        node_velocity(node_i, v, w.S, w.vel, w.c, i)


@njit(**PASS)
def first_pass(model, q, v, w):
    """First pass of RNEA (RBDA Table 5.1): forward_kinematics, then every node's inertia IA = I (body_inertia)
    and bias force pA = v x* I v (bias_force, in world axes at the reference point)."""
    forward_kinematics(model, q, v, w)
    for i in range(model.node_i.shape[0]):
        body_inertia(model.node_f, w.IA, i)
        R, p = w.R[i], w.p[i]
        pa = from_node(R, p, bias_force(model.node_f[i], to_node(R, p, w.vel[i])))
        for r in range(6):
            w.pA[i, r] = pa[r]


@njit(**PASS)
def aba_first_pass(model, u_force, q, v, w, tau):
    """First pass of ABA (RBDA Table 7.1): forward_kinematics; the force elements' wrenches on the nodes (world
    axes, at the reference point, taken off pA) and their generalized forces (added to tau); then every node's
    inertia and bias force in its own axes (node_bias_force)."""
    n = model.node_i.shape[0]
    forward_kinematics(model, q, v, w)
    for i in range(n):
        for r in range(6):
            w.pA[i, r] = 0.0
    applied_forces(model.force_i, model.force_f, u_force, q, v, w.R, w.p, w.vel, w.pA, tau)
    for i in range(n):
        body_inertia(model.node_f, w.IA, i)
        node_bias_force(model, v, w, i)


@njit(**INLINE)
def node_bias_force(model, v, w, i):
    """Node i's bias force in its axes about its origin, pA_i = v_i x* I_i v_i - f_i (bias_force; RBDA Table 7.1 in body
    coordinates; f_i the force elements' wrench, left in pA_i at the reference point), and c_i = v_i x S_i qdot_i
    into w.cn (RBDA Table 7.1's c_J vanishes: S_i is constant in node axes). The second pass sums bias forces about
    each node's origin, not about the reference point, where a light body's moment far out on an arm is the small
    difference of large ones and its joint's u = tau - S^T pA would lose digits to rounding (issue 45)."""
    R, p, f = w.R[i], w.p[i], model.node_f[i]
    vn = to_node(R, p, w.vel[i])
    pa = bias_force(f, vn)
    if model.force_i.shape[0] > 0:
        fe = force_to_node(R, p, w.pA[i])
        pa = (pa[0] + fe[0], pa[1] + fe[1], pa[2] + fe[2], pa[3] + fe[3], pa[4] + fe[4], pa[5] + fe[5])
    for r in range(6):
        w.pA[i, r] = pa[r]
    crm(vn, subspace_times(model.node_i[i, PTYPE], f, v, model.node_i[i, VI]), w.cn[i])


@njit(**INLINE)
def invert_joint_inertia(D, n):
    """D <- D^-1 in place for n = 1 or 3; False if D is not positive definite (singular mass matrix)."""
    if n == 1:
        if not D[0, 0] > 0.0:
            return False
        D[0, 0] = 1.0 / D[0, 0]
        return True
    a, b, c_ = D[0, 0], D[0, 1], D[0, 2]
    d, e, f = D[1, 0], D[1, 1], D[1, 2]
    g, h, k = D[2, 0], D[2, 1], D[2, 2]
    det = a * (e * k - f * h) - b * (d * k - f * g) + c_ * (d * h - e * g)
    if not (a > 0.0 and a * e - b * d > 0.0 and det > 1e-14 * (a + e + k) ** 3):
        return False
    D[0, 0] = (e * k - f * h) / det
    D[0, 1] = (c_ * h - b * k) / det
    D[0, 2] = (b * f - c_ * e) / det
    D[1, 0] = (f * g - d * k) / det
    D[1, 1] = (a * k - c_ * g) / det
    D[1, 2] = (c_ * d - a * f) / det
    D[2, 0] = (d * h - e * g) / det
    D[2, 1] = (b * g - a * h) / det
    D[2, 2] = (a * e - b * d) / det
    return True


@njit(**INLINE)
def bias_acceleration(node_i, gravity, c, acc, i):
    """acc[i] = acc[parent] + c[i], with a_0 = -g: gravity as a fictitious base acceleration (RBDA §5.3)."""
    parent = node_i[i, PARENT]
    for r in range(3):
        acc[i, r] = c[i, r] + (acc[parent, r] if parent >= 0 else 0.0)
        acc[i, 3 + r] = c[i, 3 + r] + (acc[parent, 3 + r] if parent >= 0 else -gravity[r])


@njit(**INLINE)
def add_joint_acceleration(S, qdd, acc, i, vi, nd):
    """acc[i] += S_i qdd_i."""
    for k in range(nd):
        for r in range(6):
            acc[i, r] += S[i, r, k] * qdd[vi + k]


@njit(**INLINE)
def joint_bias_force(S, pA, tau, u, i, vi, nd):
    """u_i = tau_i - S_i^T pA_i (RBDA Table 7.1)."""
    for k in range(nd):
        s = tau[vi + k]
        for l in range(6):
            s -= S[i, l, k] * pA[i, l]
        u[i, k] = s


@njit(**INLINE)
def joint_acceleration(U, Dinv, u, acc, qdd, i, vi, nd):
    """qdd_i = D_i^-1 (u_i - U_i^T a), a = acc[i] before S_i qdd_i is added (RBDA Table 7.1)."""
    for k in range(nd):
        s = 0.0
        for j in range(nd):
            t = u[i, j]
            for l in range(6):
                t -= U[i, l, j] * acc[i, l]
            s += Dinv[i, k, j] * t
        qdd[vi + k] = s


@njit(**INLINE)
def u_dinv(U, Dinv, i, r, k, nd):
    """Entry (r, k) of U_i D_i^-1, 0 for k >= nd."""
    s = 0.0
    if k < nd:
        for j in range(nd):
            s += U[i, r, j] * Dinv[i, j, k]
    return s


@njit(**INLINE)
def joint_force_columns(U, R, p, i, nd):
    """U_i's columns, forces in node i's axes at its origin, in world axes at the reference point (from_node)."""
    for k in range(nd):
        f = from_node(R[i], p[i], U[i, :, k])
        for r in range(6):
            U[i, r, k] = f[r]


@njit(**INLINE)
def articulate(model, w, i, parent, nd):
    """Hand node i's articulated inertia and bias force to its parent (RBDA Table 7.1, second pass), all in node i's
    axes about its origin: Ia = IA - U D^-1 U^T replaces IA_i and pa = pA + Ia c + U D^-1 u replaces pA_i; both go
    to the parent's axes and origin (move_inertia, move_force)."""
    IA, pA, U, Dinv, u = w.IA, w.pA, w.U, w.Dinv, w.u
    for r in range(6):                                              # Ia, symmetric: from its upper triangle
        ud = (u_dinv(U, Dinv, i, r, 0, nd), u_dinv(U, Dinv, i, r, 1, nd), u_dinv(U, Dinv, i, r, 2, nd))
        for l in range(r, 6):
            for k in range(nd):
                IA[i, r, l] -= ud[k] * U[i, l, k]
            IA[i, l, r] = IA[i, r, l]
    h = matvec6(IA[i], w.cn[i])
    for r in range(6):
        pa = pA[i, r] + h[r]
        for k in range(nd):
            pa += u_dinv(U, Dinv, i, r, k, nd) * u[i, k]
        pA[i, r] = pa
    ptype, f = model.node_i[i, PTYPE], model.node_f[i]
    rotation = parent_rotation(ptype, f)
    move_force(ptype, f, rotation, w, i, parent)
    move_inertia(ptype, f, rotation, w, i, parent)


@njit(**INLINE)
def parent_rotation(ptype, f):
    """How node i's axes E_i = ROT_TREE RJ_i (R_parent^T R_i) sit in its parent's, for move_force and move_inertia:
    TURNED, any rotation (a tree rotation: R_parent^T R_i); with ROT_TREE = 1 (UNTURNED), ABOUT_AXIS (RJ_i about a
    coordinate axis, sparse), JOINT_ROTATION (RJ_i, R, H, S) or NOT_TURNED (P, T and weld)."""
    if f[UNTURNED] == 0.0:
        return TURNED
    if f[AXIS_K] > 0.0 and ptype != PRIM_P:
        return ABOUT_AXIS
    if ptype == PRIM_R or ptype == PRIM_H or ptype == PRIM_S:
        return JOINT_ROTATION
    return NOT_TURNED


@njit(**INLINE)
def parent_offset(ptype, f, R, p, i, parent):
    """Node i's origin from its parent's in the parent's axes: POS_TREE (R, S and weld move no origin) or
    R_parent^T (p_i - p_parent)."""
    if ptype == PRIM_R or ptype == PRIM_S or ptype == PRIM_WELD:
        return f[POS_TREE], f[POS_TREE + 1], f[POS_TREE + 2]
    return tmatvec3(R[parent], (p[i, 0] - p[parent, 0], p[i, 1] - p[parent, 1], p[i, 2] - p[parent, 2]))


@njit(**INLINE)
def rotate_about(k, E, x):
    """E x for E a rotation about the coordinate axis k and 3 numbers x (turn_blocks' turn on a vector), a 3-tuple."""
    if k == 0:
        y, z = turn(x[1], x[2], E[1, 1], E[2, 1])
        return x[0], y, z
    if k == 1:
        z, x0 = turn(x[2], x[0], E[2, 2], E[0, 2])
        return x0, x[1], z
    x0, y = turn(x[0], x[1], E[0, 0], E[1, 0])
    return x0, y, x[2]


@njit(**INLINE)
def force_to_parent_axes(f, rotation, R, RJ, i, parent, x):
    """The moment and force of x (node i's axes) in its parent's axes, E_i x[0:3] and E_i x[3:6] (parent_rotation)."""
    if rotation == TURNED:
        E = relative_rotation(R[parent], R[i])
        return rows_times(E, x[0:3]), rows_times(E, x[3:6])
    if rotation == ABOUT_AXIS:
        k = int(f[AXIS_K]) - 1
        return rotate_about(k, RJ[i], x[0:3]), rotate_about(k, RJ[i], x[3:6])
    if rotation == JOINT_ROTATION:
        E = rows3(RJ[i])
        return rows_times(E, x[0:3]), rows_times(E, x[3:6])
    return (x[0], x[1], x[2]), (x[3], x[4], x[5])


@njit(**INLINE)
def move_force(ptype, f, rotation, w, i, parent):
    """pA_parent += X^T pA_i (RBDA eq. 2.24): node i's force, in its axes about its origin, in the parent's axes
    (force_to_parent_axes) about the parent's origin, d = parent_offset away: n + d x f."""
    pA = w.pA
    n, g = force_to_parent_axes(f, rotation, w.R, w.RJ, i, parent, pA[i])
    dg = cross(parent_offset(ptype, f, w.R, w.p, i, parent), g)
    for r in range(3):
        pA[parent, r] += n[r] + dg[r]
        pA[parent, 3 + r] += g[r]


@njit(**INLINE)
def move_inertia(ptype, f, rotation, w, i, parent):
    """IA_parent += X^T IA_i X (RBDA eq. 2.66), IA_i overwritten: rotated by E_i (parent_rotation: R_parent^T R_i, RJ_i
    sparse about a coordinate axis, RJ_i, or none), then moved to the parent's origin (parent_offset)."""
    IA = w.IA
    if rotation == TURNED:
        rotate_inertia(IA[i], relative_rotation(w.R[parent], w.R[i]))
    elif rotation == ABOUT_AXIS:
        rotate_inertia_about(IA[i], int(f[AXIS_K]) - 1, w.RJ[i])
    elif rotation == JOINT_ROTATION:
        rotate_inertia(IA[i], rows3(w.RJ[i]))
    translate_inertia(IA[i], parent_offset(ptype, f, w.R, w.p, i, parent), IA[parent])


@njit(**PASS)
def articulated_node(model, w, tau, i, nd):
    """Node i's step of the second pass (RBDA Table 7.1): U, u and D^-1, and its articulated inertia and bias force
    to its parent (articulate); False if D is singular. aba_passes passes nd = 1 as a constant, so that the loops
    over the joint's coordinates unroll."""
    node_i, f, IA, U, Dinv = model.node_i, model.node_f[i], w.IA, w.U, w.Dinv
    parent, ptype, vi = node_i[i, PARENT], node_i[i, PTYPE], node_i[i, VI]
    for k in range(nd):                               # U = IA S (IA symmetric; S: node axes, origin), u = tau - S^T pA
        for r in range(6):
            U[i, r, k] = subspace_dot(ptype, f, k, IA[i, r])
        w.u[i, k] = tau[vi + k] - subspace_dot(ptype, f, k, w.pA[i])
    for k in range(nd):                               # D = S^T U, inverted in place
        for j in range(nd):
            Dinv[i, k, j] = subspace_dot(ptype, f, k, U[i, :, j])
    if nd > 0 and not invert_joint_inertia(Dinv[i], nd):
        return False
    if parent >= 0:
        articulate(model, w, i, parent, nd)
    joint_force_columns(U, w.R, w.p, i, nd)           # U in world axes at the reference point, for the third pass
    return True


@njit(**PASS)
def aba_passes(model, w, tau, qdd):
    """Articulated-body algorithm, RBDA Table 7.1 (Wood & Kennedy 2003, §2.2: the O(n) elimination of eq. 8),
    second and third passes in the workspace views w, after aba_first_pass; tau may share qdd's
    memory. Returns OK or the first singular node."""
    node_i, S, c, U, Dinv, u, acc = model.node_i, w.S, w.c, w.U, w.Dinv, w.u, w.acc
    for i in range(node_i.shape[0] - 1, -1, -1):
        nd = dof(node_i[i, PTYPE])
        if not (articulated_node(model, w, tau, i, 1) if nd == 1 else articulated_node(model, w, tau, i, nd)):
            return i
    for i in range(node_i.shape[0]):
        vi, nd = node_i[i, VI], dof(node_i[i, PTYPE])
        bias_acceleration(node_i, model.gravity, c, acc, i)
        joint_acceleration(U, Dinv, u, acc, qdd, i, vi, nd)
        add_joint_acceleration(S, qdd, acc, i, vi, nd)
    return OK


@njit(**PASS)
def aba_tables(model, u_force, ws, q, v, tau_in, qdd):
    """Forward dynamics qdd = FD(q, v, tau_in + force elements) on the model's tables with the force values
    u_force, in the workspace ws; returns OK or a singular node. What ``aba`` runs, inlined in the kernels
    that solve on its factorization (multipliers.py, projection.py) and in aba_packed."""
    w = carve(ws)
    tau = qdd                  # the generalized forces are gathered in qdd until the last pass replaces them
    for k in range(tau.shape[0]):
        tau[k] = tau_in[k]
    aba_first_pass(model, u_force, q, v, w, tau)
    return aba_passes(model, w, tau, qdd)


ABA_PACKED_SIGNATURE = ("int64(int64[:, ::1], float64[:, ::1], float64[:, :, ::1], "
                        "float64[::1], float64[::1], float64[::1], float64[::1])")


@njit(**dict(JIT, nogil=False))
def aba_packed(model_i, model_f, ws, q, v, tau, qdd):
    """aba on the stacked model tables (layout.py), the kernel of the public forward_dynamics: the
    accelerations for the generalized forces tau into qdd. Seven arrays to pass from Python instead of
    twelve, and the GIL kept (releasing it costs ~0.1 us). forward_dynamics compiles it for
    ABA_PACKED_SIGNATURE only. Returns OK, a singular node or WRONG_SIZE."""
    n = ws.shape[0] - 1
    node_i, force_i = model_i[:n], model_i[n:]
    node_f, force_f, last = model_f[:n], model_f[n:-1], model_f[-1]
    nq, nv = coordinate_counts(node_i)
    if q.shape[0] != nq or v.shape[0] != nv or tau.shape[0] != nv or qdd.shape[0] != nv:
        return WRONG_SIZE
    model = ModelArrays(node_i, node_f, force_i, force_f, last[GRAVITY:GRAVITY + 3], None, None, None, None, None,
                        None, None, nq)                   # the tables ABA reads; the rows and time functions: none
    return aba_tables(model, last[FORCE_VALUES:], ws, q, v, tau, qdd)


@njit(**JIT)
def aba(model, data, q, v, tau, qdd):
    """Forward dynamics of the tree (RBDA Table 7.1) at (q, v) with generalized forces tau and the
    force elements at the values data.u; returns OK or a singular node."""
    return aba_tables(model, data.u, data.ws, q, v, tau, qdd)


@njit(**PASS)
def body_forces(model, data, q, v, qdd, tau_elements):
    """Forward pass of the recursive Newton-Euler algorithm (Wood & Kennedy 2003, eqs. 4-6, RBDA Table 5.1):
    every node's acceleration w.acc (a_0 = -g) and the net force its body needs,
    f_i = I_i a_i + v_i x* I_i v_i - f_ext,i, into w.pA (w: the views of data.ws); the force elements'
    generalized forces at the values data.u are added to tau_elements."""
    node_i, w = model.node_i, carve(data.ws)
    first_pass(model, q, v, w)
    applied_forces(model.force_i, model.force_f, data.u, q, v, w.R, w.p, w.vel, w.pA, tau_elements)
    for i in range(node_i.shape[0]):
        bias_acceleration(node_i, model.gravity, w.c, w.acc, i)
        add_joint_acceleration(w.S, qdd, w.acc, i, node_i[i, VI], dof(node_i[i, PTYPE]))
        f = inertia_times(w.IA[i], w.R[i], w.p[i], w.acc[i])
        for r in range(6):
            w.pA[i, r] += f[r]


@njit(**PASS)
def transmitted_forces(node_i, f):
    """f_parent += f_i from the tips to the base (RBDA Table 5.1, backward pass): f_i becomes the
    wrench transmitted across node i's joint, from its parent to its subtree."""
    for i in range(node_i.shape[0] - 1, -1, -1):
        parent = node_i[i, PARENT]
        if parent >= 0:
            for r in range(6):
                f[parent, r] += f[i, r]


@njit(**JIT)
def rnea(model, data, q, v, qdd, tau_out):
    """Inverse dynamics by recursive Newton-Euler: the joint forces tau_out = S^T f that, with the
    force elements at the values data.u, produce qdd."""
    node_i, w = model.node_i, carve(data.ws)
    for k in range(tau_out.shape[0]):
        tau_out[k] = 0.0                     # first the force elements' generalized forces
    body_forces(model, data, q, v, qdd, tau_out)
    transmitted_forces(node_i, w.pA)
    for i in range(node_i.shape[0]):
        vi = node_i[i, VI]
        for k in range(dof(node_i[i, PTYPE])):
            s = 0.0
            for l in range(6):
                s += w.S[i, l, k] * w.pA[i, l]
            tau_out[vi + k] = s - tau_out[vi + k]


@njit(**JIT)
def crba(model, data, q, M):
    """Joint-space mass matrix by the composite-rigid-body algorithm (RBDA Table 6.2)."""
    node_i, node_f, w = model.node_i, model.node_f, carve(data.ws)
    S, Ic, F = w.S, w.IA, w.U
    reference_point(node_i, node_f, q, w.p)
    for i in range(node_i.shape[0]):
        node_pose(node_i, node_f, q, w.R, w.p, S, w.RF, w.RJ, i)
        node_inertia(node_f, w.R, w.p, Ic, i)
    M[:, :] = 0.0
    for i in range(node_i.shape[0] - 1, -1, -1):
        parent, vi, nd = node_i[i, PARENT], node_i[i, VI], dof(node_i[i, PTYPE])
        for k in range(nd):                              # F = Ic S
            for r in range(6):
                s = 0.0
                for l in range(6):
                    s += Ic[i, r, l] * S[i, l, k]
                F[i, r, k] = s
        j = i
        while j >= 0 and nd > 0:                         # M_ij = F^T S_j along the path to the root
            vj, ndj = node_i[j, VI], dof(node_i[j, PTYPE])
            for k in range(nd):
                for m in range(ndj):
                    s = 0.0
                    for l in range(6):
                        s += F[i, l, k] * S[j, l, m]
                    M[vi + k, vj + m] = s
                    M[vj + m, vi + k] = s
            j = node_i[j, PARENT]
        if parent >= 0:
            for r in range(6):
                for l in range(6):
                    Ic[parent, r, l] += Ic[i, r, l]


@njit(**JIT)
def kinematic_map(node_i, q, v, qdot):
    """qdot = H(q) v: identity for R, P, H, T; 1/2 q (x) (0, w) for quaternions."""
    for i in range(node_i.shape[0]):
        ptype, qi, vi = node_i[i, PTYPE], node_i[i, QI], node_i[i, VI]
        if ptype == PRIM_S:
            quat_rate(q[qi:qi + 4], v[vi:vi + 3], qdot[qi:qi + 4])
        else:
            for k in range(dof(ptype)):
                qdot[qi + k] = v[vi + k]


@njit(**JIT)
def normalize_quaternions(quat_q, y):
    for qi in quat_q:
        s = np.sqrt(y[qi] ** 2 + y[qi + 1] ** 2 + y[qi + 2] ** 2 + y[qi + 3] ** 2)
        for k in range(qi, qi + 4):
            y[k] /= s
