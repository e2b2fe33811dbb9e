"""MJCF import through MuJoCo (SPEC C10): ``load_mjcf("robot.xml")``.

The file is compiled by MuJoCo itself (``mujoco.MjModel.from_xml_path``), so that its defaults
classes, ``<include>``s and ``<compiler>`` settings (angle units, ``inertiafromgeom``, ...) are
honoured exactly; the importer then reads the compiled ``mjModel`` arrays (MuJoCo documentation,
API reference, "mjModel"). The mapping:

- body ``i`` (``body_pos``, ``body_quat``: its frame in its parent's frame at ``qpos0``) -> a body of
  the same name (unnamed: ``body<i>``); the world body is the ground. Mass properties: ``body_mass``,
  the COM at ``body_ipos`` and the principal moments ``body_inertia`` about the axes ``body_iquat``,
  rotated into the body frame;
- the joints of a body (``body_jntnum`` from ``body_jntadr``), each named after its MuJoCo joint
  (unnamed: ``joint<j>``): hinge -> revolute, slide -> prismatic, ball -> spherical, free -> free.
  MuJoCo places a joint at ``jnt_pos`` on the ``jnt_axis`` of the child body frame and measures
  hinge and slide positions from ``qpos0`` (the ``ref`` attribute); the joint frames are built so
  that mechsim's q equals MuJoCo's qpos (q0 = qpos0 puts the body at its ``body_pos``/``body_quat``).
  A body with several joints composes them in order, each in the frame moved by the ones before
  (XML reference, "body/joint"): it becomes a chain of massless bodies ``<body>__<joint>`` carrying
  those frames, so that every joint keeps its name, anchor and reference;
- a body without joints is welded to its parent by ``<body>_weld``;
- a free joint holds the body's world pose in qpos and [world linear velocity, local angular
  velocity] in qvel (XML reference, "joint/freejoint"); mechsim's free joint from the ground with
  identity frames has the same coordinates (SPEC §2), as the ball joint has MuJoCo's
  quaternion (w, x, y, z) and local angular velocity. Free joints are taken on top-level bodies only;
- ``floating_base``: None keeps the file's joints; True gives every top-level body without joints
  the free joint ``<body>_root``; False welds the top-level free-jointed bodies at their qpos0 pose;
- ``dof_damping`` and ``jnt_stiffness`` (rest ``qpos_spring``) of hinges and slides ->
  ``joint_spring_damper`` ``<joint>_spring_damper`` (as the fixed tendons' below: without stiffness when the spring
  flag is off, without damping when the damper flag is);
- ``opt.gravity`` (zero when the gravity flag is disabled) -> the model's gravity;
- geoms (``geom_type``, ``geom_size``, ``geom_pos``/``geom_quat`` in the body frame) -> the body's
  ``geometry`` with role "visual": box (full ``size``), sphere, capsule and cylinder (``radius``,
  full ``length`` of the cylindrical part), ellipsoid (``radii``), mesh (the compiled mesh's ``vertices`` and ``faces``, modeling/geometry.py);
  planes, height fields and the world body's geoms are left out (the ground takes no geometry);
- active equalities (``eq_active0``; none when the equality or constraint flag is off): connect ->
  ``point_coincident`` at the two anchors MuJoCo
  computed (``eq_data[0:3]`` in body1, ``eq_data[3:6]`` in body2); weld -> a cut ``weld`` joint from
  body1 to body2 at ``relpose`` (``eq_data[3:10]``, body2's pose in body1's frame); joint and tendon
  (y - y0 = a0 + a1 (x - x0) + ... + a4 (x - x0)^4, y and x the joint positions or fixed tendons' lengths, y0 and
  x0 their values at qpos0) -> ``polynomial_coupling`` with polycoef ``eq_data[0:5]``, y's first joint's q0 moved
  by a0 (over its coefficient) so that q0 satisfies it; named after the equality (unnamed: ``equality<k>``).
  Site-based connect and weld, tendon equalities on spatial tendons, distance and flex equalities raise ModelError;
- fixed tendons (length sum coef qpos over hinges and slides) with stiffness or damping -> ``fixed_tendon`` named
  after the tendon (unnamed: ``tendon<t>``), its rest length or dead band ``tendon_lengthspring``;
- ``<option density viscosity wind>`` -> ``fluid_drag`` "fluid", MuJoCo's inertia-box model, on the bodies of
  mass >= mjMINVAL without geoms of fluidshape="ellipsoid", their principal axes ``body_iquat``.

Not simulated, named in one warning: the ellipsoid fluid model (fluidshape="ellipsoid"), spatial tendons,
actuators, sensors, the contacts of colliding geoms (unless the contact flag is off), and, kept in
``model.mjcf_unsimulated`` (joint name -> values), armature (rotor inertia, which mechsim's joints do not
have: adding it to a body's inertia would be wrong), joint limits, ``frictionloss``, polynomial stiffness and
damping (``jnt_stiffnesspoly``, ``dof_dampingpoly``), and ball/free joint damping and stiffness; kept in
``model.mjcf_unsimulated_tendons`` (fixed tendon name -> values), tendon limits (MuJoCo's soft constraints,
which mechsim's rigid stops do not reproduce exactly), frictionloss, armature, polynomial stiffness and
damping, springyield.

Every failure raises one ModelError naming the file; MuJoCo's own compiler message is included.
"""
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ..errors import ModelError
from ..modeling.model import Model
from ..spatial.rotations import quat_to_matrix

