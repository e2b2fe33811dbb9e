"""Motion of points and directions fixed in tree nodes, and of the point where a contact's shape
touches a surface, from the node poses R, p (p relative to the kernels' reference point, its last row
the ground's), spatial velocities vel and velocity-product accelerations acc0 (at that point:
constraints.py, kernels.py). Small steps, inlined by LLVM wherever they are used."""
import numpy as np
from numba import njit

from ..spatial.algebra import INLINE, PASS
from ..modeling.contacts import SURFACE_KINDS


@njit(**INLINE)
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(**INLINE)
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(**INLINE)
def add_scaled(a, b, s):
    """a + s b"""
    return (a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2])


@njit(**INLINE)
def ground_point(p, local):
    """A point fixed in the ground (world coordinates) relative to the kernels' reference point: the
    last row of p, the ground's, is the world origin's position relative to it (kernels.py
    reference_point)."""
    o = p[p.shape[0] - 1]
    return (local[0] + o[0], local[1] + o[1], local[2] + o[2])


@njit(**INLINE)
def node_omega(vel, acc0, node):
    """A node's angular velocity and velocity-product angular acceleration (ground: 0)."""
    if node < 0:
        return (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    return (vel[node, 0], vel[node, 1], vel[node, 2]), (acc0[node, 0], acc0[node, 1], acc0[node, 2])


@njit(**INLINE)
def point_motion(R, p, vel, acc0, node, local):
    """Position, velocity and velocity-product acceleration of a point fixed in a node (ground if
    node < 0), world axes, the position relative to the reference point: x = R l + p, xd = v + w x x,
    xdd = a0 + alpha0 x x + w x xd (spatial -> classical)."""
    if node < 0:
        return ground_point(p, local), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    x = (R[node, 0, 0] * local[0] + R[node, 0, 1] * local[1] + R[node, 0, 2] * local[2] + p[node, 0],
         R[node, 1, 0] * local[0] + R[node, 1, 1] * local[1] + R[node, 1, 2] * local[2] + p[node, 1],
         R[node, 2, 0] * local[0] + R[node, 2, 1] * local[1] + R[node, 2, 2] * local[2] + p[node, 2])
    w, a = vel[node, 0:3], acc0[node, 0:3]
    xd = add_scaled(vel[node, 3:6], cross(w, x), 1.0)
    xdd = add_scaled(add_scaled(acc0[node, 3:6], cross(a, x), 1.0), cross(w, xd), 1.0)
    return x, xd, xdd


@njit(**INLINE)
def direction_motion(R, vel, acc0, node, local):
    """World direction d = R l fixed in a node, its rate w x d and its velocity-product acceleration."""
    if node < 0:
        return (local[0], local[1], local[2]), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    d = (R[node, 0, 0] * local[0] + R[node, 0, 1] * local[1] + R[node, 0, 2] * local[2],
         R[node, 1, 0] * local[0] + R[node, 1, 1] * local[1] + R[node, 1, 2] * local[2],
         R[node, 2, 0] * local[0] + R[node, 2, 1] * local[1] + R[node, 2, 2] * local[2])
    w = vel[node, 0:3]
    dd = cross(w, d)
    return d, dd, add_scaled(cross(acc0[node, 0:3], d), cross(w, dd), 1.0)


@njit(**INLINE)
def node_entry(X, node, j):
    return X[node, j] if node >= 0 else 0.0


@njit(**INLINE)
def contact_point(R, p, vel, acc0, na, nb, normal, shape):
    """The point c of a contact's shape on b nearest the plane on a, its velocity as a geometric point,
    and the plane's normal n with its rate (layout.py: contacts). A sphere or point: c = x - r n. A disk
    of axis s: c = x - r u, u = m / |m| with m = n - (n . s) s the normal's part in the disk's plane; a
    disk lying flat (m = 0) touches with its centre. normal fixed in node na; shape = (centre, axis, radius),
    centre and axis fixed in nb (axis (0, 0, 0) for a sphere); in node coordinates. acc0 may be any (n, 6)
    array when only positions and velocities are wanted."""
    centre, axis, radius = shape
    n, nd, _ = direction_motion(R, vel, acc0, na, normal)
    x, xd, _ = point_motion(R, p, vel, acc0, nb, centre)
    s, sd, _ = direction_motion(R, vel, acc0, nb, axis)
    ns = dot(n, s)
    m = add_scaled(n, s, -ns)
    size = np.sqrt(dot(m, m))
    if size == 0.0:
        return x, xd, n, nd
    md = add_scaled(add_scaled(nd, s, -(dot(nd, s) + dot(n, sd))), sd, -ns)
    u = (m[0] / size, m[1] / size, m[2] / size)
    ud = add_scaled(md, u, -dot(u, md))
    r = radius / size
    return add_scaled(x, u, -radius), (xd[0] - r * ud[0], xd[1] - r * ud[1], xd[2] - r * ud[2]), n, nd


@njit(**INLINE)
def round_surface(d, dd, x, xd, surface_radius, radius, direction):
    """(gap, c, cd, n, nd) of a shape of centre x (rate xd) and radius ``radius`` on a round surface, d (rate
    dd) the centre's offset from the surface's centre or axis (direction: the axis, or the sphere's
    surface_axis): n = +-d / |d| (+ with the shape outside, surface_radius > 0; - inside), gap = +-(|d| -
    |surface_radius|) - radius, c = x - radius n, ndot = +-(ddot - u (u . ddot)) / |d| with u = d / |d|."""
    size = np.sqrt(dot(d, d))
    sign = 1.0 if surface_radius > 0.0 else -1.0
    gap = sign * (size - abs(surface_radius)) - radius
    if size == 0.0:                           # the shape's centre on the centre or axis: far from touching
        return gap, x, xd, perpendicular(direction, (0.0, 0.0, 0.0))[0], (0.0, 0.0, 0.0)
    u = (d[0] / size, d[1] / size, d[2] / size)
    ud = add_scaled(dd, u, -dot(u, dd))
    n, nd = (sign * u[0], sign * u[1], sign * u[2]), (sign * ud[0] / size, sign * ud[1] / size, sign * ud[2] / size)
    return gap, add_scaled(x, n, -radius), add_scaled(xd, nd, -radius), n, nd


@njit(**INLINE)
def perpendicular(e, ed):
    """A unit vector normal to e, u = e x k / |e x k| with k the world axis least aligned with e, and its
    rate for e's rate ed."""
    k = (1.0, 0.0, 0.0) if abs(e[0]) < 0.6 else (0.0, 1.0, 0.0)
    u, ud = cross(e, k), cross(ed, k)
    size = np.sqrt(dot(u, u))
    u = (u[0] / size, u[1] / size, u[2] / size)
    ud = add_scaled(ud, u, -dot(u, ud))
    return u, (ud[0] / size, ud[1] / size, ud[2] / size)


@njit(**INLINE)
def surface_tangent(n, nd, e, ed, second):
    """The surface's tangent t1 = e x n / |e x n| (e fixed in the surface: layout.py contacts) or, if
    ``second``, t2 = n x t1, with its rate. Where e lies along n (a sphere's poles), e is replaced by a
    fixed perpendicular of it."""
    u = cross(e, n)
    size = np.sqrt(dot(u, u))
    if size < 1e-6:
        e, ed = perpendicular(e, ed)
        u = cross(e, n)
        size = np.sqrt(dot(u, u))
    ud = add_scaled(cross(ed, n), cross(e, nd), 1.0)
    t = (u[0] / size, u[1] / size, u[2] / size)
    td = add_scaled(ud, t, -dot(t, ud))
    td = (td[0] / size, td[1] / size, td[2] / size)
    if not second:
        return t, td
    return cross(n, t), add_scaled(cross(nd, t), cross(n, td), 1.0)


def geometry_dispatch(cases, code=0):
    """contact_geometry over the surface kinds' cases (modeling/contacts/surfaces/base.py): the case of the
    surface's code (surface[0]) by comparisons inlined in numba's IR, the last case without one."""
    case = cases[0]
    if len(cases) == 1:
        return case
    others = geometry_dispatch(cases[1:], code + 1)

    @njit(**PASS)
    def geometry_of(R, p, vel, acc0, na, nb, surface, shape):
        if surface[0] == code:
            return case(R, p, vel, acc0, na, nb, surface, shape)
        return others(R, p, vel, acc0, na, nb, surface, shape)
    return geometry_of


SURFACE_TOOLS = dict(contact_point=contact_point, point_motion=point_motion, direction_motion=direction_motion,
                     dot=dot, add_scaled=add_scaled, round_surface=round_surface)
contact_geometry = geometry_dispatch(tuple(kind.kernel(njit(**PASS), **SURFACE_TOOLS) for kind in SURFACE_KINDS))
contact_geometry.__doc__ = """(gap, c, cd, n, nd) of a contact (layout.py: contacts) for surface = (code, signed
radius, origin, direction) fixed in node na and shape = (centre, axis, radius) fixed in nb: the case of the
surface's kind (modeling/contacts/surfaces/base.py)."""
