"""URDF export (SPEC C10): ``m.to_urdf("robot.urdf")`` writes a model as URDF (ROS wiki,
http://wiki.ros.org/urdf/XML), which ``ms.load`` (io/urdf.py) reads back to the same dynamics.

- the ground is the root link ``world``; each body a ``<link>`` (urdf/XML/link) with its ``<inertial>``
  (mass, COM, the full inertia tensor in link axes) and its ``geometry`` (box, cylinder, sphere, mesh,
  as io/urdf.py reads them) as ``<visual>``/``<collision>``; each named frame a massless link on a
  fixed joint ``<frame>_frame`` (which io/urdf.py folds back into a frame);
- each tree joint a ``<joint>`` (urdf/XML/joint): revolute -> continuous (revolute with the
  ``model.urdf_limits`` of an imported joint), prismatic, weld -> fixed, free -> floating, planar,
  with ``<origin xyz rpy>`` its frame F on the parent link and ``<axis>``. URDF puts the child link
  frame at the joint frame, so a body whose joint frame M is not its body frame is written in the
  link frame M: its inertial, geometry and frames, and the frames of the joints and constraints on
  it, re-expressed there (the dynamics do not change; the re-read model's body frame is M);
- a ``joint_spring_damper`` with damping only -> ``<dynamics damping>``; a ``joint_friction`` with
  static = kinetic (or ``model.urdf_friction``) -> ``friction``; a rigid ``joint_limit`` with
  restitution 0 -> ``<limit lower upper>`` (with effort and velocity from ``model.urdf_limits``); a gear between two one-coordinate joints -> ``<mimic>`` on its first joint (multiplier
  the ratio, offset from the joints' q0); a point_coincident constraint -> Drake's
  ``<drake:ball_constraint>`` (Drake's documentation, "Parsing Models for Multibody Dynamics"), with a
  ``name`` attribute; a cut joint -> a plain ``<joint>`` on the child's second parent, which io/urdf.py
  reads as a cut joint placed where its frames meet with every joint at zero, so it must close there;
- a prismatic joint, to which URDF gives a ``<limit>``, gets ``effort`` and ``velocity`` 0 (no limit
  known) unless ``model.urdf_limits`` has its limits.

URDF has no place for anything else: other joint kinds, other constraints, drivers, other forces,
inputs, events, a gravity other than (0, 0, -9.81), initial coordinates (q0, v0) and the simulation
settings. All but the last two raise a ModelError naming the item; q0/v0 and the simulation settings
are left out.
"""
from pathlib import Path
from xml.etree import ElementTree as ET

import numpy as np

from ..errors import ModelError
from .urdf import BALL, IDENTITY, WORLD, _compose, rpy_matrix

URDF_GRAVITY = (0.0, 0.0, -9.81)
KINDS = {"revolute": "continuous", "prismatic": "prismatic", "weld": "fixed", "free": "floating",
         "planar": "planar"}
HOLDS = ("URDF holds revolute, prismatic, weld (fixed), free (floating) and planar joints, joint dampers, "
         "rigid joint limits without restitution, joint friction with static = kinetic, "
         "gears between joints (mimic) and point_coincident constraints (drake:ball_constraint)")


# ------------------------------------------------------------------------------------ poses
def matrix_rpy(R):
    """URDF's (roll, pitch, yaw) of a rotation matrix: the inverse of io/urdf.py's ``rpy_matrix``
    (R = Rz(yaw) Ry(pitch) Rx(roll)). Pitch comes from the first column, yaw from its projection on
    the x-y plane (0 at gimbal lock, pitch = +-pi/2), and roll from what is left,
    Rx(roll) = Ry(pitch)^T Rz(yaw)^T R, so that the angles give back R to rounding even at gimbal lock."""
    R = np.asarray(R, dtype=float)
    pitch = np.arctan2(-R[2, 0], np.hypot(R[0, 0], R[1, 0]))
    yaw = np.arctan2(R[1, 0], R[0, 0])
    rest = rpy_matrix([0.0, pitch, yaw]).T @ R
    return np.array([np.arctan2(rest[2, 1], rest[1, 1]), pitch, yaw])