KINDS = {"mjJNT_HINGE": "revolute", "mjJNT_SLIDE": "prismatic", "mjJNT_BALL": "spherical", "mjJNT_FREE": "free"}
IDENTITY = (np.zeros(3), np.eye(3))


# ------------------------------------------------------------------------------------ the file
def _mujoco():
    """The mujoco module, or a ModelError saying how to install it."""
    try:
        import mujoco
    except ImportError:
        raise ModelError("reading MJCF files needs MuJoCo's Python bindings: pip install mujoco") from None
    return mujoco


class _Source:
    """The compiled MJCF file: its path, the mujoco module and the mjModel."""

    def __init__(self, path):
        self.path, self.mujoco = Path(path), _mujoco()
        try:
            self.mj = self.mujoco.MjModel.from_xml_path(str(self.path))
        except ValueError as exc:
            raise ModelError(f"{self.path}: MuJoCo cannot load the MJCF file: {exc}") from None

    def error(self, message):
        return ModelError(f"{self.path}: {message}")

    @contextmanager
    def at(self, what):
        """Prefix a ModelError raised inside the block (by the modeling API) with the file and ``what``."""
        try:
            yield
        except ModelError as exc:
            raise self.error(f"{what}: {exc}") from None

    def name(self, kind, i, prefix):
        """The element's name (``mj_id2name``), or ``<prefix><i>`` for an unnamed one."""
        obj = getattr(self.mujoco.mjtObj, f"mjOBJ_{kind}")
        return self.mujoco.mj_id2name(self.mj, obj, i) or f"{prefix}{i}"

    def body(self, i):
        return "ground" if i == 0 else self.name("BODY", i, "body")

    def joint(self, j):
        return self.name("JOINT", j, "joint")

    def tendon(self, t):
        return self.name("TENDON", t, "tendon")

    def disabled(self, flag):
        """Whether <option><flag> disables ``flag`` (mjtDisableBit without its mjDSBL_ prefix, e.g. "GRAVITY")."""
        return bool(self.mj.opt.disableflags & int(getattr(self.mujoco.mjtDisableBit, f"mjDSBL_{flag}")))

    def enum(self, kind, value):
        """The enum name of a code, e.g. enum("mjtJoint", 3) -> "mjJNT_HINGE"."""
        return getattr(self.mujoco, kind)(int(value)).name


def _pose(position, quat):
    """(position, rotation matrix) from MuJoCo's position and (w, x, y, z) quaternion."""
    return np.array(position, dtype=float), quat_to_matrix(quat)


