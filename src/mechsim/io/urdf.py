"""URDF import (SPEC C10): ``load_urdf("robot.urdf")``, also reached as ``ms.load("robot.urdf", ...)``.

URDF is the ROS robot description format (ROS wiki, http://wiki.ros.org/urdf/XML): a ``<robot>``
holds ``<link>``s (urdf/XML/link: inertial, visual and collision elements) joined into a tree by
``<joint>``s (urdf/XML/joint: origin, parent, child, axis, limit, dynamics, mimic). Each link becomes
a body named after it and each joint a joint named after it, so that signals read e.g.
``shoulder_pan_joint.q``:

- a joint's ``<origin xyz rpy>`` is the pose of the joint frame in the parent link frame (F), and the
  child link frame is the joint frame (M = the child's origin); ``<axis xyz>`` (default 1 0 0) is in
  the joint frame; revolute and continuous -> revolute, prismatic -> prismatic, fixed -> weld,
  floating -> free, planar -> planar (normal = axis);
- a link's ``<inertial>``: mass, the COM at ``<origin xyz>`` and the inertia tensor rotated from the
  inertial frame (``<origin rpy>``) into the link frame; a link without one has no mass;
- a link on a fixed joint that carries no mass (or any, with ``merge_fixed=True``) becomes a named
  frame of the link it hangs from, its mass and geometry added to that link's;
- an inertia that no rigid body has (not positive semi-definite, or against the triangle inequality, as
  CAD exports and hand-written files give): a link on a fixed joint joins the link it hangs from as above;
  a moving link's takes in the links fixed to it, and one (or a sum) that still is one is corrected to the
  nearest a rigid body has (modeling/body.py physical_inertia), kept in ``model.corrected_inertias`` (link ->
  (as given, as corrected)); one warning names each link and what was done;
- the root link is the ground when it is named ``world``; any other root link is welded to the
  ground, or joined to it by a free joint ``root_joint`` when ``floating_base=True``; a link named ``ground``
  (mechsim's name for the ground body) fixed to ``world`` is part of the ground, a frame ``ground`` on it;
  one anywhere else is refused;
- links and joints keep their names as written: a link and a joint may share one (SPEC C15);
- ``<dynamics damping>`` -> a ``joint_spring_damper`` ``<joint>_damping`` with no stiffness;
  ``<mimic joint multiplier offset>`` -> a gear ``<joint>_mimic`` holding
  q = multiplier * q_joint + offset (the offset through the mimicking joint's q0);
- loops (URDF itself has none): a ``<joint>`` whose child link already has a parent joint earlier in
  the file closes a loop and becomes a cut joint (``cut=True``), its frame on the child link being
  where its joint frame lies with every joint at zero (so the file shows the loop closed at zero
  coordinates); a floating joint cannot close a loop and is refused. Drake's
  ``<drake:ball_constraint>`` (children ``drake:ball_constraint_body_A``/``_body_B`` with ``name`` and
  ``drake:ball_constraint_p_AP``/``_p_BQ`` with ``value``; Drake's documentation, "Parsing Models for
  Multibody Dynamics") -> a ``point_coincident`` constraint, points on merged links carried over to
  the link they are merged into. Gazebo's extension: a ``<joint name type>`` in a ``<gazebo>`` block
  without ``reference`` is an SDF joint that Gazebo's URDF-to-SDF conversion puts into the model
  (http://sdformat.org/spec, joint; http://gazebosim.org/tutorials?tut=ros_urdf), and becomes a
  cut joint: ``<parent>``/``<child>`` name links in their text, ``<pose>x y z roll pitch yaw</pose>``
  (default identity) is the joint frame in the CHILD link frame (or in the link or ``__model__``
  named by ``relative_to``) and gives its frame M, its frame F on the parent being where that frame
  lies with every tree joint at zero (as for a loop-closing ``<joint>``); ``<axis><xyz>`` (default
  0 0 1) is in the joint frame, or in the model frame (the root link frame at zero) with
  ``<use_parent_model_frame>1</use_parent_model_frame>``; revolute and continuous -> revolute,
  prismatic -> prismatic, ball -> spherical, fixed -> weld, ``<axis><limit>`` and ``<axis><dynamics>``
  as in SDF (io/sdf.py); a parent ``world`` is the ground;
- ``<limit lower upper>`` of a tree joint -> a rigid ``joint_limit`` ``<joint>_limit`` (a joint whose
  zero lies outside its limits starts at the nearest one, with a warning); ``<dynamics friction>``
  -> a ``joint_friction`` ``<joint>_friction`` with static = kinetic = the friction; every limit and
  friction is kept in ``model.urdf_limits`` and ``model.urdf_friction`` (joint name -> values, for
  export), and what is not simulated — effort and velocity limits, the elements of a cut joint — is
  said by a warning;
- a revolute or prismatic loop joint (or <gazebo> joint) with limits, friction or a damper goes into the
  spanning tree, and the other joint of its child link is cut instead, so that its elements act on a
  coordinate (_trade_cuts); when that joint has elements too, the loop joint stays cut;
- ``<visual>``/``<collision>`` geometry (box, cylinder, sphere, mesh) -> the body's ``geometry``: a list
  of dicts with ``kind``, ``role`` ("visual"/"collision"), ``pose`` in the link frame and the
  dimensions; mesh file names (``package://pkg/...`` through ``package_dirs``, ``file://``, or relative
  to the URDF's folder) resolved to paths, a mesh not found left out with a warning.

Every mistake in the file raises one ModelError naming the file, the line and the element, e.g.
``robot.urdf line 42: joint 'elbow': unknown type 'hinge'``.
"""
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree as ET
from xml.parsers import expat

import numpy as np

from ..errors import ModelError
from ..modeling.body import inertia_problem, physical_inertia
from ..modeling.model import Model

JOINT_KINDS = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic",
               "fixed": "weld", "floating": "free", "planar": "planar"}
