"""m.check(): the topology report of SPEC §3 (bodies, tree and cut joints, loops, DOF)."""
from dataclasses import dataclass, field


@dataclass
class CheckReport:
    dof: int
    tree_joints: list
    cut_joints: list = field(default_factory=list)
    loops: list = field(default_factory=list)
    n_constraints: int = 0
    redundant: list = field(default_factory=list)
    bodies: list = field(default_factory=list)
    nq: int = 0
    nv: int = 0

    def __str__(self):
        lines = [f"dof: {self.dof}",
                 f"bodies: {len(self.bodies)} ({', '.join(self.bodies)})",
                 f"tree joints: {len(self.tree_joints)} ({', '.join(self.tree_joints)})",
                 f"cut joints: {len(self.cut_joints)}{' (' + ', '.join(self.cut_joints) + ')' if self.cut_joints else ''}",
                 f"loops: {len(self.loops)}",
                 f"constraint equations: {self.n_constraints}",
                 f"redundant constraints: {len(self.redundant)}",
                 f"coordinates: {self.nq} positions, {self.nv} velocities"]
        return "\n".join(lines)


def check(model):
    """Compile the model (raising ModelError on any inconsistency) and report its topology."""
    cm = model.compile()
    return CheckReport(dof=cm.nv, tree_joints=list(cm.joint_order), bodies=list(cm.body_names), nq=cm.nq, nv=cm.nv)