def _compose(a, b):
    """Pose b given in frame a, as a pose in a's own reference frame."""
    return a[0] + a[1] @ b[0], a[1] @ b[1]


def _plain(pose):
    return pose[0].tolist(), pose[1].tolist()


def _axis_rotation(axis, angle):
    """Rotation by ``angle`` about the unit vector ``axis`` (Rodrigues)."""
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


# ------------------------------------------------------------------------------------ bodies
def _inertia(mj, i):
    """Inertia tensor about the COM in body axes from ``body_inertia`` (principal moments about the
    ``body_iquat`` axes)."""
    R = quat_to_matrix(mj.body_iquat[i])
    return R @ np.diag(mj.body_inertia[i]) @ R.T


def _shape(src, g):
    """The geometry dict of geom ``g`` (mjModel geom_type/geom_size), or None for a plane, height field
    or other non-solid."""
    size, kind = src.mj.geom_size[g], src.enum("mjtGeom", src.mj.geom_type[g])
    if kind == "mjGEOM_BOX":
        return {"kind": "box", "size": (2 * size).tolist()}
    if kind == "mjGEOM_SPHERE":
        return {"kind": "sphere", "radius": float(size[0])}
    if kind in ("mjGEOM_CAPSULE", "mjGEOM_CYLINDER"):
        return {"kind": kind[7:].lower(), "radius": float(size[0]), "length": float(2 * size[1])}
    if kind == "mjGEOM_ELLIPSOID":
        return {"kind": "ellipsoid", "radii": size.tolist()}
    if kind == "mjGEOM_MESH":       # the compiled mesh, in the frame MuJoCo moved it to (geom_pos, geom_quat)
        mj, k = src.mj, int(src.mj.geom_dataid[g])
        vertices = mj.mesh_vert[mj.mesh_vertadr[k]:mj.mesh_vertadr[k] + mj.mesh_vertnum[k]]
        faces = mj.mesh_face[mj.mesh_faceadr[k]:mj.mesh_faceadr[k] + mj.mesh_facenum[k]]
        return {"kind": "mesh", "vertices": vertices.astype(float), "faces": faces.astype(np.int64)}
    return None


def _geometry(src, i):
    """The visual shapes of body ``i``, posed in the body frame (geom_pos, geom_quat)."""
    shapes = []
    for g in np.flatnonzero(src.mj.geom_bodyid == i):
        shape = _shape(src, g)
        if shape is not None:
            position, rotation = _plain(_pose(src.mj.geom_pos[g], src.mj.geom_quat[g]))
            shapes.append({**shape, "role": "visual", "pose": {"position": position, "rotation": rotation}})
    return shapes or None


def _add_body(src, model, i):
    mj, name = src.mj, src.body(i)
    with src.at(f"body '{name}'"):
        model.add_body(name, mass=float(mj.body_mass[i]), com=mj.body_ipos[i].copy(), inertia=_inertia(mj, i),
                       geometry=_geometry(src, i))


# ------------------------------------------------------------------------------------ joints
def _joint_frames(src, j):
    """(F in the previous frame, M in the moved frame, q0) of hinge or slide ``j`` such that mechsim's
    q = MuJoCo's qpos: MuJoCo moves the body by qpos - qpos0 about/along the axis through jnt_pos."""
    mj = src.mj
    anchor, axis, ref = mj.jnt_pos[j].copy(), mj.jnt_axis[j].copy(), float(mj.qpos0[mj.jnt_qposadr[j]])
    if src.enum("mjtJoint", mj.jnt_type[j]) == "mjJNT_HINGE":
        parent = (anchor, _axis_rotation(axis, -ref))
    else:
        parent = (anchor - ref * axis, np.eye(3))
    return parent, (anchor, np.eye(3)), ref