WORLD = "world"             # a root link of this name is the ground
GROUND = "ground"           # mechsim's ground body: a link of this name must be fixed to the world
ROOT_JOINT = "root_joint"   # the free joint of a floating base (Pinocchio's name for it)
IDENTITY = (np.zeros(3), np.eye(3))


# ------------------------------------------------------------------------------------ the file
class _Element(ET.Element):
    """An XML element that knows the line it starts on."""
    line = 0


@dataclass
class _Source:
    """The URDF file being read; it locates errors by file and line."""
    path: Path

    def error(self, element, message):
        return ModelError(f"{self.path} line {element.line}: {message}")

    @contextmanager
    def at(self, element, hint=""):
        """Prefix a ModelError raised inside the block (by the modeling API) with the element's line, and
        end it with ``hint``."""
        try:
            yield
        except ModelError as exc:
            raise self.error(element, str(exc) + hint) from None


def read_xml(path, what):
    """The root element of the XML file ``path`` (a ``what`` file: "URDF", "SDF"), every element with
    its ``line`` and its text; a ModelError with the line for malformed XML."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"{path}: cannot read the {what} file ({exc.strerror or exc})") from None
    builder = ET.TreeBuilder(element_factory=_Element)
    parser = expat.ParserCreate()

    def start(tag, attributes):
        builder.start(tag, attributes).line = parser.CurrentLineNumber

    parser.StartElementHandler, parser.EndElementHandler = start, builder.end
    parser.CharacterDataHandler = builder.data
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise ModelError(f"{path} line {exc.lineno}: malformed XML ({expat.ErrorString(exc.code)})") from None
    return builder.close()


def _parse(path):
    """The <robot> element of the file, every element with its ``line``."""
    robot = read_xml(path, "URDF")
    if robot.tag != "robot":
        raise _Source(path).error(robot, f"expected a <robot> element, found <{robot.tag}>")
    return robot


def _numbers(src, element, attribute, count, default=None, what=""):
    """``count`` floats from a space-separated attribute (``default`` when it is absent)."""
    text = element.get(attribute)
    if text is None:
        if default is None:
            raise src.error(element, f"{what}<{element.tag}> needs the attribute {attribute}")
        return np.array(default, dtype=float)
    try:
        values = np.array([float(x) for x in text.split()])
    except ValueError:
        values = np.zeros(0)
    if values.size != count or not np.all(np.isfinite(values)):
        raise src.error(element, f"{what}<{element.tag} {attribute}=\"{text}\">: expected {count} finite number(s)")
    return values


def _number(src, element, attribute, default=None, what=""):
    return float(_numbers(src, element, attribute, 1, None if default is None else [default], what)[0])


def _name(src, element):
    name = element.get("name")
    if not name:
        raise src.error(element, f"<{element.tag}> needs a name")
    return name


# ------------------------------------------------------------------------------------ poses
def rpy_matrix(rpy):
    """Rotation of URDF's ``rpy``: roll about x, then pitch about y, then yaw about z, all about the
    fixed axes (urdf/XML/joint, <origin>), i.e. R = Rz(yaw) Ry(pitch) Rx(roll)."""
    (cr, cp, cy), (sr, sp, sy) = np.cos(rpy), np.sin(rpy)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def _origin(src, element, what):
    """(position, rotation) of an element's <origin xyz rpy> (identity when it has none)."""
    origin = element.find("origin")
    if origin is None:
        return IDENTITY
    return (_numbers(src, origin, "xyz", 3, (0, 0, 0), what),
            rpy_matrix(_numbers(src, origin, "rpy", 3, (0, 0, 0), what)))


def _compose(a, b):
    """Pose b given in frame a, as a pose in a's own reference frame."""
    return a[0] + a[1] @ b[0], a[1] @ b[1]


def _plain_pose(pose):
    return {"position": pose[0].tolist(), "rotation": pose[1].tolist()}


# ------------------------------------------------------------------------------------ links
@dataclass(eq=False)
class _Link:
    """A <link>: mass properties in the link frame, geometry, and the frames of links merged into it."""
    name: str
    element: _Element
    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))
    geometry: list = field(default_factory=list)     # (role, pose in link frame, shape dict, element)
    frames: dict = field(default_factory=dict)

    def merge(self, other, pose):
        """Add ``other``'s mass, geometry and frames, and ``other``'s frame as a named frame, ``other``'s frame
        being at ``pose`` in this link's frame; the inertias add about the common COM (parallel-axis
        theorem)."""
        com = pose[0] + pose[1] @ other.com
        inertia = pose[1] @ other.inertia @ pose[1].T
        mass = self.mass + other.mass
        center = (self.mass * self.com + other.mass * com) / mass if mass > 0 else self.com
        self.inertia = (self.inertia + _shifted(self.mass, self.com - center)
                        + inertia + _shifted(other.mass, com - center))
        self.mass, self.com = mass, center
        self.geometry += [(role, _compose(pose, p), shape, e) for role, p, shape, e in other.geometry]
        self.frames.update({name: _compose(pose, p) for name, p in other.frames.items()})
        self.frames[other.name] = pose


def _shifted(mass, d):
    """The inertia a point mass adds at offset d from the center (parallel-axis theorem)."""
    return mass * (d @ d * np.eye(3) - np.outer(d, d))


