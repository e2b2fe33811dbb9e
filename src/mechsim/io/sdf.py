"""SDF import (SPEC C10): ``load_sdf("robot.sdf")``.

SDFormat (http://sdformat.org/spec, versions 1.5 to 1.9) describes a ``<model>`` of ``<link>``s and
``<joint>``s. The first ``<model>`` of the ``<sdf>`` file becomes a Model whose bodies and joints carry
the links' and joints' names:

- a link's ``<pose>`` (x y z roll pitch yaw, the rotation Rz(yaw) Ry(pitch) Rx(roll) as in URDF) is
  the link frame in the model frame, or in the frame named by ``relative_to`` (SDF 1.7: a link or
  ``__model__``); spec elements link/pose and pose/@relative_to;
- ``<inertial>``: ``<pose>`` of the inertial frame in the link frame (the COM and the axes of
  ``<inertia>``), ``<mass>``; the spec's defaults (mass 1, unit inertia) hold for what is left out; an
  inertia that no rigid body has is corrected to the nearest one that is, with one warning, and kept in
  ``model.corrected_inertias`` (as for URDF);
- a joint's ``<pose>`` is the joint frame in the CHILD link frame (spec joint/pose), or in the frame
  named by ``relative_to``; the joint's frame F on the parent is then
  inverse(X_model_parent) X_model_child X_child_joint and its frame M on the child is X_child_joint,
  so that at q = 0 every link is at its ``<pose>``;
- ``<axis><xyz>`` is in the joint frame, or in the model frame with
  ``<use_parent_model_frame>1</use_parent_model_frame>`` (SDF 1.5/1.6; the default of SDF 1.4) or in
  the frame named by ``<xyz expressed_in>`` (SDF 1.7); ``<axis2>`` is a universal joint's second axis;
- revolute and continuous -> revolute, prismatic -> prismatic, ball -> spherical, universal ->
  universal, fixed -> weld; a joint's parent ``world`` is the ground;
- SDF models may close kinematic loops: the joints are read in file order from the root link (the
  first link that is no joint's child, else the first link), and a joint whose child already hangs
  from an earlier joint (or is the root) becomes a cut joint of the Model;
- the model frame is the world frame (a <model><pose> is not read); the root link is welded to the
  ground at its <pose>, or joined to it there by the free joint ``root_joint`` with
  ``floating_base=True`` (its q = 0 at the <pose>);
- ``<axis><dynamics>`` of a revolute or prismatic joint: ``<damping>`` and ``<spring_stiffness>``
  about ``<spring_reference>`` -> a ``joint_spring_damper`` ``<joint>_damping`` (damping only) or
  ``<joint>_spring`` (with a stiffness); ``<axis><limit>`` and ``<dynamics><friction>`` -> a rigid
  ``joint_limit`` and a ``joint_friction`` as in the URDF importer, and kept in ``model.urdf_limits``
  and ``model.urdf_friction``; a cut joint with any of these trades places with the other joint of its
  child link where it can (io/urdf.py _trade_cuts), else they are not simulated, which a warning says;
- ``<visual>``/``<collision>`` (spec link/visual/geometry: box, cylinder, sphere, mesh) -> the body's
  ``geometry`` as in the URDF importer; a mesh ``<uri>`` ``model://name/rest`` is found through
  ``package_dirs[name]``, ``file://p`` at p, any other relative to the file's folder.

Every mistake in the file raises one ModelError naming the file, the line and the element.
"""
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..modeling.model import Model
from .urdf import (IDENTITY, MODEL_FRAME, ROOT_JOINT, _add_bodies, _add_spring_damper, _compose, _Element, _flag,
                   _inverse, _limits_and_friction, _Link, _name, _package_dirs, _physical_inertias, _read_axis_extras,
                   _resolve_meshes, _sdf_pose, _Source, _starts_within_limits, _text_numbers, _trade_cuts, _value,
                   read_xml)

JOINT_KINDS = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic",
               "ball": "spherical", "universal": "universal", "fixed": "weld"}
WORLD = "world"           # a joint's parent of this name is the ground (spec joint/parent)


