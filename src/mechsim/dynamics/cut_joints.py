"""The coordinates of cut joints (SPEC C2: every joint, cut or not, has its .q, .v, .a signals), measured from
the relative pose and motion of the joint's frames F (on the parent) and M (on the child), in the joint's own
convention (SPEC §2): what the same joint would read in the tree.

Every kind that can be cut moves M from F by translations along orthonormal axes of F (P, T), then by one
quaternion (S) or one to three revolutes (R, H) about axes carried by the ones before. With F's axes f_i, M's
m_i and the offset x = x_M - x_F in world, d_i = f_i . x and R_ij = f_i . m_j (M's rotation in F):
- a translation along u (in F) reads u . d, its rates the time derivatives of the components d_i;
- a quaternion is R's, its velocity the relative angular velocity in M's axes, its acceleration that
  vector's rate (the tree's spherical node has the same, in its own axes);
- revolutes R = Rot(a1, θ1) Rot(a2, θ2) Rot(a3, θ3): a gimbal's middle angle first, from
  a1 . R a3 = cos(θ2 - λ) (a3 = cos λ a1 + sin λ a1 x a2, a2 perpendicular to a1 and a3); then θ1, the turn
  about a1 from a_n carried by the later revolutes to R a_n (R a_n = Rot(a1, θ1) ... a_n); the last, the turn
  left about a_n once the others are undone. Rates: the relative angular velocity in F is ω = Σ θ̇_i n_i, n_i
  the axis a_i carried by the revolutes before it, so θ̇_i = r_i . ω over the reciprocal vectors r_i
  (r_i . n_j = δ_ij) and θ̈_i = r_i . (ω̇ - Σ_j<i θ̇_j θ̇_i n_j x n_i).
Angles are known up to whole turns, a gimbal's also up to its second solution (θ1 + π, 2λ - θ2, θ3 + π). Like a
tree joint's, a cut joint's angle is continuous in time: at the first sample it is the value nearest the
joint's q0, at every later one the value nearest the prediction from the sample before by the Hermite
(corrected trapezoidal) rule θ_k ≈ θ_k-1 + h (θ̇_k-1 + θ̇_k) / 2 + h² (θ̈_k-1 - θ̈_k) / 12 (error h⁵ θ⁽⁵⁾ / 720,
far below π wherever the samples resolve the motion). A screw's angle is the one nearest its slide / pitch, as
its closure row takes it (constraints.py), and a quaternion's sign the one nearest q0, then the sample before's.
At a gimbal's lock (a1 and R a3 parallel) only θ1 ± θ3 is defined: θ1 keeps the sample before's value (q0's
at the first), and the rates are not defined, as the tree gimbal's (its motion subspace loses a rank).
"""
import numpy as np
from numba import njit

from ..errors import ModelError
from ..modeling.joints import plane_axes
from ..modeling.primitives import PRIMITIVES
from ..spatial.algebra import INLINE, JIT, matvec3
from ..spatial.rotations import matrix_to_quat
from .layout import (CUT_EDGE, CUT_F_COLS, CUT_FA, CUT_I_COLS, CUT_LAMBDA, CUT_MB, CUT_NODE_A, CUT_NODE_B, CUT_PA,
                     CUT_PB, CUT_PITCH, CUT_Q, CUT_Q0, CUT_QUAT, CUT_RAXES, CUT_ROT, CUT_TAXES, CUT_TRANS, CUT_V)
from .motion import add_scaled, cross, direction_motion, dot, node_omega, point_motion

# sin of the angle between a gimbal's first axis a1 and R a3 below which it is at its lock
LOCK = 1e-8
ZERO = (0.0, 0.0, 0.0)


@njit(**INLINE)
def rotate(a, angle, x):
    """Rot(a, angle) x for a unit axis a (Rodrigues), as a 3-tuple."""
    c, s = np.cos(angle), np.sin(angle)
    return add_scaled(add_scaled((c * x[0], c * x[1], c * x[2]), cross(a, x), s), a, dot(a, x) * (1.0 - c))


@njit(**INLINE)
def angle_about(a, u, w):
    """The angle of the turn about the unit axis a that takes u's projection normal to a to w's."""
    return np.arctan2(dot(a, cross(u, w)), dot(u, w) - dot(a, u) * dot(a, w))