def _read_link(src, element):
    """A _Link from a <link> element (urdf/XML/link)."""
    name = _name(src, element)
    link = _Link(name, element)
    inertial = element.find("inertial")
    if inertial is not None:
        what = f"link '{name}': "
        mass, tensor = inertial.find("mass"), inertial.find("inertia")
        if mass is None or tensor is None:
            raise src.error(inertial, f"{what}<inertial> needs <mass> and <inertia>")
        link.mass = _number(src, mass, "value", what=what)
        if link.mass < 0:
            raise src.error(mass, f"{what}negative mass {link.mass}")
        ixx, ixy, ixz, iyy, iyz, izz = (_number(src, tensor, key, what=what)
                                        for key in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"))
        position, rotation = _origin(src, inertial, what)
        link.com = position
        link.inertia = rotation @ np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]) @ rotation.T
    for item in element:
        if item.tag in ("visual", "collision"):
            shape = _read_shape(src, item, f"link '{name}' <{item.tag}>: ")
            link.geometry.append((item.tag, _origin(src, item, f"link '{name}': "), shape, item))
    return link


def _read_shape(src, item, what):
    """The shape dict of a <visual>/<collision> element's <geometry> (urdf/XML/link), mesh unresolved."""
    geometry = item.find("geometry")
    shape = None if geometry is None else next(iter(geometry), None)
    if shape is None:
        raise src.error(item, f"{what}needs a <geometry> with a box, cylinder, sphere or mesh")
    if shape.tag == "box":
        return {"kind": "box", "size": _numbers(src, shape, "size", 3, what=what).tolist()}
    if shape.tag == "cylinder":
        return {"kind": "cylinder", "radius": _number(src, shape, "radius", what=what),
                "length": _number(src, shape, "length", what=what)}
    if shape.tag == "sphere":
        return {"kind": "sphere", "radius": _number(src, shape, "radius", what=what)}
    if shape.tag == "mesh":
        filename = shape.get("filename")
        if not filename:
            raise src.error(shape, f"{what}<mesh> needs a filename")
        return {"kind": "mesh", "filename": filename,
                "scale": _numbers(src, shape, "scale", 3, (1, 1, 1), what).tolist()}
    raise src.error(shape, f"{what}unknown geometry <{shape.tag}>; use box, cylinder, sphere or mesh")


# ------------------------------------------------------------------------------------ joints
@dataclass(eq=False)
class _Joint:
    """A <joint> (urdf/XML/joint) with its origin in the parent link frame and its axis in the joint frame."""
    name: str
    element: _Element
    type: str
    parent: str
    child: str
    origin: tuple
    axis: np.ndarray
    damping: float = 0.0
    friction: float = 0.0
    limit: dict = field(default_factory=dict)
    mimic: tuple = None          # (joint, multiplier, offset, element)
    kind: str = None             # the mechsim kind when ``type`` is not a URDF type (a <gazebo> joint)
    stiffness: float = 0.0       # an SDF spring (a <gazebo> joint's <axis><dynamics>)
    rest: float = 0.0


def _read_joint(src, element):
    """A _Joint from a <joint> element."""
    name = _name(src, element)
    what = f"joint '{name}': "
    kind = element.get("type")
    if kind not in JOINT_KINDS:
        raise src.error(element, f"{what}unknown type {kind!r}; URDF joints are {', '.join(JOINT_KINDS)}")
    links = []
    for tag in ("parent", "child"):
        e = element.find(tag)
        if e is None or not e.get("link"):
            raise src.error(element, f"{what}needs <{tag} link=\"...\"/>")
        links.append(e.get("link"))
    axis = element.find("axis")
    joint = _Joint(name, element, kind, *links, _origin(src, element, what),
                   np.array([1.0, 0, 0]) if axis is None else _numbers(src, axis, "xyz", 3, (1, 0, 0), what))
    dynamics = element.find("dynamics")
    if dynamics is not None:
        joint.damping = _number(src, dynamics, "damping", 0.0, what)
        joint.friction = _number(src, dynamics, "friction", 0.0, what)
    limit = element.find("limit")
    if limit is not None:
        keys = ("lower", "upper", "effort", "velocity") if kind in ("revolute", "prismatic") else ("effort", "velocity")
        joint.limit = {key: _number(src, limit, key, what=what) for key in keys if limit.get(key) is not None}
    mimic = element.find("mimic")
    if mimic is not None:
        if not mimic.get("joint"):
            raise src.error(mimic, f"{what}<mimic> needs a joint")
        joint.mimic = (mimic.get("joint"), _number(src, mimic, "multiplier", 1.0, what),
                       _number(src, mimic, "offset", 0.0, what), mimic)
    return joint


# ------------------------------------------------------------------------------------ the tree
def _read_robot(src, robot):
    """(links, tree joints by name, loop joints), in file order; each joint's links exist. A joint whose
    child already has a parent joint (earlier in the file) closes a loop: it is a loop joint."""
    links, joints, parent_of, loops = {}, {}, {}, []
    for element in robot.findall("link"):
        link = _read_link(src, element)
        if link.name in links:
            first = links[link.name].element.line
            raise src.error(element, f"duplicate link '{link.name}' (first at line {first})")
        links[link.name] = link
    if not links:
        raise src.error(robot, "the robot has no <link>")
    for element in robot.findall("joint"):
        joint = _read_joint(src, element)
        if joint.name in joints or joint.name in (j.name for j in loops):
            first = next(j for j in [*joints.values(), *loops] if j.name == joint.name).element.line
            raise src.error(element, f"duplicate joint '{joint.name}' (first at line {first})")
        for role, link in (("parent", joint.parent), ("child", joint.child)):
            if link not in links:
                raise src.error(element.find(role), f"joint '{joint.name}': unknown {role} link '{link}'")
        if joint.child in parent_of:
            if joint.type == "floating":
                first = joints[parent_of[joint.child]]
                raise src.error(element, f"joint '{joint.name}': link '{joint.child}' already has the parent joint "
                                         f"'{first.name}' (line {first.element.line}), and a floating joint cannot "
                                         "close a loop (it constrains nothing); remove it")
            loops.append(joint)
            continue
        joints[joint.name], parent_of[joint.child] = joint, joint.name
    return links, joints, loops