# ------------------------------------------------------------------------------------ the file
def _parse(path):
    """(the first <model> of the file's <sdf>, the SDF version), every element with its ``line``."""
    sdf = read_xml(path, "SDF")
    src = _Source(path)
    if sdf.tag != "sdf":
        raise src.error(sdf, f"expected an <sdf> element, found <{sdf.tag}>")
    model = sdf.find("model")
    if model is None:
        raise src.error(sdf, "the file has no <model> (an SDF <world> is not a model)")
    try:
        version = tuple(int(x) for x in sdf.get("version", "1.6").split("."))
    except ValueError:
        raise src.error(sdf, f"<sdf version=\"{sdf.get('version')}\">: expected a version such as 1.6") from None
    return model, version


# ------------------------------------------------------------------------------------ links
def _read_link(src, element):
    """(_Link with mass properties and geometry in the link frame, its <pose>, that pose's frame)."""
    name = _name(src, element)
    what = f"link '{name}': "
    link = _Link(name, element, mass=1.0, inertia=np.eye(3))
    inertial = element.find("inertial")
    if inertial is not None:
        link.mass = _value(src, inertial, "mass", 1.0, what)
        if link.mass < 0:
            raise src.error(inertial.find("mass"), f"{what}negative mass {link.mass}")
        tensor = inertial.find("inertia")
        ixx, ixy, ixz, iyy, iyz, izz = ([1.0, 0, 0, 1.0, 0, 1.0] if tensor is None else
                                        [_value(src, tensor, key, 1.0 if key[1] == key[2] else 0.0, what)
                                         for key in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")])
        (position, rotation), _ = _sdf_pose(src, inertial, what)
        link.com = position
        link.inertia = rotation @ np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]) @ rotation.T
    for item in element:
        if item.tag in ("visual", "collision"):
            shape = _read_shape(src, item, f"{what}<{item.tag}>: ")
            link.geometry.append((item.tag, _sdf_pose(src, item, what)[0], shape, item))
    pose, frame = _sdf_pose(src, element, what)
    return link, pose, frame


def _read_shape(src, item, what):
    """The shape dict of a <visual>/<collision>'s <geometry> (spec geometry), a mesh's uri unresolved
    (``model://`` read as a package name for the URDF importer's mesh resolution)."""
    geometry = item.find("geometry")
    shape = None if geometry is None else next(iter(geometry), None)
    if shape is None:
        raise src.error(item, f"{what}needs a <geometry> with a box, cylinder, sphere or mesh")
    if shape.tag == "box":
        return {"kind": "box", "size": _value(src, shape, "size", np.ones(3), what, 3).tolist()}
    if shape.tag == "cylinder":
        return {"kind": "cylinder", "radius": _value(src, shape, "radius", 1.0, what),
                "length": _value(src, shape, "length", 1.0, what)}
    if shape.tag == "sphere":
        return {"kind": "sphere", "radius": _value(src, shape, "radius", 1.0, what)}
    if shape.tag == "mesh":
        uri = shape.find("uri")
        if uri is None or not (uri.text or "").strip():
            raise src.error(shape, f"{what}<mesh> needs a <uri>")
        filename = uri.text.strip()
        if filename.startswith("model://"):
            filename = "package://" + filename[len("model://"):]
        return {"kind": "mesh", "filename": filename,
                "scale": _value(src, shape, "scale", np.ones(3), what, 3).tolist()}
    raise src.error(shape, f"{what}unknown geometry <{shape.tag}>; use box, cylinder, sphere or mesh")


def _model_poses(src, links, poses):
    """Link name -> the link frame in the model frame, following ``relative_to`` (SDF 1.7)."""
    placed = {}

    def place(name, seen):
        if name not in placed:
            pose, frame = poses[name]
            if frame in (None, MODEL_FRAME):
                placed[name] = pose
            elif frame not in links or frame in seen:
                reason = "a loop of relative_to" if frame in seen else f"the unknown frame '{frame}'"
                raise src.error(links[name].element.find("pose"), f"link '{name}': <pose> is relative to {reason}")
            else:
                placed[name] = _compose(place(frame, seen | {name}), pose)
        return placed[name]

    for name in links:
        place(name, set())
    return placed


