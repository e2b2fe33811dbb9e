"""The model graph: bodies are vertices, joints are edges; a breadth-first spanning tree from ground."""
from collections import deque

from ..errors import ModelError


def spanning_tree(model):
    """Tree joints in breadth-first order from ground (every parent before its children)."""
    children = {}
    for joint in model.joints.values():
        children.setdefault(joint.parent, []).append(joint)
    order, reached = [], {"ground": None}
    queue = deque(["ground"])
    while queue:
        body = queue.popleft()
        for joint in children.get(body, []):
            if joint.child in reached:
                via = f"through joint '{reached[joint.child]}'" if reached[joint.child] else "as the ground"
                raise ModelError(
                    f"joint '{joint.name}' closes a kinematic loop: body '{joint.child}' is already connected {via}; "
                    "closed loops are not supported in this version of mechsim")
            reached[joint.child] = joint.name
            order.append(joint.name)
            queue.append(joint.child)
    for name in model.bodies:
        if name not in reached:
            raise ModelError(f"body '{name}' is not connected to ground by any joint{_hint(model, name, reached)}")
    return order


def _hint(model, body, reached):
    for joint in model.joints.values():
        if joint.parent == body and joint.child in reached:
            return (f"; joint '{joint.name}' has it as parent of the connected body '{joint.child}': "
                    "swap parent and child (a joint points from the body nearer to ground to the farther one)")
    return "; add a joint from ground or from a connected body to it"