def _tree_order(src, robot, links, joints):
    """(root link, joints from the root outwards); refuses several roots and loops."""
    children = {name: [] for name in links}
    for joint in joints.values():
        children[joint.parent].append(joint)
    roots = [name for name in links if all(j.child != name for j in joints.values())]
    if len(roots) != 1:
        if not roots:
            raise src.error(robot, "the joints form a loop: every link has a parent, none is the root")
        raise src.error(links[roots[1]].element, f"links {', '.join(repr(r) for r in roots)} have no parent joint: "
                                                 "a URDF robot is one tree with one root link")
    order, stack = [], list(reversed(children[roots[0]]))
    while stack:
        joint = stack.pop()
        order.append(joint)
        stack += reversed(children[joint.child])
    if len(order) != len(joints):
        loop = next(j for j in joints.values() if j not in order)
        raise src.error(loop.element, f"joint '{loop.name}' is part of a loop not connected to the root link "
                                      f"'{roots[0]}'")
    return roots[0], order


def _carried(links, order):
    """Link name -> the mass plus the sum of |inertia entries| of the link and of all it carries."""
    carried = {name: link.mass + np.abs(link.inertia).sum() for name, link in links.items()}
    for joint in reversed(order):
        carried[joint.parent] += carried[joint.child]
    return carried


def _check_moving_mass(src, links, order, carried):
    """Refuse a link moved by a joint when neither it nor anything it carries has mass or inertia: its
    motion would have no dynamics (a singular mass matrix)."""
    for joint in order:
        if joint.type != "fixed" and carried[joint.child] == 0:
            link = links[joint.child]
            raise src.error(link.element, f"link '{link.name}' moves on joint '{joint.name}' but neither it nor the "
                                          "links it carries have mass or inertia: give it an <inertial>")


def _unphysical(links):
    """Link name -> why its inertia is no rigid body's (modeling/body.py inertia_problem), for the links it is not."""
    problems = {name: inertia_problem(link.inertia) for name, link in links.items()}
    return {name: problem for name, problem in problems.items() if problem is not None}


def _merge_static(links, order, root, merge):
    """_merge_fixed of the links on fixed joints for which ``merge(joint)`` holds, and for the inertias no rigid body
    has (as Pinocchio merges every fixed link): such a link on a fixed joint joins the link it is fixed to, again
    where their sum still is one; a moving link's (or the root's) takes in the links fixed to it. Returns (links,
    joints, owner, joined: link -> why it joined, took: link -> (why, the links it took in))."""
    joined, took = _unphysical(links), {}
    links, order, owner = _merge_fixed(links, order, root, lambda joint: merge(joint) or (
        joint.type == "fixed" and joint.child in joined))
    while True:
        fixed = {joint.child for joint in order if joint.type == "fixed"}
        carrying = {joint.parent for joint in order if joint.type == "fixed"}
        problems = _unphysical(links)
        up = {name: f"with what joined it, {why}" for name, why in problems.items() if name in fixed}
        heads = {name: why for name, why in problems.items() if name not in fixed and name in carrying}
        if not up and not heads:
            return links, order, owner, joined, took
        taken = {name: [] for name in heads}
        absorbed = {}                                       # link -> the head it goes into

        def merge_now(joint):
            head = absorbed.get(joint.parent, joint.parent if joint.parent in taken else None)
            if joint.type == "fixed" and head is not None and joint.child not in up:
                absorbed[joint.child] = head
                taken[head].append(joint.child)
                return True
            return joint.child in up
        links, order, again = _merge_fixed(links, order, root, merge_now)
        owner = {name: (again[body][0], _compose(again[body][1], pose)) for name, (body, pose) in owner.items()}
        joined.update(up)
        took.update({name: (why, taken[name]) for name, why in heads.items()})


def _physical_inertias(src, links, joined, owner, took=None):
    """Warn once of what was done to the inertias that no rigid body has: a link's that was merged into the link it
    is fixed to (``joined``; ``owner``: link -> (the link it is part of, pose)) joined that one's; a moving link's
    took in the links fixed to it (``took``); a link's that still is one is corrected to the nearest a rigid body
    has (body.py physical_inertia). Returns {link: (its inertia as given, as corrected)} of those corrected."""
    notes = [f"'{name}' ({why}) joined '{owner[name][0]}', the link it is fixed to"
             for name, why in joined.items() if owner[name][0] not in (name, WORLD)]
    notes += [f"'{name}' ({why}) is fixed to the world: left out" for name, why in joined.items()
              if owner[name][0] == WORLD != name]
    notes += [f"'{name}' ({why}) took in the links fixed to it ({', '.join(map(repr, names))})"
              for name, (why, names) in (took or {}).items()]
    corrected = {}
    for link in links.values():
        problem = None if link.name == WORLD else inertia_problem(link.inertia)
        if problem is not None:
            corrected[link.name] = (link.inertia, physical_inertia(link.inertia))
            link.inertia = corrected[link.name][1]
            notes.append(f"'{link.name}' ({problem}) corrected to the nearest inertia a rigid body has (principal "
                         f"moments {np.linalg.eigvalsh(link.inertia).tolist()})")
    if notes:
        warnings.warn(f"{src.path}: {len(notes)} link inertia(s) that no rigid body has: {'; '.join(notes)}",
                      stacklevel=3)
    return corrected


def _merge_fixed(links, order, root, merge):
    """Fold each link attached by a fixed joint for which ``merge(joint)`` holds into the link it hangs
    from: (links, joints, owner), the joints re-based on the links they now hang from, ``owner`` mapping
    every link name to (the link it now is part of, its pose in that link)."""
    links = dict(links)
    owner = {root: (root, IDENTITY)}      # link -> (link it was merged into, pose of the link in that one)
    kept = []
    for joint in order:
        body, pose = owner[joint.parent]
        origin = _compose(pose, joint.origin)
        if merge(joint):
            links[body].merge(links.pop(joint.child), origin)
            owner[joint.child] = (body, origin)
        else:
            kept.append(_Joint(**{**vars(joint), "parent": body, "origin": origin}))
            owner[joint.child] = (joint.child, IDENTITY)
    return links, kept, owner


