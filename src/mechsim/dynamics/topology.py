"""The model graph: bodies are vertices, joints are edges. The spanning tree keeps every joint but the
ones that close loops, which are cut: each closes one independent loop by constraint equations (Wood &
Kennedy 2003, §3: relative coordinates on a spanning tree, loop closure by constraints).

The automatic cut is stable (SPEC C2): taking the joints in the order they were added, the joint whose
addition closes a loop is cut, unless ``cut=True`` names another. Joints that must stay in the tree
(``tree_bound``: driven, geared, acted on by a joint force element, or of a kind without closure equations)
are taken first, so a loop whose last-added joint is one of them is cut at its latest-added other joint.
The order of construction is the user's handle on the tree: the loops of a chain of loops stay apart
(few tree joints shared, a banded Λ = G M⁻¹ Gᵀ: multipliers.py) when each loop's closing joint is added
after the joints that reach its bodies from ground (examples/n_four_bar.py)."""
import heapq
from collections import namedtuple

from ..errors import ModelError
from ..modeling.joints import JOINT_KINDS

# tree joints (parents first), cut joints, the loop each closes, and why each is cut (check.py reports it)
Topology = namedtuple("Topology", "tree cut loops reasons")

# joints mechsim cannot write closure equations for, which must stay in the tree
UNCUTTABLE = tuple(kind for kind, known in JOINT_KINDS.items() if known.closure is None)


def tree_bound(model):
    """{joint name: why it must stay in the spanning tree}: what needs its coordinates (drivers, gears, joint
    force elements) and kinds without closure equations."""
    bound = {j.name: f"a {j.kind} joint has no closure equations" for j in model.joints.values()
             if j.kind in UNCUTTABLE}
    for driver in model.drivers.values():
        bound.setdefault(driver.joint, f"driver '{driver.name}' drives it")
    for constraint in model.constraints.values():
        for name in constraint.joints_used:
            bound.setdefault(name, f"{constraint.kind} '{constraint.name}' couples it")
    for force in model.forces.values():
        for name in force.joints_used:
            bound.setdefault(name, f"force '{force.name}' ({force.kind}) acts on it")
    return bound


def spanning_tree(model):
    """Topology of the model, grown from ground (Prim's algorithm): of the joints whose parent body is in the
    tree and whose child is not, the tree takes the one that must stay in it (tree_bound) first, then the
    earliest added; joints with cut=True are never taken, and every joint left is cut. Where every joint points
    away from ground along the tree (parent to child), this is the minimum spanning tree in that order of the
    joints, so the cut joints are those whose addition, in that order, closes a loop (Kruskal's view of the
    same tree); a joint that points toward ground along its loop is cut where its child is reached first."""
    bound = tree_bound(model)
    children = {}
    for index, joint in enumerate(model.joints.values()):
        children.setdefault(joint.parent, []).append((index, joint))
    reached, heap = {"ground": None}, []

    def offer(body):
        for index, joint in children.get(body, []):
            if not joint.cut:
                heapq.heappush(heap, (joint.name not in bound, index, joint.name, joint.child))

    offer("ground")
    while heap:
        *_, name, child = heapq.heappop(heap)
        if child not in reached:
            reached[child] = name
            offer(child)
    for name in model.bodies:
        if name not in reached:
            raise ModelError(f"body '{name}' is not connected to ground by any joint{_hint(model, name, reached)}")
    in_tree = set(reached.values()) - {None}
    tree = _breadth_first(children, in_tree)
    cut = [name for name in model.joints if name not in in_tree]
    parent_joint = {model.joints[j].child: j for j in tree}
    loops = [_loop(model, model.joints[name], parent_joint) for name in cut]
    reasons = {name: _reason(model, name, loop, bound) for name, loop in zip(cut, loops)}
    for name in cut:
        if name in bound:
            fix = "remove its cut=True and mark" if model.joints[name].cut else "mark"
            raise ModelError(f"joint '{name}' closes a kinematic loop but must stay in the spanning tree: "
                             f"{bound[name]}; {fix} another joint of the loop with cut=True")
    return Topology(tree, cut, loops, reasons)


def _reason(model, name, loop, bound):
    """Why the joint is cut, in words (check.py): named by cut=True, or closing its loop in the order of
    spanning_tree."""
    if model.joints[name].cut:
        return "marked cut=True"
    order = list(model.joints)
    later = [j for j in loop if order.index(j) > order.index(name)]
    if not later:
        return "added last of its loop"
    if all(j in bound for j in later):
        return "added last of its loop but " + ", ".join(f"'{j}' ({bound[j]})" for j in later) + \
            ", which must stay in the tree"
    return (f"its child '{model.joints[name].child}' is reached from ground through the rest of the loop first "
            "(a joint enters the tree from parent to child)")


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