@njit(**INLINE)
def wrapped(angle):
    """angle + 2π k in [-π, π]."""
    return angle - 2.0 * np.pi * np.round(angle / (2.0 * np.pi))


@njit(**INLINE)
def along(e, x):
    """The component of a vector x along a direction e and its first two time derivatives, each given as
    (value, rate, second rate)."""
    return (dot(e[0], x[0]), dot(e[1], x[0]) + dot(e[0], x[1]),
            dot(e[2], x[0]) + 2.0 * dot(e[1], x[1]) + dot(e[0], x[2]))


@njit(**INLINE)
def revolute_angles(Rr, f, n, theta1_at_lock):
    """(θ1, θ2, θ3), 0 past n, of Rr = Rot(a1, θ1) ... Rot(a_n, θ_n) (the axes in f), each in [-π, π]; a gimbal's
    on the branch θ2 = λ + acos(a1 . Rr a3) (module docstring)."""
    a1, a2, an = f[CUT_RAXES:CUT_RAXES + 3], f[CUT_RAXES + 3:CUT_RAXES + 6], f[CUT_RAXES + 3 * n - 3:CUT_RAXES + 3 * n]
    theta1, theta2, unlocked = 0.0, 0.0, True
    carried = (a2[0], a2[1], a2[2])                  # a_n carried by the revolutes after the first
    if n == 3:
        x = matvec3(Rr, an)
        c = dot(a1, x)
        s = add_scaled(x, a1, -c)
        theta2 = f[CUT_LAMBDA] + np.arctan2(np.sqrt(dot(s, s)), c)
        carried = rotate(a2, theta2, an)
        unlocked = dot(s, s) > LOCK * LOCK
    if n > 1:
        theta1 = angle_about(a1, carried, matvec3(Rr, an)) if unlocked else theta1_at_lock
    e = f[CUT_EDGE:CUT_EDGE + 3]
    left = rotate(a2, -theta2, rotate(a1, -theta1, matvec3(Rr, e)))      # Rr e with the earlier turns undone
    last = angle_about(an, e, left)
    if n == 1:
        return last, 0.0, 0.0
    return (theta1, last, 0.0) if n == 2 else (theta1, theta2, last)


@njit(**INLINE)
def revolute_rates(f, n, theta, w, wd):
    """(θ̇, θ̈) as 3-tuples (0 past n) from the relative angular velocity w in F's axes and its rate wd (module
    docstring: the reciprocal vectors of the carried axes)."""
    a1, a2, a3 = f[CUT_RAXES:CUT_RAXES + 3], f[CUT_RAXES + 3:CUT_RAXES + 6], f[CUT_RAXES + 6:CUT_RAXES + 9]
    n1, n2 = (a1[0], a1[1], a1[2]), rotate(a1, theta[0], a2)
    n3 = rotate(a1, theta[0], rotate(a2, theta[1], a3))
    r1, r2, r3 = n1, ZERO, ZERO
    if n == 2:
        c = cross(n1, n2)
        r1, r2 = add_scaled(ZERO, cross(n2, c), 1.0 / dot(c, c)), add_scaled(ZERO, cross(c, n1), 1.0 / dot(c, c))
    elif n == 3:
        det = dot(n1, cross(n2, n3))
        r1, r2, r3 = (add_scaled(ZERO, cross(n2, n3), 1.0 / det), add_scaled(ZERO, cross(n3, n1), 1.0 / det),
                      add_scaled(ZERO, cross(n1, n2), 1.0 / det))
    rate = (dot(r1, w), dot(r2, w), dot(r3, w))
    b = add_scaled(add_scaled(add_scaled(wd, cross(n1, n2), -rate[0] * rate[1]), cross(n1, n3), -rate[0] * rate[2]),
                   cross(n2, n3), -rate[1] * rate[2])
    return rate, (dot(r1, b), dot(r2, b), dot(r3, b))


