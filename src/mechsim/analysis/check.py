"""m.check(): the topology report of SPEC §3 (bodies, tree and cut joints, loops, DOF, redundancy), with
hints on how to simulate what it found."""
import textwrap
from dataclasses import dataclass, field

import numpy as np

# How far from the assembled configuration the redundancy is tested again (radians and metres, in every velocity
# coordinate): far above the assembly's tolerance, small against any link.
NEARBY = 1e-3


@dataclass
class CheckReport:
    dof: int
    tree_joints: list
    cut_joints: list = field(default_factory=list)
    cut_reasons: dict = field(default_factory=dict)    # cut joint -> why it is the one cut (dynamics/topology.py)
    loops: list = field(default_factory=list)
    n_constraints: int = 0
    redundant: list = field(default_factory=list)
    drivers: list = field(default_factory=list)
    bodies: list = field(default_factory=list)
    nq: int = 0
    nv: int = 0
    hints: list = field(default_factory=list)

    def __str__(self):
        listed = lambda items: f"{len(items)}" + (f" ({', '.join(items)})" if items else "")
        lines = [f"dof: {self.dof}",
                 f"bodies: {listed(self.bodies)}",
                 f"tree joints: {listed(self.tree_joints)}",
                 f"cut joints: {listed(self.cut_joints)}"]
        lines += [f"  {name}: closes loop {k + 1}, {self.cut_reasons[name]}" for k, name in enumerate(self.cut_joints)]
        lines += [f"loops: {len(self.loops)}"]
        lines += [f"  loop {k + 1}: {' -> '.join(loop)}" for k, loop in enumerate(self.loops)]
        lines += [f"drivers: {listed(self.drivers)}",
                  f"constraint equations: {self.n_constraints}",
                  f"redundant constraints: {listed(self.redundant)}",
                  f"coordinates: {self.nq} positions, {self.nv} velocities"]
        lines += [textwrap.fill(f"hint: {hint}", 100, subsequent_indent="  ") for hint in self.hints]
        return "\n".join(lines)


def check(model):
    """Compile and assemble the model (raising ModelError on any inconsistency) and report its topology;
    dof is what remains free after the independent constraint equations and the drivers."""
    cm = model.compile()
    state = model.assemble()
    analysis = state.analysis
    hints = []
    if analysis is not None and analysis.redundant and _independent_nearby(cm, state.q, analysis):
        hints.append(f"the equations {', '.join(analysis.redundant)} are redundant at the assembled configuration but "
                     f"not {NEARBY:g} away from it: the redundancy holds only along the motion (an overconstrained "
                     "loop, as Bricard's or parallel cranks of equal length) or the mechanism starts at a singular "
                     "configuration. The default Cholesky solve leaves those equations to the drift control; "
                     "constraint_solver=\"qr\" (in a model file's simulation section, constraint_solver: qr) solves "
                     "every equation and drops what is dependent at each evaluation, which can take far fewer steps "
                     "(Bricard's mechanism: half; README: redundancy that holds only on the motion)")
    return CheckReport(dof=cm.nv if analysis is None else analysis.dof, tree_joints=list(cm.joint_order),
                       cut_joints=list(cm.topology.cut), cut_reasons=dict(cm.topology.reasons),
                       loops=[list(loop) for loop in cm.topology.loops],
                       n_constraints=len(cm.every_row), redundant=[] if analysis is None else list(analysis.redundant),
                       drivers=list(model.drivers), bodies=list(cm.body_names), nq=cm.nq, nv=cm.nv, hints=hints)


def _independent_nearby(cm, q, analysis):
    """Whether fewer equations are redundant at a configuration NEARBY from q, off the constraints (a fixed random
    step in every velocity coordinate): a redundancy by the loops' shape (a planar loop built in 3D) holds there
    too, one by a special geometry does not. The Cholesky solve on the independent equations then leaves the
    dropped ones to the drift control (README)."""
    from ..assembly.redundancy import analyse
    from ..dynamics.api import constraint_values
    from ..dynamics.projection import integrate_coordinates
    from ..errors import ModelError
    nearby = np.array(q, dtype=float)
    integrate_coordinates(cm.node_i, nearby, NEARBY * np.random.default_rng(0).uniform(-1.0, 1.0, cm.nv))
    try:
        return len(analyse(cm, constraint_values(cm, nearby, np.zeros(cm.nv))[2]).redundant) < len(analysis.redundant)
    except ModelError:        # a driver dependent there: off the motion, nothing to say about it
        return False