def _free_joint(src, model, i, j, name, floating_base):
    """A top-level body's free joint from the ground (or a weld at qpos0 with floating_base=False)."""
    mj = src.mj
    if mj.body_parentid[i] != 0:
        raise src.error(f"joint '{name}': a free joint is taken on top-level bodies only, "
                        f"not on '{src.body(i)}' inside '{src.body(mj.body_parentid[i])}'")
    q0 = mj.qpos0[mj.jnt_qposadr[j]:mj.jnt_qposadr[j] + 7].copy()
    with src.at(f"joint '{name}'"):
        if floating_base is False:
            model.add_joint(name, "weld", "ground", src.body(i), parent_frame=_plain(_pose(q0[:3], q0[3:])))
        else:
            model.add_joint(name, "free", "ground", src.body(i), q0=q0)


def _add_spring_damper(src, model, j, name):
    """``<joint>_spring_damper`` of a hinge or slide with stiffness or damping."""
    mj = src.mj
    stiffness = 0.0 if src.disabled("SPRING") else float(mj.jnt_stiffness[j])
    damping = 0.0 if src.disabled("DAMPER") else float(mj.dof_damping[mj.jnt_dofadr[j]])
    if stiffness or damping:
        with src.at(f"joint '{name}'"):
            model.add_force(f"{name}_spring_damper", "joint_spring_damper", joint=name, stiffness=stiffness,
                            damping=damping, rest=float(mj.qpos_spring[mj.jnt_qposadr[j]]))


def _add_joint(src, model, j, parent, child, parent_pose, q0_shift):
    """Joint ``j`` from ``parent_pose`` on ``parent`` (the frame that MuJoCo's body frame has before
    the joint moves it) to ``child``, whose frame is the moved one."""
    name, kind = src.joint(j), KINDS[src.enum("mjtJoint", src.mj.jnt_type[j])]
    with src.at(f"joint '{name}'"):
        if kind == "spherical":
            anchor = (src.mj.jnt_pos[j].copy(), np.eye(3))
            model.add_joint(name, kind, parent, child, parent_frame=_plain(_compose(parent_pose, anchor)),
                            child_frame=_plain(anchor), q0=src.mj.qpos0[src.mj.jnt_qposadr[j]:][:4].copy())
            return
        in_parent, in_child, ref = _joint_frames(src, j)
        model.add_joint(name, kind, parent, child, parent_frame=_plain(_compose(parent_pose, in_parent)),
                        child_frame=_plain(in_child), q0=ref + q0_shift.get(name, 0.0),
                        axis=src.mj.jnt_axis[j].copy())
    _add_spring_damper(src, model, j, name)


def _add_body_joints(src, model, i, floating_base, q0_shift):
    """The joints of body ``i`` to its parent: a weld, a free joint, one joint, or a chain of joints
    through massless bodies ``<body>__<joint>``."""
    mj, body = src.mj, src.body(i)
    parent, pose = src.body(mj.body_parentid[i]), _pose(mj.body_pos[i], mj.body_quat[i])
    first, count = int(mj.body_jntadr[i]), int(mj.body_jntnum[i])
    if count == 0:
        with src.at(f"body '{body}'"):
            if floating_base is True and mj.body_parentid[i] == 0:
                model.add_joint(f"{body}_root", "free", "ground", body,
                                q0=np.concatenate([mj.body_pos[i], mj.body_quat[i]]))
            else:
                model.add_joint(f"{body}_weld", "weld", parent, body, parent_frame=_plain(pose))
        return
    joints = range(first, first + count)
    free = [j for j in joints if src.enum("mjtJoint", mj.jnt_type[j]) == "mjJNT_FREE"]
    if free:
        if count > 1:
            raise src.error(f"body '{body}': a free joint must be the body's only joint")
        _free_joint(src, model, i, free[0], src.joint(free[0]), floating_base)
        return
    for k, j in enumerate(joints):
        child = body if k == count - 1 else f"{body}__{src.joint(j)}"
        if child != body:
            with src.at(f"body '{body}'"):
                model.add_body(child)
        _add_joint(src, model, j, parent, child, pose, q0_shift)
        parent, pose = child, IDENTITY