@njit(**INLINE)
def predicted(Q, V, A, t, k, qi, vi, q0, rate, accel):
    """The angle at sample k from sample k - 1 by the Hermite rule (module docstring), or that sample's angle where
    the rates are not finite (a gimbal at its lock); q0 at k = 0."""
    if k == 0:
        return q0
    h = t[k] - t[k - 1]
    guess = Q[k - 1, qi] + 0.5 * h * (V[k - 1, vi] + rate) + h * h * (A[k - 1, vi] - accel) / 12.0
    return guess if np.isfinite(guess) else Q[k - 1, qi]


@njit(**INLINE)
def write_revolutes(ci, f, k, t, Rr, rates, slide, out):
    """The revolutes' angles, rates and accelerations at sample k into out = (Q, V, A) (their branch and turns:
    module docstring), from M's rotation in F, Rr, and rates = (w, wd), the relative angular velocity in F's axes
    and its rate."""
    (w, wd), (Q, V, A) = rates, out
    n, qi, vi = ci[CUT_ROT], ci[CUT_Q] + ci[CUT_TRANS], ci[CUT_V] + ci[CUT_TRANS]
    q0 = f[CUT_Q0 + ci[CUT_TRANS]:CUT_Q0 + ci[CUT_TRANS] + 3]
    theta = revolute_angles(Rr, f, n, q0[0] if k == 0 else Q[k - 1, qi])
    rate, accel = revolute_rates(f, n, theta, w, wd)
    if n == 3:      # a gimbal: its other solution where that is distinct (off the lock) and nearer the prediction
        other = (theta[0] + np.pi, 2.0 * f[CUT_LAMBDA] - theta[1], theta[2] + np.pi)
        miss = abs(wrapped(theta[1] - predicted(Q, V, A, t, k, qi + 1, vi + 1, q0[1], rate[1], accel[1])))
        other_miss = abs(wrapped(other[1] - predicted(Q, V, A, t, k, qi + 1, vi + 1, q0[1], -rate[1], -accel[1])))
        if abs(wrapped(other[1] - theta[1])) > 2.0 * LOCK and other_miss < miss:
            theta, rate, accel = other, (rate[0], -rate[1], rate[2]), (accel[0], -accel[1], accel[2])
    for i in range(n):
        guess = predicted(Q, V, A, t, k, qi + i, vi + i, q0[i], rate[i], accel[i])
        if f[CUT_PITCH] != 0.0:      # a screw: the turns of its slide
            guess = slide / f[CUT_PITCH]
        Q[k, qi + i], V[k, vi + i], A[k, vi + i] = guess + wrapped(theta[i] - guess), rate[i], accel[i]


@njit(**INLINE)
def axes_motion(R, vel, acc, node, axes):
    """Three directions fixed in a node (``axes``, one after the other), each as (value, rate, second rate)."""
    return (direction_motion(R, vel, acc, node, axes[0:3]), direction_motion(R, vel, acc, node, axes[3:6]),
            direction_motion(R, vel, acc, node, axes[6:9]))