# ------------------------------------------------------------------------------------ joints
@dataclass(eq=False)
class _Joint:
    """A <joint> (spec joint): its frame in the child link frame, its axes in the joint frame."""
    name: str
    element: _Element
    type: str
    parent: str
    child: str
    pose: tuple = IDENTITY
    axes: list = field(default_factory=list)
    damping: float = 0.0
    stiffness: float = 0.0
    rest: float = 0.0
    friction: float = 0.0
    limit: dict = field(default_factory=dict)
    cut: bool = False

    @property
    def kind(self):
        return JOINT_KINDS[self.type]


def _read_joint(src, element, links, model_poses, version):
    """A _Joint from a <joint>; its parent and child links exist."""
    name = _name(src, element)
    what = f"joint '{name}': "
    kind = element.get("type")
    if kind not in JOINT_KINDS:
        raise src.error(element, f"{what}unknown type {kind!r}; the SDF joints read are {', '.join(JOINT_KINDS)}")
    ends = []
    for tag in ("parent", "child"):
        e = element.find(tag)
        link = None if e is None else (e.text or "").strip()
        if not link:
            raise src.error(element, f"{what}needs <{tag}>link name</{tag}>")
        if link not in links and not (tag == "parent" and link == WORLD):
            raise src.error(e, f"{what}unknown {tag} link '{link}'")
        ends.append(link)
    joint = _Joint(name, element, kind, *ends)
    pose, frame = _sdf_pose(src, element, what)
    if frame is None or frame == joint.child:
        joint.pose = pose
    else:                                   # SDF 1.7 relative_to: the pose moved into the child frame
        model_pose = _compose(_frame(src, element.find("pose"), frame, model_poses, what), pose)
        joint.pose = _compose(_inverse(model_poses[joint.child]), model_pose)
    model_joint = _compose(model_poses[joint.child], joint.pose)
    tags = {"revolute": ["axis"], "continuous": ["axis"], "prismatic": ["axis"], "universal": ["axis", "axis2"]}
    for tag in tags.get(kind, []):
        joint.axes.append(_axis(src, element.find(tag), model_joint, model_poses, version, what))
    _read_axis_extras(src, joint, element.find("axis"), what)
    return joint


def _frame(src, element, frame, model_poses, what):
    """The pose in the model frame of the frame named ``frame`` (a link or ``__model__``)."""
    if frame == MODEL_FRAME:
        return IDENTITY
    if frame not in model_poses:
        raise src.error(element, f"{what}unknown frame '{frame}'")
    return model_poses[frame]


def _axis(src, axis, model_joint, model_poses, version, what):
    """The unit axis in the joint frame of an <axis>/<axis2> (spec joint/axis/xyz; default 0 0 1)."""
    if axis is None:
        return np.array([0.0, 0, 1])
    xyz = axis.find("xyz")
    vector = np.array([0.0, 0, 1]) if xyz is None else _text_numbers(src, xyz, 3, what)
    frame = None if xyz is None else xyz.get("expressed_in")
    in_model = _flag(axis, "use_parent_model_frame") if axis.find("use_parent_model_frame") is not None \
        else version < (1, 5)
    if frame is not None or in_model:
        rotation = _frame(src, xyz, frame or MODEL_FRAME, model_poses, what)[1]
        vector = model_joint[1].T @ rotation @ vector
    norm = np.linalg.norm(vector)
    if norm == 0:
        raise src.error(xyz, f"{what}the axis is zero")
    return vector / norm


# ------------------------------------------------------------------------------------ the tree
def _read_model(src, model, version):
    """(links, their poses in the model frame, joints), by name in file order."""
    links, poses = {}, {}
    for element in model.findall("link"):
        link, pose, frame = _read_link(src, element)
        if link.name in links:
            first = links[link.name].element.line
            raise src.error(element, f"duplicate link '{link.name}' (first at line {first})")
        links[link.name], poses[link.name] = link, (pose, frame)
    if not links:
        raise src.error(model, "the model has no <link>")
    model_poses = _model_poses(src, links, poses)
    joints = {}
    for element in model.findall("joint"):
        joint = _read_joint(src, element, links, model_poses, version)
        if joint.name in joints:
            first = joints[joint.name].element.line
            raise src.error(element, f"duplicate joint '{joint.name}' (first at line {first})")
        joints[joint.name] = joint
    return links, model_poses, list(joints.values())


