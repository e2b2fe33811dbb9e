"""Gear (SPEC §3): two one-coordinate joints coupled, q_a - q_a0 = ratio (q_b - q_b0)."""
from ...errors import ModelError
from .base import Constraint, finite, single_coordinate_joint


class Gear(Constraint):
    """q_a - ratio q_b = q_a0 - ratio q_b0 between the coordinates of ``joints`` = (joint_a, joint_b): one row."""
    kind = "gear"
    options = ("joints", "ratio")

    def _configure(self, model, opts):
        joints = opts.get("joints")
        if not isinstance(joints, (list, tuple)) or len(joints) != 2:
            raise ModelError(f"{self.what}: give joints=(joint_a, joint_b)")
        self.joints = tuple(single_coordinate_joint(model, j, self.what).name for j in joints)
        self.ratio = finite(opts.get("ratio", 1.0), f"{self.what} ratio")

    @property
    def joints_used(self):
        return self.joints

    def constraint_rows(self, rows):
        cm = rows.cm
        (na,), (nb,) = cm.joint_nodes[self.joints[0]], cm.joint_nodes[self.joints[1]]
        q0a, q0b = cm.model.joints[self.joints[0]].q0[0], cm.model.joints[self.joints[1]].q0[0]
        rows.coordinate_ratio(na, nb, self.owner(0), self.ratio, q0a - self.ratio * q0b)
