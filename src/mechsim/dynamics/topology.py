"""The model graph: bodies are vertices, joints are edges. A spanning tree grown from ground keeps
the joints that would cost most constraint equations if cut and, among equals, reaches each body by
the shortest path from ground, so that loops stay apart; every other joint is a cut joint
that closes one independent loop (Wood & Kennedy 2003, §3: relative coordinates on a spanning tree, loop
closure by constraints)."""
import heapq
from collections import namedtuple

from ..errors import ModelError
from ..modeling.joints import JOINT_KINDS

Topology = namedtuple("Topology", "tree cut loops")    # tree joints (parents first), cut joints, loops

# joints mechsim cannot write closure equations for, which must stay in the tree
UNCUTTABLE = tuple(kind for kind, known in JOINT_KINDS.items() if known.closure is None)


def cut_equations(joint):
    """Scalar constraint equations a joint gives when cut: 6 minus its degrees of freedom."""
    return 6 - joint.nv


def spanning_tree(model):
    """Topology of the model. Joints are taken from parent to child only; among the joints that reach
    a new body, the one with the most equations-if-cut goes first (Prim's algorithm), so the cut set
    has the fewest constraint equations; among those, the one nearest to ground (breadth first), so
    that each body hangs on its shortest path to ground and a chain of loops (the cranks of the N
    four-bar on their ground pivots) gives loops that share few tree joints: each loop's rows then
    load few branches of the tree, and Λ = G M⁻¹ Gᵀ is banded instead of dense. Joints with cut=True,
    and joints that would join two bodies already in the tree, are cut. Joints referenced by drivers
    and gears stay in the tree."""
    keep = {d.joint for d in model.drivers.values()}
    keep.update(j for c in model.constraints.values() for j in c.joints_used)
    children = {}
    for index, joint in enumerate(model.joints.values()):
        children.setdefault(joint.parent, []).append((index, joint))
    reached, heap = {"ground": None}, []

    def offer(body, depth):
        for index, joint in children.get(body, []):
            if not joint.cut:
                must_keep = joint.name in keep or joint.kind in UNCUTTABLE
                heapq.heappush(heap, (0 if must_keep else 1, -cut_equations(joint), depth, index, joint))

    offer("ground", 0)
    while heap:
        *_, depth, _, joint = heapq.heappop(heap)
        if joint.child in reached:
            continue
        reached[joint.child] = joint.name
        offer(joint.child, depth + 1)
    for name in model.bodies:
        if name not in reached:
            raise ModelError(f"body '{name}' is not connected to ground by any joint{_hint(model, name, reached)}")
    in_tree = set(reached.values()) - {None}
    tree = _breadth_first(children, in_tree)
    cut = [name for name in model.joints if name not in in_tree]
    for name in cut:
        joint = model.joints[name]
        if joint.kind in UNCUTTABLE:
            raise ModelError(f"joint '{name}' ({joint.kind}) closes a kinematic loop but cannot be a cut joint; "
                             "mark another joint of the loop with cut=True")
        if name in keep:
            raise ModelError(f"joint '{name}' closes a kinematic loop but is driven or geared, which needs it in the "
                             "spanning tree; mark another joint of the loop with cut=True")
    parent_joint = {model.joints[j].child: j for j in tree}
    loops = [_loop(model, model.joints[name], parent_joint) for name in cut]
    return Topology(tree, cut, loops)


def _breadth_first(children, in_tree):
    """The tree joints breadth-first from ground, children in the order the joints were added, so that
    the coordinates of a tree keep the order of the model."""
    order, queue = [], ["ground"]
    for body in queue:
        for _, joint in children.get(body, []):
            if joint.name in in_tree:
                order.append(joint.name)
                queue.append(joint.child)
    return order


def _path_to_ground(body, parent_joint, model):
    path = []
    while body != "ground":
        joint = parent_joint[body]
        path.append(joint)
        body = model.joints[joint].parent
    return path


def _loop(model, joint, parent_joint):
    """The independent loop a cut joint closes, in cycle order: down the tree to its parent body, the cut
    joint, then up from its child body."""
    a = _path_to_ground(joint.parent, parent_joint, model)
    b = _path_to_ground(joint.child, parent_joint, model)
    common = set(a) & set(b)
    return [j for j in a if j not in common][::-1] + [joint.name] + [j for j in b if j not in common]


def _hint(model, body, reached):
    for joint in model.joints.values():
        if joint.parent == body and joint.child in reached:
            return (f"; joint '{joint.name}' has it as parent of the connected body '{joint.child}': "
                    "swap parent and child (a joint points from the body nearer to ground to the farther one)")
    return "; add a joint from ground or from a connected body to it"
