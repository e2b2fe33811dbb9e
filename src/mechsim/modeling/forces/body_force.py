"""Body force (SPEC §2): a force and a torque in world axes at a point of a body, each component a
number, a function or expression of t, or a model input."""
from ...spatial.rotations import as_vector3
from .base import ForceElement, ForceRow, vector_sources


class BodyForce(ForceElement):
    """Force and torque (world axes) at a body point (body coordinates); one row, a = the body's node,
    params = the point in node coordinates, the torque then the force in six slots of u."""
    kind = "body_force"
    options = ("body", "point", "force", "torque")

    def _configure(self, model, opts):
        what = self._what
        self.body = model.body(self._need(opts, "body"), what).name
        self.point = as_vector3(opts.get("point", (0, 0, 0)), f"{what} point")
        self.force = vector_sources(opts.get("force", (0, 0, 0)), f"{what} force", inputs=model.inputs)
        self.torque = vector_sources(opts.get("torque", (0, 0, 0)), f"{what} torque", inputs=model.inputs)

    def force_rows(self, cm):
        node, point = cm.body_point_in_node(self.body, self.point)
        yield ForceRow(node, -1, point, (*self.torque, *self.force))

    @staticmethod
    def kernel(inline, point_state, apply_point_force, **tools):
        @inline
        def body_force(index, prm, u, q, v, R, p, vel, pA, tau):
            x, _ = point_state(R, p, vel, index[1], prm[0:3])
            node, slot = index[1], index[3]
            apply_point_force(pA, node, x, u[slot + 3:slot + 6], 1.0)
            if node >= 0:
                for k in range(3):
                    pA[node, k] -= u[slot + k]
        return body_force