# ------------------------------------------------------------------------------------ meshes
def _resolve_meshes(src, links, package_dirs):
    """Replace each mesh's filename by a resolved ``path``; drop the meshes not found, named in one
    warning. ``package://pkg/rest`` -> package_dirs[pkg]/rest, ``file://p`` -> p, else relative to the
    URDF file's folder."""
    missing = []
    for link in links.values():
        kept = []
        for role, pose, shape, element in link.geometry:
            if shape["kind"] == "mesh":
                path = _mesh_path(shape["filename"], src.path.parent, package_dirs)
                if path is None or not path.is_file():
                    missing.append(f"{shape['filename']} (line {element.line})")
                    continue
                shape = {"kind": "mesh", "path": str(path), "scale": shape["scale"]}
            kept.append((role, pose, shape, element))
        link.geometry = kept
    return missing


def _mesh_path(filename, folder, package_dirs):
    if filename.startswith("package://"):
        package, _, rest = filename[len("package://"):].partition("/")
        return Path(package_dirs[package], rest) if package in package_dirs else None
    if filename.startswith("file://"):
        return Path(filename[len("file://"):])
    return folder / filename


def _package_dirs(package_dirs):
    if package_dirs is None:
        return {}
    if not isinstance(package_dirs, dict) or not all(isinstance(k, str) for k in package_dirs):
        raise ModelError(f"package_dirs must map package names to folders, e.g. {{'my_robot': 'path/to/it'}}, "
                         f"got {package_dirs!r}")
    return {name: Path(folder) for name, folder in package_dirs.items()}


# ------------------------------------------------------------------------------------ the model
def _add_bodies(src, model, links, root):
    """A body per link; a ``world`` root is the ground, which takes the frames of the links merged into
    it but no mass or geometry."""
    for link in links.values():
        if link.name == root == WORLD:
            with src.at(link.element):
                for name, pose in link.frames.items():
                    model.add_frame("ground", name, pose)
            if link.geometry:
                warnings.warn(f"{src.path}: the ground takes no geometry: the shapes of 'world' and of the links "
                              "fixed to it are left out", stacklevel=4)
            continue
        if link.name == GROUND:
            raise src.error(link.element, "the link 'ground' has mechsim's name for the ground body: load it fixed to "
                                          "a root link 'world' (it is then part of the ground), or rename the link")
        geometry = [{"role": role, "pose": _plain_pose(pose), **shape} for role, pose, shape, _ in link.geometry]
        inertial = link.element.find("inertial")
        with src.at(link.element if inertial is None else inertial):
            model.add_body(link.name, mass=link.mass, com=link.com, inertia=link.inertia,
                           frames=dict(link.frames) or None, geometry=geometry or None)


def _add_joints(src, model, links, joints, root, floating_base, q0, cut):
    """The root joint, then every tree joint with its damper; the joints named in ``cut`` are cut joints
    (tree joints that traded places with a loop joint, _trade_cuts)."""
    if root != WORLD:
        with src.at(links[root].element):
            model.add_joint(ROOT_JOINT, "free" if floating_base else "weld", "ground", root)
    for joint in joints:
        _add_joint(src, model, joint, _body(joint.parent, root), joint.child, q0, parent_frame=joint.origin,
                   cut=joint.name in cut)


def _add_joint(src, model, joint, parent, child, q0, cut, **frames):
    """One joint (``frames``: its parent_frame, and child_frame for a loop joint) and, unless it is cut,
    its damper or spring."""
    kind = _kind(joint)
    options = {"normal": joint.axis} if kind == "planar" else \
        {"axis": joint.axis} if kind in ("revolute", "prismatic") else {}
    with src.at(joint.element):
        model.add_joint(joint.name, kind, parent, child, q0=q0.get(joint.name), cut=cut, **frames, **options)
    if not cut:
        _add_spring_damper(src, model, joint, kind)


def _kind(joint):
    return joint.kind or JOINT_KINDS[joint.type]


def _part(joint, tag):
    """The joint's element ``tag`` (URDF: a child; SDF: under <axis>), where an error in it is reported."""
    element = joint.element.find(f".//{tag}")
    return joint.element if element is None else element


def _add_spring_damper(src, model, joint, kind):
    """A joint_spring_damper '<joint>_damping' (damping alone) or '<joint>_spring' (with a stiffness about
    the rest position) of a tree joint without quaternion coordinates (also io/sdf.py's)."""
    if (joint.damping or joint.stiffness) and kind in ("revolute", "prismatic", "planar"):
        with src.at(_part(joint, "dynamics")):
            model.add_force(f"{joint.name}_{'spring' if joint.stiffness else 'damping'}", "joint_spring_damper",
                            joint=joint.name, stiffness=joint.stiffness, damping=joint.damping, rest=joint.rest)


def _body(link, root):
    """The body a (kept) link became: the ground for a root named world."""
    return "ground" if link == root == WORLD else link


# ------------------------------------------------------------------------------------ loops
def _inverse(pose):
    return -pose[1].T @ pose[0], pose[1].T


def _zero_poses(order, root):
    """Link name -> pose of the link frame in the root link frame with every joint at zero: the
    composed <origin>s of the joints from the root (urdf/XML/joint)."""
    poses = {root: IDENTITY}
    for joint in order:
        poses[joint.child] = _compose(poses[joint.parent], joint.origin)
    return poses


def _moved(poses, pose, start, end):
    """``pose`` given in the frame of link ``start``, expressed in the frame of link ``end``, every
    joint at zero (``poses``: _zero_poses)."""
    return _compose(_inverse(poses[end]), _compose(poses[start], pose))


