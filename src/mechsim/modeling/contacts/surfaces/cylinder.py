"""A cylinder (surface_shape="cylinder"): axis ``surface_axis`` through ``origin``, ``surface_radius``; a disk's
fence inside it (``inside=True``), a roller outside. The tangents go around the axis (t1) and along it (t2)."""
from .base import RoundSurface


class Cylinder(RoundSurface):
    kind = "cylinder"

    @staticmethod
    def kernel(inline, point_motion, direction_motion, dot, add_scaled, round_surface, **tools):
        @inline
        def cylinder(R, p, vel, acc0, na, nb, surface, shape):
            """d = (x - o) - ((x - o) . s) s, the shape's centre x relative to the axis s through o, and its
            rate (round_surface)."""
            _, surface_radius, origin, axis = surface
            o, od, _ = point_motion(R, p, vel, acc0, na, origin)
            x, xd, _ = point_motion(R, p, vel, acc0, nb, shape[0])
            s, sd, _ = direction_motion(R, vel, acc0, na, axis)
            d, dd = add_scaled(x, o, -1.0), add_scaled(xd, od, -1.0)
            ds = dot(d, s)
            dd = add_scaled(add_scaled(dd, s, -(dot(dd, s) + dot(d, sd))), sd, -ds)
            return round_surface(add_scaled(d, s, -ds), dd, x, xd, surface_radius, shape[2], axis)
        return cylinder