@njit(**INLINE)
def measure_cut_joint(ci, f, k, t, nodes, out, Rr):
    """Cut joint (ci, f)'s coordinates at sample k (nodes = (R, p, vel, acc): the nodes' at that sample, acc
    without the kernels' a_0 = -g) into out = (Q, V, A), and M's rotation in F into Rr."""
    (R, p, vel, acc), (Q, V, A) = nodes, out
    na, nb = ci[CUT_NODE_A], ci[CUT_NODE_B]
    F, M = axes_motion(R, vel, acc, na, f[CUT_FA:CUT_FA + 9]), axes_motion(R, vel, acc, nb, f[CUT_MB:CUT_MB + 9])
    xa = point_motion(R, p, vel, acc, na, f[CUT_PA:CUT_PA + 3])
    xb = point_motion(R, p, vel, acc, nb, f[CUT_PB:CUT_PB + 3])
    offset = (add_scaled(xb[0], xa[0], -1.0), add_scaled(xb[1], xa[1], -1.0), add_scaled(xb[2], xa[2], -1.0))
    (wa, aa), (wb, ab) = node_omega(vel, acc, na), node_omega(vel, acc, nb)
    omega = (add_scaled(wb, wa, -1.0), add_scaled(ab, aa, -1.0), ZERO)   # relative angular velocity, its rate
    d = (along(F[0], offset), along(F[1], offset), along(F[2], offset))   # the offset in F's axes, its rates
    for i in range(3):
        for j in range(3):
            Rr[i, j] = dot(F[i][0], M[j][0])
    for i in range(ci[CUT_TRANS]):
        u, qi, vi = f[CUT_TAXES + 3 * i:CUT_TAXES + 3 * i + 3], ci[CUT_Q] + i, ci[CUT_V] + i
        Q[k, qi] = u[0] * d[0][0] + u[1] * d[1][0] + u[2] * d[2][0]
        V[k, vi] = u[0] * d[0][1] + u[1] * d[1][1] + u[2] * d[2][1]
        A[k, vi] = u[0] * d[0][2] + u[1] * d[1][2] + u[2] * d[2][2]
    vi = ci[CUT_V] + ci[CUT_TRANS]
    if ci[CUT_QUAT]:                  # the quaternion itself is Rr's (CutJointCoordinates.motion)
        for i in range(3):
            V[k, vi + i], A[k, vi + i], _ = along(M[i], omega)
    elif ci[CUT_ROT]:
        w = (along(F[0], omega), along(F[1], omega), along(F[2], omega))
        a1 = f[CUT_RAXES:CUT_RAXES + 3]
        write_revolutes(ci, f, k, t, Rr, ((w[0][0], w[1][0], w[2][0]), (w[0][1], w[1][1], w[2][1])),
                        a1[0] * d[0][0] + a1[1] * d[1][0] + a1[2] * d[2][0], out)


@njit(**JIT)
def cut_joint_motion(cut_i, cut_f, t, nodes, out, REL):
    """The cut joints' coordinates, velocities and accelerations out = (Q, V, A) at the samples t of a Result
    (nodes = (R, p, vel, acc): the nodes' poses, spatial velocities and accelerations at every sample, as
    Result._node_dynamics has them but acc without the kernels' a_0 = -g), and M's rotation in F into REL
    (samples, cut joints, 3, 3)."""
    R, p, vel, acc = nodes
    for k in range(t.shape[0]):
        for j in range(cut_i.shape[0]):
            measure_cut_joint(cut_i[j], cut_f[j], k, t, (R[k], p[k], vel[k], acc[k]), out, REL[k, j])