def _inverse(pose):
    return -pose[1].T @ pose[0], pose[1].T


def _text(values):
    """Numbers as URDF writes them, each to full double precision."""
    return " ".join(repr(float(x)) for x in values)


def _origin(parent, pose):
    ET.SubElement(parent, "origin", xyz=_text(pose[0]), rpy=_text(matrix_rpy(pose[1])))


# ------------------------------------------------------------------------------------ checks
def _refuse(model):
    """ModelError for the first thing URDF cannot hold."""
    if tuple(model.gravity) != URDF_GRAVITY:
        raise ModelError(f"to_urdf: gravity ({_text(model.gravity).replace(' ', ', ')}) is not URDF's (0, 0, -9.81) (a URDF file has no "
                         "gravity; readers take -9.81 along z): rotate the model so that gravity is along -z")
    if WORLD in model.bodies:
        raise ModelError(f"to_urdf: body '{WORLD}': the name is URDF's root link for the ground; rename the body")
    for joint in model.joints.values():
        if joint.kind not in KINDS:
            raise ModelError(f"to_urdf: joint '{joint.name}' is {joint.kind}, which URDF cannot hold; {HOLDS}")
    for constraint in model.constraints.values():
        if constraint.kind not in ("gear", "point_coincident"):
            raise ModelError(f"to_urdf: constraint '{constraint.name}' is {constraint.kind}, which URDF cannot hold; "
                             f"{HOLDS}")
    for kind, table in (("driver", model.drivers), ("input", model.inputs), ("event", model.events)):
        for name in table:
            raise ModelError(f"to_urdf: {kind} '{name}': URDF cannot hold {kind}s; {HOLDS}")
    for force in model.forces.values():
        if force.kind == "joint_limit" and force.rigid and force.restitution == 0.0 or \
                force.kind == "joint_friction" and force.static == force.kinetic:
            continue
        if force.kind != "joint_spring_damper" or np.any(force.stiffness) or np.ptp(force.damping) > 0:
            raise ModelError(f"to_urdf: force '{force.name}' ({force.kind}) is not a joint damper with one damping "
                             f"for all coordinates and no stiffness, which URDF cannot hold; {HOLDS}")


# ------------------------------------------------------------------------------------ frames
def _link_frames(model, tree):
    """Body name -> pose of the body frame in the link frame written for it (the joint frame M of its
    tree joint; the identity for the ground)."""
    shift = {"ground": IDENTITY}
    for joint in tree:
        shift[joint.child] = _inverse(joint.child_pose)
    return shift


def _zero_poses(tree):
    """Body name -> pose of its body frame in the world with every joint at zero (F and M coincide)."""
    poses = {"ground": IDENTITY}
    for joint in tree:
        poses[joint.child] = _compose(_compose(poses[joint.parent], joint.parent_pose), _inverse(joint.child_pose))
    return poses


def _check_cut_joint(joint, poses):
    """A cut joint is read back where its frames meet with every joint at zero: refuse it elsewhere."""
    f = _compose(poses[joint.parent], joint.parent_pose)
    m = _compose(poses[joint.child], joint.child_pose)
    gap = np.linalg.norm(f[0] - m[0]) + np.linalg.norm(f[1] - m[1])
    if gap > 1e-9 * (1 + np.linalg.norm(f[0])):
        raise ModelError(f"to_urdf: cut joint '{joint.name}': URDF has no loops, and a loop-closing <joint> is read "
                         "back where its frames meet with every joint coordinate at zero, but its frames are apart "
                         "there; close the loop at zero coordinates (put the tree joints' frames where the machine "
                         "is assembled) or replace the joint by a point_coincident constraint")


