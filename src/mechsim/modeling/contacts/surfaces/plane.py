"""A plane (surface_shape="plane", the default): through ``origin`` with unit ``normal``, pointing out of the
surface towards the body; its tangents (t1, t2) follow from the normal (t1 x t2 = normal). Its material may
move along it: ``surface_velocity`` (a conveyor belt), taken by Contact."""
from .base import Surface


class Plane(Surface):
    kind, options = "plane", ("normal", "surface_velocity")

    def frame(self):
        return 0.0, self.normal, self.tangents[1]        # e = t2: e x n = t1

    @staticmethod
    def kernel(inline, contact_point, point_motion, dot, add_scaled, **tools):
        @inline
        def plane(R, p, vel, acc0, na, nb, surface, shape):
            """gap = n . (c - o), c the shape's point nearest the plane (contact_point)."""
            _, _, origin, normal = surface
            c, cd, n, nd = contact_point(R, p, vel, acc0, na, nb, normal, shape)
            o, _, _ = point_motion(R, p, vel, acc0, na, origin)
            return dot(n, add_scaled(c, o, -1.0)), c, cd, n, nd
        return plane