def _add_loop_joint(src, model, joint, on_parent, on_child, owner, root, q0, traded):
    """The loop joint ``joint`` with its frames ``on_parent`` and ``on_child`` in its parent's and
    child's link frames, carried over to the links these are merged into: a cut joint, or a tree joint
    when it is in ``traded`` (_trade_cuts)."""
    (parent, at_parent), (child, at_child) = owner[joint.parent], owner[joint.child]
    _add_joint(src, model, joint, _body(parent, root), _body(child, root), q0, cut=joint.name not in traded,
               parent_frame=_compose(at_parent, on_parent), child_frame=_compose(at_child, on_child))


def _loop_frames(src, loops, poses, root):
    """(joint, frame on the parent link, frame on the child link) per loop joint. Its joint frame F is
    placed by <origin> on the parent link, as for any joint. Its child link already has its frame from
    the tree, so the frame M the joint carries on the child is where F lies on the child with every
    joint at zero: the file must show the loop closed at zero joint coordinates, as CAD exporters write
    it."""
    for joint in loops:
        if joint.parent not in poses or joint.child not in poses:
            raise src.error(joint.element, f"joint '{joint.name}' closes a loop with a link not connected to the "
                                           f"root link '{root}'")
    return [(joint, joint.origin, _moved(poses, joint.origin, joint.parent, joint.child)) for joint in loops]


def _carries_elements(joint):
    """Whether the joint's <limit> bounds, friction, damping or spring become force elements. These act on
    a joint's coordinates, which only tree joints have."""
    return bool({"lower", "upper"} & set(joint.limit) or joint.friction or joint.damping or joint.stiffness)


def _trade_cuts(parent_of, loops, movable):
    """Names of the loop joints that trade places with a tree joint, and of those tree joints. A loop
    joint whose child link already hangs from a tree joint closes the loop at that link; either of the two
    may be the cut joint. A revolute or prismatic loop joint with force elements (_carries_elements) whose
    zero lies within its limits goes into the tree, and the child's tree joint is cut instead, when that
    one carries none, ``movable(joint)`` holds for it and the loop joint's parent does not hang from
    the child. ``parent_of``: link -> its tree joint, updated."""
    traded = set()
    for loop in loops:
        tree = parent_of.get(loop.child)
        lower, upper = loop.limit.get("lower", 0.0), loop.limit.get("upper", 0.0)
        if tree is None or _kind(loop) not in ("revolute", "prismatic") or not _carries_elements(loop) or \
                not lower <= 0.0 <= upper or _carries_elements(tree) or not movable(tree) or \
                _hangs_from(loop.parent, loop.child, parent_of):
            continue
        parent_of[loop.child] = loop
        traded |= {loop.name, tree.name}
    return traded


def _hangs_from(link, ancestor, parent_of):
    """Whether ``link`` is ``ancestor`` or hangs from it in the tree."""
    seen = set()
    while link not in seen:
        if link == ancestor:
            return True
        seen.add(link)
        joint = parent_of.get(link)
        if joint is None:
            return False
        link = joint.parent
    return False


# ------------------------------------------------------------------------------------ <gazebo> joints
MODEL_FRAME = "__model__"     # SDF's name of the model frame (relative_to)
GAZEBO_KINDS = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic", "ball": "spherical",
                "fixed": "weld"}


def _text_numbers(src, element, count, what):
    """``count`` floats from an element's text (SDF style, also io/sdf.py's)."""
    text = element.text or ""
    try:
        values = np.array([float(x) for x in text.split()])
    except ValueError:
        values = np.zeros(0)
    if values.size != count or not np.all(np.isfinite(values)):
        raise src.error(element, f"{what}<{element.tag}>{text.strip()}</{element.tag}>: expected {count} "
                                 "finite number(s)")
    return values


def _value(src, parent, tag, default, what, count=1):
    """The number(s) of the child element ``tag`` of ``parent``, ``default`` when it is absent."""
    element = parent.find(tag)
    if element is None:
        return default
    values = _text_numbers(src, element, count, what)
    return float(values[0]) if count == 1 else values


def _read_axis_extras(src, joint, axis, what):
    """An SDF joint's damping, spring and friction from <axis><dynamics>, its limits from <axis><limit>."""
    if axis is None:
        return
    dynamics = axis.find("dynamics")
    if dynamics is not None:
        joint.damping = _value(src, dynamics, "damping", 0.0, what)
        joint.stiffness = _value(src, dynamics, "spring_stiffness", 0.0, what)
        joint.rest = _value(src, dynamics, "spring_reference", 0.0, what)
        joint.friction = _value(src, dynamics, "friction", 0.0, what)
    limit = axis.find("limit")
    if limit is not None:
        joint.limit = {key: _value(src, limit, key, None, what) for key in ("lower", "upper", "effort", "velocity")
                       if limit.find(key) is not None}


def _sdf_pose(src, element, what):
    """(pose, the frame it is relative to or None) of an element's SDF <pose> (x y z roll pitch yaw)."""
    pose = element.find("pose")
    if pose is None:
        return IDENTITY, None
    values = _text_numbers(src, pose, 6, what)
    frame = pose.get("relative_to") or pose.get("frame") or None      # "frame": SDF 1.5/1.6
    return (values[:3], rpy_matrix(values[3:])), frame


def _flag(element, tag):
    """An SDF boolean child element (spec: "1"/"true")."""
    child = element.find(tag)
    return child is not None and (child.text or "").strip() in ("1", "true")