class CutJointCoordinates:
    """The coordinates of a compiled model's cut joints that have degrees of freedom: ``q``, ``v`` ({joint: slice})
    into the arrays ``motion`` returns, and the tables cut_i, cut_f (layout.py) of cut_joint_motion."""

    def __init__(self, cm):
        self.q, self.v, rows_i, rows_f, self.quaternions = {}, {}, [], [], []
        nq = nv = 0
        for name in cm.topology.cut:
            joint = cm.model.joints[name]
            if joint.nv:
                row_i, row_f = self._rows(cm, joint)
                row_i[CUT_Q], row_i[CUT_V] = nq, nv
                if row_i[CUT_QUAT]:
                    self.quaternions.append((len(rows_i), nq + row_i[CUT_TRANS], joint.q0[row_i[CUT_TRANS]:]))
                rows_i.append(row_i)
                rows_f.append(row_f)
                self.q[name], self.v[name] = slice(nq, nq + joint.nq), slice(nv, nv + joint.nv)
                nq, nv = nq + joint.nq, nv + joint.nv
        self.nq, self.nv = nq, nv
        self.cut_i = np.array(rows_i, dtype=np.int64).reshape(-1, CUT_I_COLS)
        self.cut_f = np.array(rows_f, dtype=float).reshape(-1, CUT_F_COLS)

    @staticmethod
    def _rows(cm, joint):
        """(cut_i row, cut_f row) of a cut joint; ModelError if its primitives are not of the shape the module
        docstring measures."""
        kinds = [PRIMITIVES[ptype] for ptype, _, _ in joint.primitives]
        n_trans = next((k for k, kind in enumerate(kinds) if not kind.slides), len(kinds))
        T = np.array([e for kind, (_, axis, _) in zip(kinds, joint.primitives[:n_trans])
                      for e in kind.slide_axes(axis)]).reshape(-1, 3)
        turns = kinds[n_trans:]
        axes = np.array([axis for kind, (_, axis, _) in zip(turns, joint.primitives[n_trans:])
                         if kind.axial]).reshape(-1, 3)                                  # the revolutes'
        quaternion = len(turns) == 1 and turns[0].quaternion
        if not (quaternion or (len(turns) <= 3 and all(kind.turns and kind.axial for kind in turns))) \
                or not np.allclose(T @ T.T, np.eye(len(T)), rtol=0, atol=1e-12) \
                or (len(turns) == 3 and max(abs(axes[1] @ axes[0]), abs(axes[1] @ axes[2])) > 1e-12):
            raise ModelError(f"joint '{joint.name}' ({joint.kind}) is cut, and mechsim measures a cut joint's "
                             "coordinates only for translations along orthogonal axes followed by one spherical "
                             "primitive or up to three revolutes (the middle of three perpendicular to the others); "
                             "mark another joint of its loop cut=True")
        row_i, row_f = np.zeros(CUT_I_COLS, dtype=np.int64), np.zeros(CUT_F_COLS)
        (p_f, R_f), (p_m, R_m) = joint.parent_pose, joint.child_pose
        row_i[CUT_NODE_A], row_f[CUT_PA:CUT_PA + 3] = cm.body_point_in_node(joint.parent, p_f)
        row_i[CUT_NODE_B], row_f[CUT_PB:CUT_PB + 3] = cm.body_point_in_node(joint.child, p_m)
        row_f[CUT_FA:CUT_FA + 9] = cm.body_direction_in_node(joint.parent, R_f).T.ravel()   # F's axes, one by one
        row_f[CUT_MB:CUT_MB + 9] = cm.body_direction_in_node(joint.child, R_m).T.ravel()
        row_i[CUT_TRANS], row_i[CUT_ROT], row_i[CUT_QUAT] = len(T), len(axes), quaternion
        row_f[CUT_TAXES:CUT_TAXES + T.size], row_f[CUT_RAXES:CUT_RAXES + axes.size] = T.ravel(), axes.ravel()
        row_f[CUT_Q0:CUT_Q0 + joint.nq] = joint.q0
        if len(axes):
            row_f[CUT_EDGE:CUT_EDGE + 3] = plane_axes(axes[-1])[0]
            row_f[CUT_PITCH] = joint.primitives[-1][2] if len(axes) == 1 else 0.0
        if len(axes) == 3:
            row_f[CUT_LAMBDA] = np.arctan2(axes[2] @ np.cross(axes[0], axes[1]), axes[2] @ axes[0])
        return row_i, row_f

    def motion(self, t, R, p, vel, acc, gravity):
        """(Q, V, A): the coordinates, velocities and accelerations of the cut joints at the samples t, from the nodes'
        R, p, vel, acc there (Result._node_dynamics: acc with the kernels' a_0 = -g)."""
        acc = acc.copy()
        acc[..., 3:] += gravity                     # the nodes' true accelerations: the ground's is 0
        arguments = self.arguments(t, R, p, vel, acc)
        cut_joint_motion(*arguments)
        (Q, V, A), REL = arguments[-2:]
        for row, qi, q0 in self.quaternions:
            Q[:, qi:qi + 4] = continuous_sign(matrix_to_quat(REL[:, row]), q0)
        return Q, V, A

    def arguments(self, t, R, p, vel, acc):
        """The arguments of cut_joint_motion at the samples t (nodes' R, p, vel and true accelerations acc), with
        the arrays it writes."""
        N = len(t)
        out = np.zeros((N, self.nq)), np.zeros((N, self.nv)), np.zeros((N, self.nv))
        return self.cut_i, self.cut_f, np.asarray(t, dtype=float), (R, p, vel, acc), out, \
            np.zeros((N, len(self.cut_i), 3, 3))


def continuous_sign(quat, q0):
    """Unit quaternions (N, 4) with their signs chosen so that each is nearest the one before, the first nearest
    q0: both signs give the rotation, a tree spherical joint's integrates continuously."""
    steps = np.einsum("ni,ni->n", quat[1:], quat[:-1])
    sign = np.cumprod(np.concatenate([[-1.0 if quat[0] @ q0 < 0 else 1.0], np.where(steps < 0, -1.0, 1.0)]))
    return quat * sign[:, None]
