"""The force elements in the kernels: the point helpers their cases use, the dispatch over the kinds'
cases, and the evaluation of one element's rows along a Result.

FORCE_TABLE is the order of the kinds in the compiled force table: a row's code (force_i[e, 0]) is its kind's
place there, the force element kinds of the registry (modeling/forces/__init__.py FORCE_KINDS) and the compliant
contact. Each kind brings its case (ForceElement.kernel), given KERNEL_TOOLS; ``applied_forces`` calls
the case of every row's code through a binary search over the codes built from FORCE_TABLE, inlined in numba's IR,
in a loop over the rows compiled once (cached with the kernels: _jit_cache.py keys the cache on these sources).
"""
import numpy as np
from numba import config, njit
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic

from ..modeling.contacts import (K_AXIS, K_CENTRE, K_DAMP, K_EXP, K_KIND, K_MU, K_NORMAL, K_ORIGIN, K_RADIUS, K_SLIP,
                                 K_SRADIUS, K_STIFF, K_SURFACE, Contact)
from ..modeling.forces import FORCE_KINDS
from ..spatial.algebra import INLINE, JIT, PASS, transform_point
from .motion import add_scaled, contact_geometry, direction_motion, dot, ground_point, node_omega

FORCE_TABLE = (*FORCE_KINDS, Contact)
FORCE_CODE = {kind: code for code, kind in enumerate(FORCE_TABLE)}


@njit(**INLINE)
def point_state(R, p, vel, node, point_local):
    """World position x and velocity xdot (3-tuples) of a point fixed in a node (ground for node < 0)."""
    if node < 0:
        return ground_point(p, point_local), (0.0, 0.0, 0.0)
    x = transform_point(R[node], p[node], point_local)
    w0, w1, w2, v0, v1, v2 = vel[node, 0], vel[node, 1], vel[node, 2], vel[node, 3], vel[node, 4], vel[node, 5]
    return x, (w1 * x[2] - w2 * x[1] + v0, w2 * x[0] - w0 * x[2] + v1, w0 * x[1] - w1 * x[0] + v2)


@njit(**INLINE)
def apply_point_force(pA, node, x, force, sign):
    """A force sign * force at point x on a node: its wrench f at the reference point leaves the
    node's bias force, pA -= f (RBDA Table 7.1: pA = v x* I v - f^x)."""
    if node < 0:
        return
    pA[node, 0] -= sign * (x[1] * force[2] - x[2] * force[1])
    pA[node, 1] -= sign * (x[2] * force[0] - x[0] * force[2])
    pA[node, 2] -= sign * (x[0] * force[1] - x[1] * force[0])
    for k in range(3):
        pA[node, 3 + k] -= sign * force[k]


@njit(**INLINE)
def compliant_contact(prm, na, nb, R, p, vel):
    """A compliant contact point (modeling/contacts.py Contact.force_rows; layout.py K_*): the force on the body at the contact point c,
    c, the gap, the slip velocity (world) and the surface's normal. Normal: Hunt & Crossley (1975) as in
    Marhefka & Orin (1999), f_n = k d^e + c d^e d' on the penetration d = -gap, never pulling; friction: Coulomb's
    -mu f_n s / sqrt(|s|^2 + v_s^2) on the slip s relative to the surface material, smooth across s = 0."""
    gap, c, _, n, _ = contact_geometry(R, p, vel, vel, na, nb, (int(prm[K_KIND]), prm[K_SRADIUS],
                                       prm[K_ORIGIN:K_ORIGIN + 3], prm[K_NORMAL:K_NORMAL + 3]),
                                       (prm[K_CENTRE:K_CENTRE + 3], prm[K_AXIS:K_AXIS + 3], prm[K_RADIUS]))
    u, _, _ = direction_motion(R, vel, vel, na, prm[K_SURFACE:K_SURFACE + 3])
    rel = add_scaled(add_scaled(material_velocity(vel, nb, c), material_velocity(vel, na, c), -1.0), u, -1.0)
    rate = dot(n, rel)
    slip = add_scaled(rel, n, -rate)
    if gap >= 0.0:
        return (0.0, 0.0, 0.0), c, gap, slip, n
    depth = (-gap) ** prm[K_EXP]
    normal = max(0.0, prm[K_STIFF] * depth - prm[K_DAMP] * depth * rate)
    friction = -prm[K_MU] * normal / np.sqrt(dot(slip, slip) + prm[K_SLIP] ** 2)
    return add_scaled((normal * n[0], normal * n[1], normal * n[2]), slip, friction), c, gap, slip, n