def _gazebo_joints(src, robot, poses, root):
    """(_Joint, frame on the parent link, frame on the child link) per SDF <joint> of the <gazebo>
    blocks without ``reference`` (the model-level blocks Gazebo copies into the SDF model). A parent
    ``world`` not among the links is the ground, whose frame is the root link's with every joint at
    zero."""
    poses = dict(poses)
    poses.setdefault(WORLD, IDENTITY)
    joints = []
    for block in robot.findall("gazebo"):
        if block.get("reference"):
            continue
        for element in block.findall("joint"):
            name = _name(src, element)
            what = f"<gazebo> joint '{name}': "
            kind = element.get("type")
            if kind not in GAZEBO_KINDS:
                raise src.error(element, f"{what}unknown type {kind!r}; the <gazebo> joints read are "
                                         f"{', '.join(GAZEBO_KINDS)}")
            ends = []
            for tag in ("parent", "child"):
                e = element.find(tag)
                link = None if e is None else (e.text or "").strip()
                if not link:
                    raise src.error(element, f"{what}needs <{tag}>link name</{tag}>")
                if link not in poses or (tag == "child" and link == WORLD and root != WORLD):
                    raise src.error(e, f"{what}unknown {tag} link '{link}'")
                ends.append(link)
            parent, child = ends
            pose, frame = _sdf_pose(src, element, what)
            frame = frame or child
            if frame not in poses and frame != MODEL_FRAME:
                raise src.error(element.find("pose"), f"{what}<pose> is relative to the unknown frame '{frame}'")
            on_child = _moved({**poses, MODEL_FRAME: IDENTITY}, pose, frame, child)
            joint_frame = _compose(poses[child], on_child)        # in the root link frame, all joints at zero
            axis, xyz = element.find("axis"), None
            vector = np.array([0.0, 0, 1])
            if axis is not None and axis.find("xyz") is not None:
                xyz = axis.find("xyz")
                vector = _text_numbers(src, xyz, 3, what)
                if _flag(axis, "use_parent_model_frame"):
                    vector = joint_frame[1].T @ vector
            joint = _Joint(name, element, kind, parent, child, IDENTITY, vector, kind=GAZEBO_KINDS[kind])
            _read_axis_extras(src, joint, axis, what)
            joints.append((joint, _moved(poses, on_child, child, parent), on_child))
    return joints


def _add_loop_joints(src, model, loops, owner, root, q0, traded):
    """Each loop joint and <gazebo> joint (``loops``: _loop_frames, _gazebo_joints); a parent ``world``
    is the ground."""
    owner = {WORLD: ("ground", IDENTITY), **owner}
    for joint, on_parent, on_child in loops:
        with src.at(joint.element):
            if joint.name in model.joints:
                raise ModelError(f"<gazebo> joint '{joint.name}': the robot has a joint of that name already")
        _add_loop_joint(src, model, joint, on_parent, on_child, owner, root, q0, traded)


BALL = "drake:ball_constraint"


def _add_ball_constraints(src, model, robot, owner, root):
    """A point_coincident constraint per <drake:ball_constraint> (Drake's URDF extension, documented in
    Drake's "Parsing Models for Multibody Dynamics", tag drake:ball_constraint: the point P at
    <drake:ball_constraint_p_AP value="x y z"/> on the link <drake:ball_constraint_body_A name=".."/>
    coincides with the point Q at p_BQ on body_B). Named by its ``name`` attribute (a mechsim
    addition) or ``ball_constraint_<k>``; a point on a link merged into another is carried over."""
    for k, element in enumerate((e for e in robot if e.tag == BALL), 1):
        name = element.get("name") or f"ball_constraint_{k}"
        ends = {}
        for side, point in (("A", "p_AP"), ("B", "p_BQ")):
            body_tag, point_tag = f"{BALL}_body_{side}", f"{BALL}_{point}"
            body, at = element.find(body_tag), element.find(point_tag)
            if body is None or at is None:
                raise src.error(element, f"<{BALL}> '{name}' needs <{body_tag} name=\"...\"/> and "
                                         f"<{point_tag} value=\"x y z\"/>")
            link = body.get("name")
            if link not in owner:
                raise src.error(body, f"<{BALL}> '{name}': unknown link {link!r}")
            target, pose = owner[link]
            position = _numbers(src, at, "value", 3, what=f"<{BALL}> '{name}': ")
            ends[side] = (_body(target, root), pose[0] + pose[1] @ position)
        with src.at(element):
            model.add_constraint(name, "point_coincident", body_a=ends["A"][0], point_a=ends["A"][1],
                                 body_b=ends["B"][0], point_b=ends["B"][1])


def _mimic_q0(src, joints):
    """q0 of each mimicking joint: multiplier * (its source's q0) + offset, so that the gear, which holds
    q - multiplier * q_source at its value in q0, holds the offset (the other joints start at 0)."""
    by_name, q0 = {joint.name: joint for joint in joints}, {}

    def value(joint, seen):
        if joint.mimic is None:
            return 0.0
        source, multiplier, offset, element = joint.mimic
        if joint.name in seen:
            raise src.error(element, f"joint '{joint.name}': the mimic joints {sorted(seen)} follow each other "
                                     "in a loop")
        if source not in by_name:
            raise src.error(element, f"joint '{joint.name}': <mimic> names the unknown joint '{source}'")
        q0[joint.name] = multiplier * value(by_name[source], seen | {joint.name}) + offset
        return q0[joint.name]

    for joint in joints:
        value(joint, set())
    return q0


def _add_mimics(src, model, joints):
    for joint in joints:
        if joint.mimic is not None:
            source, multiplier, _, element = joint.mimic
            with src.at(element):
                model.add_constraint(f"{joint.name}_mimic", "gear", joints=(joint.name, source), ratio=multiplier)


