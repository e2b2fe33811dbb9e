"""A sphere (surface_shape="sphere"): centre ``origin``, ``surface_radius``; balls of a Newton's cradle
outside it, a ball in a bowl inside it (``inside=True``)."""
from .base import RoundSurface


class Sphere(RoundSurface):
    kind = "sphere"

    @staticmethod
    def kernel(inline, point_motion, add_scaled, round_surface, **tools):
        @inline
        def sphere(R, p, vel, acc0, na, nb, surface, shape):
            """d = x - o, the shape's centre x relative to the sphere's (round_surface)."""
            _, surface_radius, origin, direction = surface
            o, od, _ = point_motion(R, p, vel, acc0, na, origin)
            x, xd, _ = point_motion(R, p, vel, acc0, nb, shape[0])
            return round_surface(add_scaled(x, o, -1.0), add_scaled(xd, od, -1.0), x, xd, surface_radius, shape[2],
                                 direction)
        return sphere