def _tree_order(model):
    """The tree joints from the ground outwards, then the cut joints."""
    tree, cuts = [], [j for j in model.joints.values() if j.cut]
    placed, pending = {"ground"}, [j for j in model.joints.values() if not j.cut]
    while pending:
        ready = [j for j in pending if j.parent in placed]
        if not ready:
            raise ModelError(f"to_urdf: joint '{pending[0].name}' is not connected to the ground through tree joints")
        for joint in ready:
            tree.append(joint)
            placed.add(joint.child)
        pending = [j for j in pending if j not in ready]
    for body in model.bodies:
        if body not in placed:
            raise ModelError(f"to_urdf: body '{body}' has no joint; a URDF link hangs from a joint (weld it to the "
                             "ground if it does not move)")
    return tree, cuts


# ------------------------------------------------------------------------------------ links
def _link(robot, name, body, shift):
    link = ET.SubElement(robot, "link", name=name)
    if body.mass > 0 or np.any(body.inertia):
        inertial = ET.SubElement(link, "inertial")
        _origin(inertial, (shift[0] + shift[1] @ body.com, np.eye(3)))
        ET.SubElement(inertial, "mass", value=repr(float(body.mass)))
        inertia = shift[1] @ body.inertia @ shift[1].T
        ET.SubElement(inertial, "inertia", **{f"i{a}{b}": repr(float(inertia["xyz".index(a), "xyz".index(b)]))
                                              for a, b in ("xx", "xy", "xz", "yy", "yz", "zz")})
    for shape in body.shapes:
        _shape(link, body.name, shape, shift)


def _shape(link, body, shape, shift):
    """A <visual> or <collision> from a Shape (modeling/geometry.py)."""
    if shape.kind not in ("box", "cylinder", "sphere", "mesh") or (shape.kind == "mesh" and "path" not in shape.dims):
        what = "a mesh given by its vertices" if shape.kind == "mesh" else f"a {shape.kind}"
        raise ModelError(f"to_urdf: body '{body}': {what} is not a box, cylinder, sphere or mesh file, which is what "
                         "URDF holds")
    element = ET.SubElement(link, shape.role)
    _origin(element, _compose(shift, (shape.position, shape.rotation)))
    geometry, d = ET.SubElement(element, "geometry"), shape.dims
    if shape.kind == "box":
        ET.SubElement(geometry, "box", size=_text(d["size"]))
    elif shape.kind == "cylinder":
        ET.SubElement(geometry, "cylinder", radius=repr(d["radius"]), length=repr(d["length"]))
    elif shape.kind == "sphere":
        ET.SubElement(geometry, "sphere", radius=repr(d["radius"]))
    else:
        ET.SubElement(geometry, "mesh", filename=Path(d["path"]).resolve().as_uri(), scale=_text(d["scale"]))


def _frames(robot, model, names, shift):
    """A massless link on a fixed joint per named frame of a body (the ground's included)."""
    for body in model.bodies.values():
        for frame, pose in body.frames.items():
            if frame in names:
                raise ModelError(f"to_urdf: frame '{frame}' of body '{body.name}': URDF writes a frame as a link, "
                                 f"and the name is taken by another link or frame; rename the frame")
            names.add(frame)
            ET.SubElement(robot, "link", name=frame)
            joint = ET.SubElement(robot, "joint", name=f"{frame}_frame", type="fixed")
            _origin(joint, _compose(shift[body.name], pose))
            ET.SubElement(joint, "parent", link=_link_name(body.name))
            ET.SubElement(joint, "child", link=frame)


def _link_name(body):
    return WORLD if body == "ground" else body


