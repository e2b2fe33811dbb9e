"""Joint spring-damper (SPEC §2): tau = -k (q - rest) - c v on every coordinate of a joint."""
from ...errors import ModelError
from .base import ForceElement, ForceRow, per_coordinate


class JointSpringDamper(ForceElement):
    """tau = -k (q - rest) - c v per coordinate of a joint; one row per coordinate, a = its v index,
    b = its q index, params (k, c, rest)."""
    kind = "joint_spring_damper"
    options = ("joint", "stiffness", "damping", "rest")

    def _configure(self, model, opts):
        joint, what = self._joint_with_dof(model, opts), self._what
        self.stiffness = per_coordinate(opts.get("stiffness", 0.0), joint.nv, what, "stiffness")
        self.damping = per_coordinate(opts.get("damping", 0.0), joint.nv, what, "damping")
        self.rest = per_coordinate(opts.get("rest", 0.0), joint.nv, what, "rest")
        if joint.nq != joint.nv:
            raise ModelError(f"{what}: joint '{joint.name}' ({joint.kind}) has quaternion coordinates; "
                             "use a bushing or gimbal joint for a rotational spring")

    def force_rows(self, cm):
        vs, qs = cm.joint_v[self.joint], cm.joint_q[self.joint]
        for k in range(vs.stop - vs.start):
            yield ForceRow(vs.start + k, qs.start + k, (self.stiffness[k], self.damping[k], self.rest[k]), ())

    @staticmethod
    def kernel(inline, **tools):
        @inline
        def joint_spring_damper(index, prm, u, q, v, R, p, vel, pA, tau):
            tau[index[1]] += -prm[0] * (q[index[2]] - prm[2]) - prm[1] * v[index[1]]
        return joint_spring_damper