# ------------------------------------------------------------------------------------ equalities
def _equalities(src):
    """(index, name, type name) of the active equalities (none when the equality or constraint flag is off)."""
    mj = src.mj
    if src.disabled("EQUALITY") or src.disabled("CONSTRAINT"):
        return []
    return [(k, src.name("EQUALITY", k, "equality"), src.enum("mjtEq", mj.eq_type[k]))
            for k in range(mj.neq) if mj.eq_active0[k]]


def _check_equality(src, k, name, kind):
    mj = src.mj
    if kind not in ("mjEQ_CONNECT", "mjEQ_WELD", "mjEQ_JOINT", "mjEQ_TENDON"):
        raise src.error(f"equality '{name}': {kind[5:].lower()} equalities are not supported "
                        "(connect, weld, joint and tendon are)")
    if kind in ("mjEQ_CONNECT", "mjEQ_WELD") and src.enum("mjtObj", mj.eq_objtype[k]) != "mjOBJ_BODY":
        raise src.error(f"equality '{name}': only body-based {kind[5:].lower()} equalities are supported, "
                        "not site-based ones")
    if kind == "mjEQ_TENDON":
        tendons = [t for t in (mj.eq_obj1id[k], mj.eq_obj2id[k]) if t >= 0]
        spatial = [src.tendon(t) for t in tendons if _tendon_joints(src, t) is None]
        if spatial:
            raise src.error(f"equality '{name}': tendon '{spatial[0]}' is a spatial tendon; tendon equalities are "
                            "supported on fixed tendons")


def _coupled(src, k, kind, obj):
    """({joint: coefficient}, reference value) of an equality's joint or tendon ``obj`` (eq_obj1id or eq_obj2id):
    a joint's coordinate and its qpos0, or a fixed tendon's length and tendon_length0 (XML reference,
    "equality/joint", "equality/tendon")."""
    mj = src.mj
    if kind == "mjEQ_JOINT":
        return {src.joint(obj): 1.0}, float(mj.qpos0[mj.jnt_qposadr[obj]])
    return _tendon_joints(src, obj), float(mj.tendon_length0[obj])


def _joint_offsets(src):
    """q0 shift of the first joint of y in each joint or tendon equality: a0 of its polycoef over the joint's
    coefficient, so that q0 (x at x0, y at y0 + a0) satisfies it."""
    shifts = {}
    for k, _, kind in _equalities(src):
        if kind in ("mjEQ_JOINT", "mjEQ_TENDON") and src.mj.eq_data[k, 0]:
            (joint, coefficient), *_ = _coupled(src, k, kind, src.mj.eq_obj1id[k])[0].items()
            shifts[joint] = float(src.mj.eq_data[k, 0]) / coefficient
    return shifts


def _add_equality(src, model, k, name, kind):
    mj, data = src.mj, src.mj.eq_data[k]
    with src.at(f"equality '{name}'"):
        if kind in ("mjEQ_JOINT", "mjEQ_TENDON"):         # y - y0 = a0 + a1 (x - x0) + ... + a4 (x - x0)^4
            y, y0 = _coupled(src, k, kind, mj.eq_obj1id[k])
            x, x0 = _coupled(src, k, kind, mj.eq_obj2id[k]) if mj.eq_obj2id[k] >= 0 else (None, None)
            model.add_constraint(name, "polynomial_coupling", y=y, x=x, coefficients=data[0:5].tolist(), y0=y0, x0=x0)
            return
        body_a, body_b = src.body(mj.eq_obj1id[k]), src.body(mj.eq_obj2id[k])
        if kind == "mjEQ_CONNECT":
            model.add_constraint(name, "point_coincident", body_a=body_a, point_a=data[0:3].copy(),
                                 body_b=body_b, point_b=data[3:6].copy())
        else:
            model.add_joint(name, "weld", body_a, body_b, parent_frame=_plain(_pose(data[3:6], data[6:10])),
                            cut=True)