# ------------------------------------------------------------------------------------ joints
def _joint(robot, model, joint, shift, extras):
    """A <joint>: origin F on the parent link, axis in F, dynamics, limit and mimic (``extras``)."""
    kind = KINDS[joint.kind]
    limit = dict(getattr(model, "urdf_limits", {}).get(joint.name, {}))
    for force in model.forces.values():
        if force.kind == "joint_limit" and force.joint == joint.name:
            limit.update({side: value for side, value, _ in force.stops()})
    if kind == "continuous" and {"lower", "upper"} <= set(limit):
        kind = "revolute"
    element = ET.SubElement(robot, "joint", name=joint.name, type=kind)
    _origin(element, _compose(shift[joint.parent], joint.parent_pose))
    ET.SubElement(element, "parent", link=_link_name(joint.parent))
    ET.SubElement(element, "child", link=_link_name(joint.child))
    if joint.kind in ("revolute", "prismatic", "planar"):
        axis = joint.primitives[-1][1]        # the axis, or for planar the normal (its rotation axis)
        ET.SubElement(element, "axis", xyz=_text(axis))
    damping = extras["damping"].get(joint.name, 0.0)
    friction = next((f.static for f in model.forces.values() if f.kind == "joint_friction" and f.joint == joint.name),
                    getattr(model, "urdf_friction", {}).get(joint.name))
    if damping or friction:
        ET.SubElement(element, "dynamics", damping=repr(float(damping)), **(
            {"friction": repr(float(friction))} if friction else {}))
    if limit or kind == "prismatic":
        ET.SubElement(element, "limit", **{key: repr(float(value)) for key, value in
                                           {"effort": 0.0, "velocity": 0.0, **limit}.items()})
    if joint.name in extras["mimic"]:
        source, multiplier, offset = extras["mimic"][joint.name]
        ET.SubElement(element, "mimic", joint=source, multiplier=repr(multiplier), offset=repr(offset))


def _dampers(model):
    """Joint name -> the sum of its dampers' damping."""
    damping = {}
    for force in model.forces.values():
        if force.kind == "joint_spring_damper":
            damping[force.joint] = damping.get(force.joint, 0.0) + float(force.damping[0])
    return damping


def _mimics(model):
    """Joint name -> (source joint, multiplier, offset) of each gear: q_a = ratio q_b + offset, the
    offset being its value at q0. One gear per mimicking joint."""
    mimics = {}
    for gear in (c for c in model.constraints.values() if c.kind == "gear"):
        a, b = gear.joints
        if a in mimics:
            raise ModelError(f"to_urdf: constraint '{gear.name}': joint '{a}' mimics '{mimics[a][0]}' already, and a URDF "
                             "joint holds one <mimic>")
        offset = float(model.joints[a].q0[0] - gear.ratio * model.joints[b].q0[0])
        mimics[a] = (b, float(gear.ratio), offset)
    return mimics


def _ball(robot, constraint, shift):
    """Drake's <drake:ball_constraint> for a point_coincident constraint, points in the link frames."""
    element = ET.SubElement(robot, BALL, name=constraint.name)
    for side, point, body, at in (("A", "p_AP", constraint.body_a, constraint.point_a),
                                  ("B", "p_BQ", constraint.body_b, constraint.point_b)):
        ET.SubElement(element, f"{BALL}_body_{side}", name=_link_name(body))
        ET.SubElement(element, f"{BALL}_{point}", value=_text(shift[body][0] + shift[body][1] @ at))


# ------------------------------------------------------------------------------------ the file
def write_urdf(model, path):
    """Write ``model`` to the URDF file ``path`` (see the module's docstring); a ModelError names what
    URDF cannot hold."""
    _refuse(model)
    tree, cuts = _tree_order(model)
    poses = _zero_poses(tree)
    for joint in cuts:
        _check_cut_joint(joint, poses)
    shift = _link_frames(model, tree)
    extras = {"damping": _dampers(model), "mimic": _mimics(model)}
    robot = ET.Element("robot", name=model.name)
    ET.SubElement(robot, "link", name=WORLD)
    for body in model.bodies.values():
        if body.name != "ground":
            _link(robot, body.name, body, shift[body.name])
    _frames(robot, model, set(model.bodies) | {WORLD}, shift)
    for joint in tree + cuts:
        _joint(robot, model, joint, shift, extras)
    for constraint in model.constraints.values():
        if constraint.kind == "point_coincident":
            _ball(robot, constraint, shift)
    ET.indent(robot)
    Path(path).write_text('<?xml version="1.0"?>\n' + ET.tostring(robot, encoding="unicode") + "\n")
