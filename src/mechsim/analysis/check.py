"""m.check(): the topology report of SPEC §3 (bodies, tree and cut joints, loops, DOF, redundancy)."""
from dataclasses import dataclass, field


@dataclass
class CheckReport:
    dof: int
    tree_joints: list
    cut_joints: list = field(default_factory=list)
    loops: list = field(default_factory=list)
    n_constraints: int = 0
    redundant: list = field(default_factory=list)
    drivers: list = field(default_factory=list)
    bodies: list = field(default_factory=list)
    nq: int = 0
    nv: int = 0

    def __str__(self):
        listed = lambda items: f"{len(items)}" + (f" ({', '.join(items)})" if items else "")
        lines = [f"dof: {self.dof}",
                 f"bodies: {listed(self.bodies)}",
                 f"tree joints: {listed(self.tree_joints)}",
                 f"cut joints: {listed(self.cut_joints)}",
                 f"loops: {len(self.loops)}"]
        lines += [f"  loop {k + 1}: {' -> '.join(loop)}" for k, loop in enumerate(self.loops)]
        lines += [f"drivers: {listed(self.drivers)}",
                  f"constraint equations: {self.n_constraints}",
                  f"redundant constraints: {listed(self.redundant)}",
                  f"coordinates: {self.nq} positions, {self.nv} velocities"]
        return "\n".join(lines)


def check(model):
    """Compile and assemble the model (raising ModelError on any inconsistency) and report its topology;
    dof is what remains free after the independent constraint equations and the drivers."""
    cm = model.compile()
    model.assemble()
    analysis = cm.analysis
    return CheckReport(dof=cm.nv if analysis is None else analysis.dof, tree_joints=list(cm.joint_order),
                       cut_joints=list(cm.topology.cut), loops=[list(loop) for loop in cm.topology.loops],
                       n_constraints=len(cm.every_row), redundant=[] if analysis is None else list(analysis.redundant),
                       drivers=list(model.drivers), bodies=list(cm.body_names), nq=cm.nq, nv=cm.nv)
