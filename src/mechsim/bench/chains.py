"""The benchmark N-link chain, built identically in mechsim, Pinocchio and MuJoCo.

Link i (i = 0 … N-1) is a uniform rod of length 1 m and mass 1 kg lying along its body x axis
(a solid cylinder of radius 0.05 m: COM at (0.5, 0, 0), inertia about the COM
diag(m r²/2, m(3r² + L²)/12, m(3r² + L²)/12)). Link 0 hangs on the ground at the world origin;
link i > 0 is attached at (1, 0, 0) of link i-1. Every joint is revolute, the axes alternating
y, z, y, z, … (joint 0 about y), so the chain moves in 3-D. Gravity is (0, 0, -9.81); no
springs, damping, limits, contacts or armature.
"""
import numpy as np

import mechsim as ms

LENGTH, MASS, RADIUS = 1.0, 1.0, 0.05
COM = (0.5 * LENGTH, 0.0, 0.0)
INERTIA = (MASS * RADIUS ** 2 / 2.0,
           MASS * (3.0 * RADIUS ** 2 + LENGTH ** 2) / 12.0,
           MASS * (3.0 * RADIUS ** 2 + LENGTH ** 2) / 12.0)
GRAVITY = (0.0, 0.0, -9.81)
LINK = dict(length=LENGTH, mass=MASS, com=COM, inertia=INERTIA)   # every link; the builders take another one as ``link``

DESCRIPTION = ("N-link chain: revolute joints with axes alternating y, z, y, z, … (joint 0 about y); links are "
               "uniform rods along body x, 1 m long, 1 kg, radius 0.05 m (COM (0.5, 0, 0), inertia about COM "
               f"diag({INERTIA[0]:.6g}, {INERTIA[1]:.6g}, {INERTIA[2]:.6g}) kg m²); joint i > 0 at (1, 0, 0) of "
               "link i-1; gravity (0, 0, -9.81) m/s²; no springs, damping, limits or contacts.")


def axis(i):
    """Axis of joint i: y for even i, z for odd i."""
    return (0.0, 1.0, 0.0) if i % 2 == 0 else (0.0, 0.0, 1.0)


def initial_angles(n):
    """A deterministic, non-trivial initial configuration (rad) for the whole-run benchmark."""
    return 0.5 * np.sin(np.arange(1, n + 1))


def mechsim_chain(n, q0=None, link=LINK, base=(0.0, 0.0, 0.0)):
    """The chain as an ms.Model (joints j0 … j{n-1}, bodies link0 … link{n-1}), joint j0 at ``base``."""
    q0 = np.zeros(n) if q0 is None else np.asarray(q0, dtype=float)
    m = ms.Model(f"chain{n}", gravity=GRAVITY)
    parent = "ground"
    for i in range(n):
        m.add_body(f"link{i}", mass=link["mass"], com=link["com"], inertia=link["inertia"])
        m.add_joint(f"j{i}", "revolute", parent, f"link{i}", parent_frame=(link["length"], 0.0, 0.0) if i else base,
                    axis=axis(i), q0=float(q0[i]))
        parent = f"link{i}"
    return m


def pinocchio_chain(n, link=LINK):
    """The chain as a (pin.Model, pin.Data) pair: JointModelRY / JointModelRZ, pin.Inertia, SE3 placements."""
    import pinocchio as pin
    model = pin.Model()
    model.gravity.linear = np.array(GRAVITY)
    parent = 0
    for i in range(n):
        joint = pin.JointModelRY() if i % 2 == 0 else pin.JointModelRZ()
        placement = pin.SE3(np.eye(3), np.array([link["length"] if i else 0.0, 0.0, 0.0]))
        parent = model.addJoint(parent, joint, placement, f"j{i}")
        model.appendBodyToJoint(parent, pin.Inertia(link["mass"], np.array(link["com"]), np.diag(link["inertia"])),
                                pin.SE3.Identity())
    return model, model.createData()


def mujoco_xml(n, link=LINK, option=None):
    """The chain as an MJCF string: nested bodies with hinge joints and explicit <inertial> (no geoms); ``option``:
    the <option> element (default: gravity only)."""
    option = option or f'<option gravity="{GRAVITY[0]!r} {GRAVITY[1]!r} {GRAVITY[2]!r}"/>'
    f = lambda v: " ".join(repr(float(c)) for c in v)                                    # noqa: E731
    parts = [f'<mujoco model="chain{n}">{option}<worldbody>']
    for i in range(n):
        parts.append(f'<body name="link{i}" pos="{link["length"] if i else 0.0!r} 0 0">'
                     f'<joint name="j{i}" type="hinge" axis="{f(axis(i))}"/>'
                     f'<inertial pos="{f(link["com"])}" mass="{link["mass"]!r}" diaginertia="{f(link["inertia"])}"/>')
    parts.append("</body>" * n + "</worldbody></mujoco>")
    return "".join(parts)


def mujoco_chain(n, pure=False):
    """The chain as (mujoco.MjModel, mujoco.MjData). pure=True disables contact, constraints, sensors,
    passive forces and actuation, leaving mj_forward as close to plain forward dynamics as it gets."""
    import mujoco
    model = mujoco.MjModel.from_xml_string(mujoco_xml(n))
    if pure:
        D = mujoco.mjtDisableBit
        for flag in ("mjDSBL_CONTACT", "mjDSBL_CONSTRAINT", "mjDSBL_SENSOR", "mjDSBL_SPRING", "mjDSBL_DAMPER",
                     "mjDSBL_ACTUATION", "mjDSBL_PASSIVE"):
            if hasattr(D, flag):
                model.opt.disableflags |= int(getattr(D, flag))
    return model, mujoco.MjData(model)


def mujoco_set_state(data, q, v, tau):
    data.qpos[:] = q
    data.qvel[:] = v
    data.qfrc_applied[:] = tau
