"""Point-to-point spring-damper (SPEC §2): a tension k (l - rest_length) + c l' along the line between
a point of one body and a point of another."""
import numpy as np

from ...errors import ModelError
from ...spatial.rotations import as_vector3
from .base import ForceElement, ForceRow


class SpringDamper(ForceElement):
    """Point-to-point spring-damper along the line between two body points; one row, a and b the bodies'
    nodes, params (k, c, rest_length, point a, point b) in node coordinates."""
    kind = "spring_damper"
    options = ("body_a", "point_a", "body_b", "point_b", "stiffness", "damping", "rest_length")

    def _configure(self, model, opts):
        what = self._what
        self.body_a = model.body(self._need(opts, "body_a"), what).name
        self.body_b = model.body(self._need(opts, "body_b"), what).name
        self.point_a = as_vector3(opts.get("point_a", (0, 0, 0)), f"{what} point_a")
        self.point_b = as_vector3(opts.get("point_b", (0, 0, 0)), f"{what} point_b")
        self.stiffness, self.damping = self._number(opts, "stiffness", 0.0), self._number(opts, "damping", 0.0)
        self.rest_length = self._number(opts, "rest_length", 0.0)
        if self.rest_length < 0:
            raise ModelError(f"{what}: rest_length must be >= 0")

    def force_rows(self, cm):
        na, pa = cm.body_point_in_node(self.body_a, self.point_a)
        nb, pb = cm.body_point_in_node(self.body_b, self.point_b)
        yield ForceRow(na, nb, (self.stiffness, self.damping, self.rest_length, *pa, *pb), ())

    @staticmethod
    def kernel(inline, point_state, apply_point_force, **tools):
        @inline
        def spring_damper(index, prm, u, q, v, R, p, vel, pA, tau):
            a, b = index[1], index[2]
            xa, va = point_state(R, p, vel, a, prm[3:6])
            xb, vb = point_state(R, p, vel, b, prm[6:9])
            d0, d1, d2 = xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]
            length = np.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
            if length > 1e-12:
                n = (d0 / length, d1 / length, d2 / length)                 # unit vector a -> b
                rate = n[0] * (vb[0] - va[0]) + n[1] * (vb[1] - va[1]) + n[2] * (vb[2] - va[2])
                tension = prm[0] * (length - prm[2]) + prm[1] * rate
                f = (tension * n[0], tension * n[1], tension * n[2])
                apply_point_force(pA, a, xa, f, 1.0)      # pulls a towards b, b towards a
                apply_point_force(pA, b, xb, f, -1.0)
        return spring_damper