# ------------------------------------------------------------------------------------ tendons and fluid
def _tendon_joints(src, t):
    """{joint name: coefficient} of fixed tendon ``t`` (its wraps all joints: length sum coef qpos), or None
    for a spatial tendon."""
    mj, wraps = src.mj, range(src.mj.tendon_adr[t], src.mj.tendon_adr[t] + src.mj.tendon_num[t])
    if any(src.enum("mjtWrap", mj.wrap_type[w]) != "mjWRAP_JOINT" for w in wraps):
        return None
    joints = {}
    for w in wraps:
        name = src.joint(mj.wrap_objid[w])
        joints[name] = joints.get(name, 0.0) + float(mj.wrap_prm[w])
    return joints


def _add_tendon(src, model, t):
    """``fixed_tendon`` named after fixed tendon ``t`` if it has stiffness or damping (tendon_lengthspring: its
    rest length or dead band)."""
    mj, joints = src.mj, _tendon_joints(src, t)
    stiffness = 0.0 if src.disabled("SPRING") else float(mj.tendon_stiffness[t])
    damping = 0.0 if src.disabled("DAMPER") else float(mj.tendon_damping[t])
    if joints is not None and (stiffness or damping):
        name = src.tendon(t)
        with src.at(f"tendon '{name}'"):
            model.add_force(name, "fixed_tendon", joints=joints, stiffness=stiffness, damping=damping,
                            rest_length=mj.tendon_lengthspring[t].tolist())


def _fluid_bodies(src):
    """(bodies of MuJoCo's inertia-box fluid model, bodies of its ellipsoid model): the bodies of mass >= mjMINVAL,
    the second those with a geom of fluidshape="ellipsoid" (geom_fluid[0] > 0; engine_passive.c mj_fluid)."""
    mj = src.mj
    bodies = [i for i in range(1, mj.nbody) if mj.body_mass[i] >= 1e-15]
    ellipsoid = {int(mj.geom_bodyid[g]) for g in range(mj.ngeom) if mj.geom_fluid[g, 0] > 0}
    return [i for i in bodies if i not in ellipsoid], [i for i in bodies if i in ellipsoid]


def _add_fluid(src, model):
    """``fluid_drag`` "fluid" of <option density viscosity wind> on the inertia-box bodies, with the principal
    axes MuJoCo took (body_iquat)."""
    opt, (boxes, _) = src.mj.opt, _fluid_bodies(src)
    if (opt.density or opt.viscosity) and boxes:
        with src.at("<option density viscosity wind>"):
            model.add_force("fluid", "fluid_drag", density=float(opt.density), viscosity=float(opt.viscosity),
                            wind=opt.wind.tolist(), bodies=[src.body(i) for i in boxes],
                            axes={src.body(i): quat_to_matrix(src.mj.body_iquat[i]) for i in boxes})


# ------------------------------------------------------------------------------------ the model
def _gravity(src):
    """opt.gravity, or zero when <option><flag gravity="disable"/> is set (mjDSBL_GRAVITY)."""
    return np.zeros(3) if src.disabled("GRAVITY") else src.mj.opt.gravity.copy()


def _unsimulated(src):
    """Joint name -> MuJoCo parameters mechsim does not simulate (armature, limits, frictionloss, polynomial
    stiffness and damping, ball/free damping and stiffness)."""
    mj, table = src.mj, {}
    for j in range(mj.njnt):
        kind = src.enum("mjtJoint", mj.jnt_type[j])
        start = mj.jnt_dofadr[j]
        dofs = slice(start, start + {"mjJNT_FREE": 6, "mjJNT_BALL": 3}.get(kind, 1))
        found = {"armature": mj.dof_armature[dofs], "frictionloss": mj.dof_frictionloss[dofs],
                 "stiffnesspoly": mj.jnt_stiffnesspoly[j], "dampingpoly": mj.dof_dampingpoly[dofs]}
        if mj.jnt_limited[j]:
            found["range"] = mj.jnt_range[j]
        if kind in ("mjJNT_BALL", "mjJNT_FREE"):
            found.update(damping=mj.dof_damping[dofs], stiffness=mj.jnt_stiffness[j:j + 1])
        found = {key: value.tolist() for key, value in found.items() if np.any(value)}
        if found:
            table[src.joint(j)] = found
    return table