def _limits_and_friction(src, model, tree, loops, simulated=True):
    """A tree joint's <limit lower upper> -> a rigid joint_limit '<joint>_limit' (restitution 0), its
    friction -> a joint_friction '<joint>_friction' (static = kinetic = friction). Every <limit> and
    friction is also kept in model.urdf_limits / urdf_friction (for export); what is not simulated —
    effort and velocity limits, the limits, friction, damping and springs of cut joints (see _trade_cuts),
    friction on joints of several coordinates, and with ``simulated=False`` every limit and friction — is
    said by a warning (also io/sdf.py's)."""
    model.urdf_limits = {joint.name: joint.limit for joint in tree + loops if joint.limit}
    model.urdf_friction = {joint.name: joint.friction for joint in tree + loops if joint.friction}
    one_coordinate = [joint for joint in tree if _kind(joint) in ("revolute", "prismatic")]
    for joint in tree if simulated else []:
        stops = {key: joint.limit[key] for key in ("lower", "upper") if key in joint.limit}
        if stops and not ("lower" in stops and "upper" in stops and stops["lower"] >= stops["upper"]):
            with src.at(_part(joint, "limit")):
                model.add_force(f"{joint.name}_limit", "joint_limit", joint=joint.name, **stops)
        if joint.friction and joint in one_coordinate:
            with src.at(_part(joint, "dynamics")):
                model.add_force(f"{joint.name}_friction", "joint_friction", joint=joint.name,
                                static=joint.friction, kinetic=joint.friction)
    rates = [joint.name for joint in tree + loops if {"effort", "velocity"} & set(joint.limit)]
    kept = [joint.name for joint in tree if (not simulated and {"lower", "upper"} & set(joint.limit)) or
            (joint.friction and (not simulated or joint not in one_coordinate))]
    cut = [joint.name for joint in loops if _carries_elements(joint)]
    said = [f"the effort and velocity limits of {len(rates)} joint(s)"] if rates else []
    said += [f"the limits and friction of {len(kept)} joint(s) ({', '.join(kept)})"] if kept else []
    said += [f"the limits, friction, damping and springs of {len(cut)} cut joint(s) ({', '.join(cut)})"] if cut \
        else []
    if said:
        warnings.warn(f"{src.path}: {' and '.join(said)} are kept in model.urdf_limits and model.urdf_friction, "
                      "not simulated", stacklevel=4)


def _starts_within_limits(src, joints, q0):
    """q0 (joint name -> value) with the joints whose zero lies outside their limits moved to the limit
    nearest to it, which a warning says."""
    moved = {}
    for joint in joints:
        lower, upper = joint.limit.get("lower"), joint.limit.get("upper")
        if joint.name not in q0 and lower is not None and upper is not None and lower < upper and \
                not lower <= 0.0 <= upper:
            moved[joint.name] = min(max(0.0, lower), upper)
    if moved:
        warnings.warn(f"{src.path}: {len(moved)} joint(s) start at the limit nearest to their zero, which lies "
                      f"outside their limits: {', '.join(f'{k} = {v:g}' for k, v in moved.items())} "
                      "(limits=False keeps the file's pose)", stacklevel=4)
    return {**q0, **moved}


def load_urdf(path, floating_base=False, package_dirs=None, merge_fixed=False, mimic=True, limits=True):
    """A Model of the robot in the URDF file ``path``, the root link welded to the ground or, with
    ``floating_base=True``, joined to it by the free joint ``root_joint``. ``package_dirs`` maps
    package names to folders for ``package://`` mesh names. A link on a fixed joint becomes a named
    frame of its parent, its mass, inertia and geometry added to the parent's, when it and all it
    carries are massless, and with ``merge_fixed=True`` always (as Pinocchio does). ``mimic=False``
    ignores <mimic> (the joints move independently, as in Pinocchio's default). ``limits=False`` keeps
    <limit> and friction on the model only (not simulated), and every joint at zero."""
    path = Path(path)
    src, folders = _Source(path), _package_dirs(package_dirs)
    robot = _parse(path)
    links, joints, loops = _read_robot(src, robot)
    root, order = _tree_order(src, robot, links, joints)
    poses = _zero_poses(order, root)
    gazebo = _gazebo_joints(src, robot, poses, root)
    if root == WORLD and floating_base:
        raise src.error(links[root].element, "the root link 'world' is the ground: there is no base to float "
                                              "(leave floating_base=False)")
    carried = _carried(links, order)
    _check_moving_mass(src, links, order, carried)
    loops = _loop_frames(src, loops, poses, root) + gazebo
    loop_joints = [joint for joint, _, _ in loops]
    geared = {name for joint in order + loop_joints if joint.mimic for name in (joint.name, joint.mimic[0])}
    traded = _trade_cuts({joint.child: joint for joint in order}, loop_joints, lambda joint: (
        joint.type != "fixed" and joint.name not in geared)) if limits else set()
    # massless links on fixed joints are frames (the kernels take no massless leaf body), and links whose inertia no
    # rigid body has join the links they are fixed to (as Pinocchio merges every fixed link)
    links, order, owner, joined, took = _merge_static(links, order, root, lambda joint: joint.type == "fixed" and (
        merge_fixed or carried[joint.child] == 0 or joint.child == GROUND and joint.parent == root == WORLD))
    corrected = _physical_inertias(src, links, joined, owner, took)
    tree = [joint for joint in order + loop_joints if (joint in loop_joints) == (joint.name in traded)]
    missing = _resolve_meshes(src, links, folders)
    model = Model(robot.get("name") or path.stem, gravity=(0.0, 0.0, -9.81))
    _add_bodies(src, model, links, root)
    q0 = _mimic_q0(src, order + loop_joints) if mimic else {}
    q0 = _starts_within_limits(src, [joint for joint in order if joint.name not in traded], q0) if limits else q0
    _add_joints(src, model, links, order, root, floating_base, q0, traded)
    _add_loop_joints(src, model, loops, owner, root, q0, traded)
    _add_ball_constraints(src, model, robot, owner, root)
    if mimic:
        _add_mimics(src, model, order + loop_joints)
    if missing:
        warnings.warn(f"{path}: {len(missing)} mesh file(s) not found, their shapes left out: "
                      f"{', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}", stacklevel=3)
    _limits_and_friction(src, model, tree, [joint for joint in order + loop_joints if joint not in tree],
                         simulated=limits)
    model.corrected_inertias = corrected
    return model