def _spanning_tree(src, links, joints):
    """The root link (the first that is no joint's child, else the ground when a joint hangs from
    ``world``, else the first link); marks as cut each joint whose child is the root or hangs from an
    earlier joint, and checks that every link hangs from the root or the ground."""
    children = {joint.child for joint in joints}
    fallback = WORLD if any(joint.parent == WORLD for joint in joints) else next(iter(links))
    root = next((name for name in links if name not in children), fallback)
    parent_of = {}
    for joint in joints:
        joint.cut = joint.child == root or joint.child in parent_of
        if not joint.cut:
            parent_of[joint.child] = joint
    for name in links:
        seen, link = set(), name
        while link in parent_of and link not in seen:
            seen.add(link)
            link = parent_of[link].parent
        if link not in (root, WORLD):
            joint = parent_of[name]
            raise src.error(joint.element, f"joint '{joint.name}': link '{name}' is not connected to the root link "
                                           f"'{root}'")
    return root


# ------------------------------------------------------------------------------------ the model
def _add_joints(src, model, joints, model_poses, root, floating_base, q0):
    """The root joint, then every joint (cut joints marked), a tree joint with its damper or spring."""
    if root != WORLD:
        model.add_joint(ROOT_JOINT, "free" if floating_base else "weld", "ground", root,
                        parent_frame=model_poses[root])
    for joint in joints:
        kind = JOINT_KINDS[joint.type]
        parent, parent_pose = ("ground", IDENTITY) if joint.parent == WORLD else \
            (joint.parent, _inverse(model_poses[joint.parent]))
        parent_frame = _compose(parent_pose, _compose(model_poses[joint.child], joint.pose))
        options = {"axis": joint.axes[0]} if kind in ("revolute", "prismatic") else \
            {"axes": tuple(joint.axes)} if kind == "universal" else {}
        with src.at(joint.element):
            model.add_joint(joint.name, kind, parent, joint.child, parent_frame=parent_frame,
                            child_frame=joint.pose, cut=joint.cut, q0=q0.get(joint.name), **options)
        if not joint.cut:
            _add_spring_damper(src, model, joint, kind)


def load_sdf(path, floating_base=False, package_dirs=None, loops=True, limits=True):
    """A Model of the first <model> of the SDF file ``path``, its root link welded to the ground or,
    with ``floating_base=True``, joined to it by the free joint ``root_joint``; kinematic loops are
    closed by cut joints, or left open (the spanning tree alone) with ``loops=False``.
    ``package_dirs`` maps model names to folders for ``model://`` mesh uris. ``limits=False`` keeps
    the limits and friction on the model only (not simulated), and every joint at zero."""
    path = Path(path)
    src, folders = _Source(path), _package_dirs(package_dirs)
    element, version = _parse(path)
    links, model_poses, joints = _read_model(src, element, version)
    root = _spanning_tree(src, links, joints)
    if loops and limits:                     # cut joints with limits, friction or dampers trade places
        traded = _trade_cuts({j.child: j for j in joints if not j.cut}, [j for j in joints if j.cut],
                             lambda joint: joint.type != "fixed")
        for joint in joints:
            joint.cut ^= joint.name in traded
    if root == WORLD and floating_base:
        raise src.error(element, "the model hangs from 'world', the ground: there is no base to float "
                                 "(leave floating_base=False)")
    missing = _resolve_meshes(src, links, folders)
    model = Model(element.get("name") or path.stem, gravity=(0.0, 0.0, -9.81))
    corrected = _physical_inertias(src, links, {}, {})
    _add_bodies(src, model, links, root)
    kept = [joint for joint in joints if loops or not joint.cut]
    tree = [j for j in kept if not j.cut]
    _add_joints(src, model, kept, model_poses, root, floating_base,
                _starts_within_limits(src, tree, {}) if limits else {})
    if missing:
        warnings.warn(f"{path}: {len(missing)} mesh file(s) not found, their shapes left out: "
                      f"{', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}", stacklevel=2)
    _limits_and_friction(src, model, tree, [j for j in kept if j.cut], simulated=limits)
    model.corrected_inertias = corrected
    return model