def _unsimulated_tendons(src):
    """Fixed tendon name -> MuJoCo parameters mechsim does not simulate: its limits (MuJoCo's soft constraint,
    which no rigid row or stop of mechsim reproduces exactly), frictionloss, armature, polynomial stiffness and
    damping, springyield."""
    mj, table = src.mj, {}
    for t in range(mj.ntendon):
        if _tendon_joints(src, t) is None:
            continue
        found = {"frictionloss": mj.tendon_frictionloss[t:t + 1], "armature": mj.tendon_armature[t:t + 1],
                 "stiffnesspoly": mj.tendon_stiffnesspoly[t], "dampingpoly": mj.tendon_dampingpoly[t],
                 "springyield": mj.tendon_springyield[t:t + 1]}
        if mj.tendon_limited[t]:
            found["range"] = mj.tendon_range[t]
        found = {key: value.tolist() for key, value in found.items() if np.any(value)}
        if found:
            table[src.tendon(t)] = found
    return table


def _not_simulated(src, joints, tendons):
    """What of the file mechsim leaves out, as phrases: the ellipsoid fluid model, spatial tendons, actuators, sensors,
    the contacts of geoms that collide (contype or conaffinity set, the contact flag on), the joints' parameters
    ``joints`` (_unsimulated) and the fixed tendons' ``tendons`` (_unsimulated_tendons)."""
    mj, opt = src.mj, src.mj.opt
    said = []
    ellipsoid = _fluid_bodies(src)[1]
    if (opt.density or opt.viscosity) and ellipsoid:
        said.append(f'the fluid forces of {len(ellipsoid)} body(ies) with fluidshape="ellipsoid" geoms (the '
                    "ellipsoid model)")
    spatial = sum(_tendon_joints(src, t) is None for t in range(mj.ntendon))
    said += [f"{count} {what}(s)" for what, count in (("spatial tendon", spatial), ("actuator", mj.nu),
                                                       ("sensor", mj.nsensor)) if count]
    colliding = 0 if src.disabled("CONTACT") else int(np.count_nonzero(mj.geom_contype | mj.geom_conaffinity))
    if colliding:
        said.append(f"the contacts of {colliding} geom(s)")
    if joints:
        said.append(f"armature, limits, frictionloss, polynomial stiffness or ball/free damping of {len(joints)} "
                    "joint(s) "
                    "(kept in model.mjcf_unsimulated)")
    if tendons:
        said.append(f"limits, frictionloss, armature or polynomial stiffness of {len(tendons)} fixed tendon(s) "
                    "(kept in model.mjcf_unsimulated_tendons)")
    return said


def load_mjcf(path, floating_base=None):
    """A Model of the MJCF (MuJoCo XML) file ``path``, compiled by MuJoCo (see the module docstring
    for the mapping). ``floating_base``: None keeps the file's joints; True frees the top-level bodies
    that have no joint (free joint ``<body>_root``); False welds the top-level free bodies."""
    if floating_base not in (None, True, False):
        raise ModelError(f"floating_base must be None, True or False, got {floating_base!r}")
    src = _Source(path)
    equalities = _equalities(src)
    for k, name, kind in equalities:
        _check_equality(src, k, name, kind)
    model = Model(src.path.stem, gravity=_gravity(src))
    for i in range(1, src.mj.nbody):
        _add_body(src, model, i)
    q0_shift = _joint_offsets(src)
    for i in range(1, src.mj.nbody):
        _add_body_joints(src, model, i, floating_base, q0_shift)
    for k, name, kind in equalities:
        _add_equality(src, model, k, name, kind)
    for t in range(src.mj.ntendon):
        _add_tendon(src, model, t)
    _add_fluid(src, model)
    model.mjcf_unsimulated, model.mjcf_unsimulated_tendons = _unsimulated(src), _unsimulated_tendons(src)
    said = _not_simulated(src, model.mjcf_unsimulated, model.mjcf_unsimulated_tendons)
    if said:
        warnings.warn(f"{src.path}: not simulated: {'; '.join(said)}", stacklevel=2)
    return model