@njit(**INLINE)
def material_velocity(vel, node, x):
    """Velocity of the node's material point at point x: v_O + w x x (ground: 0)."""
    if node < 0:
        return (0.0, 0.0, 0.0)
    return (vel[node, 3] + vel[node, 1] * x[2] - vel[node, 2] * x[1],
            vel[node, 4] + vel[node, 2] * x[0] - vel[node, 0] * x[2],
            vel[node, 5] + vel[node, 0] * x[1] - vel[node, 1] * x[0])


@njit(**INLINE)
def node_direction(R, node, c):
    """A direction given in a node's coordinates, in world axes (ground: c itself)."""
    if node < 0:
        return c
    return (R[node, 0, 0] * c[0] + R[node, 0, 1] * c[1] + R[node, 0, 2] * c[2],
            R[node, 1, 0] * c[0] + R[node, 1, 1] * c[1] + R[node, 1, 2] * c[2],
            R[node, 2, 0] * c[0] + R[node, 2, 1] * c[1] + R[node, 2, 2] * c[2])


@njit(**INLINE)
def frame_axes(R, node, local):
    """The world axes (three 3-tuples) of a frame fixed in a node, its rotation in node coordinates given
    row by row in local[0:9]."""
    return (node_direction(R, node, (local[0], local[3], local[6])),
            node_direction(R, node, (local[1], local[4], local[7])),
            node_direction(R, node, (local[2], local[5], local[8])))


@njit(**INLINE)
def along(axes, c):
    """The vector of components c along the three axes: c0 axes[0] + c1 axes[1] + c2 axes[2]."""
    return add_scaled(add_scaled(add_scaled((0.0, 0.0, 0.0), axes[0], c[0]), axes[1], c[1]), axes[2], c[2])


@njit(**INLINE)
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


KERNEL_TOOLS = dict(inline=njit(**PASS), point_state=point_state, apply_point_force=apply_point_force,
                    material_velocity=material_velocity, compliant_contact=compliant_contact, node_omega=node_omega,
                    frame_axes=frame_axes, along=along, dot=dot, sub=sub)


def dispatch(cases, code=0):
    """case_of(index, ...): calls cases[index[0] - code](index, ...), by a binary search over the codes inlined in
    numba's IR (nested log2(n) deep, not n: inlining types a function with everything it inlines)."""
    if len(cases) == 1:
        return cases[0]
    half = len(cases) // 2
    low, high, split = dispatch(cases[:half], code), dispatch(cases[half:], code + half), code + half

    @njit(**PASS)
    def case_of(index, prm, u, q, v, R, p, vel, pA, tau):
        if index[0] < split:
            low(index, prm, u, q, v, R, p, vel, pA, tau)
        else:
            high(index, prm, u, q, v, R, p, vel, pA, tau)
    return case_of


force_case = dispatch(tuple(kind.kernel(**KERNEL_TOOLS) for kind in FORCE_TABLE))


@intrinsic
def typed_read_only(typingctx, array):
    """The same array, typed read-only (no copy: the data model is the array's)."""
    def codegen(context, builder, signature, args):
        return impl_ret_borrowed(context, builder, signature.return_type, args[0])
    return array.copy(readonly=True)(array), codegen


# with NUMBA_DISABLE_JIT, Python runs the kernels (benchmarks/opcount.py, debugging): the array as it is
read_only = (lambda array: array) if config.DISABLE_JIT else typed_read_only


@njit(**INLINE)
def each_force(force_i, force_f, u, q, v, R, p, vel, pA, tau):
    for e in range(force_i.shape[0]):
        force_case(force_i[e], force_f[e], u, q, v, R, p, vel, pA, tau)


@njit(**PASS)
def applied_forces(force_i, force_f, u, q, v, R, p, vel, pA, tau):
    """Force elements, after first_pass: wrenches on nodes (taken off their bias forces pA) and
    generalized forces (added to tau), each row by its kind's case. The rows' loop is compiled once and
    inlined by LLVM (in numba's IR, the kinds' dispatch would be compiled again in every pass), for read-only
    tables and force values: the runs' model tables (read-only) and forward_dynamics' packed ones (writable: each
    thread writes its force values there) give it one signature."""
    each_force(read_only(force_i), read_only(force_f), read_only(u), q, v, R, p, vel, pA, tau)


@njit(**JIT)
def row_effects(index, prm, U, Q, V, R, P, VEL, pA, tau):
    """One force-table row at every sample k of a trajectory (U, Q, V and the nodes' R, P, VEL per sample):
    its node wrenches into pA[k] and generalized forces into tau[k] (zeroed by the caller)."""
    for k in range(Q.shape[0]):
        force_case(index, prm, U[k], Q[k], V[k], R[k], P[k], VEL[k], pA[k], tau[k])
