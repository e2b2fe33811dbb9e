"""Model-building helpers for the joint-kind checks: one description of a small tree becomes a
mechsim Model and, where Pinocchio has the joints, an equivalent pinocchio.Model, with the maps
between the two coordinate conventions (SPEC §2 versus Pinocchio's)."""
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mechsim as ms

GRAVITY = np.array([0.7, -9.81, 1.3])        # deliberately not along an axis


# ----------------------------------------------------------------------------- random data
def random_rotation(rng):
    return Rotation.random(random_state=rng).as_matrix()


def random_pose(rng, scale=0.4):
    return rng.uniform(-scale, scale, 3), random_rotation(rng)


def random_inertia(rng, mass):
    """A physically valid inertia about the COM (a box of random size, randomly turned)."""
    a, b, c = rng.uniform(0.1, 0.6, 3)
    J = mass / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    R = random_rotation(rng)
    return R @ J @ R.T


def random_unit(rng):
    x = rng.normal(size=3)
    return x / np.linalg.norm(x)


def link(name, kind, parent, rng, opts=None, mass=None, frames=True):
    """One body ``name`` hung on ``parent`` by joint ``j_<name>`` of ``kind`` with random mass
    properties and (if ``frames``) random parent/child joint frames."""
    mass = rng.uniform(0.5, 2.0) if mass is None else mass
    pf = random_pose(rng) if frames else (np.zeros(3), np.eye(3))
    cf = random_pose(rng) if frames else (np.zeros(3), np.eye(3))
    return dict(name=name, joint="j_" + name, kind=kind, parent=parent, opts=dict(opts or {}),
                pf=pf, cf=cf, mass=mass, com=rng.uniform(-0.3, 0.3, 3),
                inertia=random_inertia(rng, mass) if mass > 0 else np.zeros((3, 3)))


def build_mechsim(links, gravity=GRAVITY, name="m"):
    m = ms.Model(name, gravity=gravity)
    for L in links:
        m.add_body(L["name"], mass=L["mass"], com=L["com"], inertia=L["inertia"])
    for L in links:
        m.add_joint(L["joint"], L["kind"], parent=L["parent"], child=L["name"],
                    parent_frame=(L["pf"][0], L["pf"][1]), child_frame=(L["cf"][0], L["cf"][1]), **L["opts"])
    return m


# ----------------------------------------------------------------------------- coordinates
def joint_sizes(kind, opts):
    """(nq, nv) of a joint kind as SPEC §2 defines its coordinates."""
    if kind == "custom":
        nq = sum(4 if p[0] == "S" else 1 for p in opts["primitives"])
        nv = sum(3 if p[0] == "S" else 1 for p in opts["primitives"])
        return nq, nv
    return {"weld": (0, 0), "revolute": (1, 1), "prismatic": (1, 1), "screw": (1, 1), "cylindrical": (2, 2),
            "universal": (2, 2), "gimbal": (3, 3), "planar": (3, 3), "spherical": (4, 3), "bushing": (6, 6),
            "free": (7, 6)}[kind]


def random_joint_q(kind, opts, rng):
    """Random coordinates of one joint, quaternions unit and scalar-first."""
    if kind == "custom":
        parts = [Rotation.random(random_state=rng).as_quat()[[3, 0, 1, 2]] if p[0] == "S" else rng.uniform(-1, 1, 1)
                 for p in opts["primitives"]]
        return np.concatenate(parts) if parts else np.zeros(0)
    if kind == "spherical":
        return Rotation.random(random_state=rng).as_quat()[[3, 0, 1, 2]]
    if kind == "free":
        return np.concatenate([rng.uniform(-1, 1, 3), Rotation.random(random_state=rng).as_quat()[[3, 0, 1, 2]]])
    if kind == "gimbal":
        return rng.uniform(-1.0, 1.0, 3)          # away from gimbal lock
    return rng.uniform(-1.2, 1.2, joint_sizes(kind, opts)[0])


def random_state(links, rng):
    q = np.concatenate([random_joint_q(L["kind"], L["opts"], rng) for L in links])
    nv = sum(joint_sizes(L["kind"], L["opts"])[1] for L in links)
    return q, rng.uniform(-1.5, 1.5, nv), rng.uniform(-2, 2, nv)


# ----------------------------------------------------------------------------- pinocchio
def _axis_code(axis):
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    for i, c in enumerate("XYZ"):
        if np.allclose(a, np.eye(3)[i]):
            return c, a
    return None, a


def pin_joint_model(pin, kind, opts):
    """Pinocchio's joint model for a mechsim joint kind, or None when it has no equivalent."""
    if kind in ("revolute", "prismatic"):
        code, a = _axis_code(opts.get("axis", (0, 0, 1)))
        letter = "R" if kind == "revolute" else "P"
        if code is not None:
            return getattr(pin, f"JointModel{letter}{code}")()
        return (pin.JointModelRevoluteUnaligned if kind == "revolute" else pin.JointModelPrismaticUnaligned)(a)
    if kind == "spherical":
        return pin.JointModelSpherical()
    if kind == "free":
        return pin.JointModelFreeFlyer()
    if kind == "planar" and "normal" not in opts:
        return pin.JointModelPlanar()
    if kind == "screw" and hasattr(pin, "JointModelHelicalUnaligned"):
        _, a = _axis_code(opts.get("axis", (0, 0, 1)))
        return pin.JointModelHelicalUnaligned(a, float(opts["lead"]) / (2 * np.pi))
    if kind == "universal" and hasattr(pin, "JointModelUniversal"):
        a1, a2 = (np.asarray(a, float) / np.linalg.norm(a) for a in opts["axes"])
        return pin.JointModelUniversal(a1, a2)
    if kind == "custom" and [p[0] for p in opts["primitives"]] == ["P", "P", "P"] and \
            all(np.allclose(np.asarray(p[1], float), np.eye(3)[i]) for i, p in enumerate(opts["primitives"])):
        return pin.JointModelTranslation()
    # composites of single-axis primitives (coordinate rates as velocities, like mechsim)
    prims = None
    if kind == "cylindrical":
        a = opts.get("axis", (0, 0, 1))
        prims = [("P", a), ("R", a)]
    elif kind == "gimbal":
        prims = [("R", np.eye(3)["xyz".index(c)]) for c in opts.get("seq", "xyz")]
    elif kind == "bushing":
        prims = [("P", e) for e in np.eye(3)] + [("R", e) for e in np.eye(3)]
    if prims is not None and hasattr(pin, "JointModelComposite"):
        jc = pin.JointModelComposite(len(prims))
        for letter, a in prims:
            jc.addJoint(pin_joint_model(pin, "revolute" if letter == "R" else "prismatic", {"axis": a}))
        return jc
    return None


def _se3(pin, pose):
    return pin.SE3(np.asarray(pose[1], float), np.asarray(pose[0], float))


def build_pinocchio(pin, links, gravity=GRAVITY):
    """The same tree in Pinocchio (links in an order where every parent comes first)."""
    model = pin.Model()
    model.gravity = pin.Motion(np.concatenate([gravity, np.zeros(3)]))
    joint_id, child_pose = {"ground": 0}, {"ground": pin.SE3.Identity()}
    for L in links:
        jm = pin_joint_model(pin, L["kind"], L["opts"])
        assert jm is not None, L["kind"]
        # F in the parent's joint frame: (parent body in parent joint frame) * F
        placement = child_pose[L["parent"]].inverse() * _se3(pin, L["pf"])
        jid = model.addJoint(joint_id[L["parent"]], jm, placement, L["joint"])
        body_in_joint = _se3(pin, L["cf"]).inverse()       # the joint frame is M
        model.appendBodyToJoint(jid, pin.Inertia(L["mass"], np.asarray(L["com"], float),
                                                 np.asarray(L["inertia"], float)), body_in_joint)
        joint_id[L["name"]], child_pose[L["name"]] = jid, _se3(pin, L["cf"])
    return model


def _quat_matrix(qwxyz):
    return Rotation.from_quat(np.asarray(qwxyz)[[1, 2, 3, 0]]).as_matrix()


def pin_coordinates(links, q, v):
    """Map a mechsim state to Pinocchio's: (q_pin, T, bias) with v_pin = T v and, for
    accelerations, a_pin = T a + bias (bias = dT/dt v)."""
    qs, blocks, biases = [], [], []
    iq = iv = 0
    for L in links:
        nq, nv = joint_sizes(L["kind"], L["opts"])
        qj, vj = q[iq:iq + nq], v[iv:iv + nv]
        T, bias = np.eye(nv), np.zeros(nv)
        if L["kind"] == "spherical":
            qp = qj[[1, 2, 3, 0]]                          # Pinocchio: (x, y, z, w)
        elif L["kind"] == "free":
            # Pinocchio's free flyer: [linear velocity in M; angular velocity in M]
            # mechsim's free joint: [velocity of M's origin in F; angular velocity in M]
            R = _quat_matrix(qj[3:])
            qp = np.concatenate([qj[:3], qj[[4, 5, 6, 3]]])
            T[:3, :3] = R.T
            bias[:3] = -np.cross(vj[3:], R.T @ vj[:3])     # d/dt (R^T pdot) = R^T pddot - w x R^T pdot
        elif L["kind"] == "planar":
            c, s = np.cos(qj[2]), np.sin(qj[2])
            qp = np.array([qj[0], qj[1], c, s])
            R2 = np.array([[c, -s], [s, c]])
            T[:2, :2] = R2.T                               # Pinocchio: in-plane velocity in M
            vl = R2.T @ vj[:2]
            bias[:2] = -vj[2] * np.array([-vl[1], vl[0]])
        else:
            qp = qj
        qs.append(qp)
        blocks.append(T)
        biases.append(bias)
        iq, iv = iq + nq, iv + nv
    from scipy.linalg import block_diag
    return np.concatenate(qs), block_diag(*blocks), np.concatenate(biases)


class PinPair:
    """A mechsim model and the equivalent Pinocchio model; dynamics of both in mechsim's coordinates."""

    def __init__(self, pin, links, gravity=GRAVITY):
        self.pin, self.links = pin, links
        self.m = build_mechsim(links, gravity)
        self.model = build_pinocchio(pin, links, gravity)
        self.data = self.model.createData()
        assert self.model.nv == self.m.compile().nv

    def mass_matrix(self, q):
        qp, T, _ = pin_coordinates(self.links, q, np.zeros(self.model.nv))
        M = self.pin.crba(self.model, self.data, qp)
        M = np.triu(M) + np.triu(M, 1).T
        return T.T @ M @ T

    def inverse_dynamics(self, q, v, a):
        qp, T, bias = pin_coordinates(self.links, q, v)
        tau = self.pin.rnea(self.model, self.data, qp, T @ v, T @ a + bias)
        return T.T @ tau

    def forward_dynamics(self, q, v, tau):
        qp, T, bias = pin_coordinates(self.links, q, v)
        a = self.pin.aba(self.model, self.data, qp, T @ v, np.linalg.solve(T.T, tau))
        return np.linalg.solve(T, a - bias)


@pytest.fixture
def rng():
    return np.random.default_rng(20240607)


@pytest.fixture
def helpers():
    return SimpleNamespace(link=link, build_mechsim=build_mechsim, random_state=random_state,
                           random_joint_q=random_joint_q, joint_sizes=joint_sizes, random_pose=random_pose,
                           random_rotation=random_rotation, random_inertia=random_inertia, random_unit=random_unit,
                           PinPair=PinPair, pin_joint_model=pin_joint_model, pin_coordinates=pin_coordinates,
                           GRAVITY=GRAVITY)


# ----------------------------------------------------------------------------- mechsim equivalents
def expand_joint(links, name, primitives):
    """The same tree with link ``name``'s joint replaced by a chain of simpler joints
    ``primitives`` = [(kind, opts), ...] through massless intermediate bodies: F on the first,
    M on the last, identity frames in between (so every axis is given in F, as at q = 0)."""
    out = []
    for L in links:
        if L["name"] != name:
            out.append(L)
            continue
        parent = L["parent"]
        ident = (np.zeros(3), np.eye(3))
        for i, (kind, opts) in enumerate(primitives):
            last = i == len(primitives) - 1
            child = L["name"] if last else f"{name}_mid{i}"
            out.append(dict(name=child, joint=f"{L['joint']}_{i}", kind=kind, parent=parent, opts=dict(opts),
                            pf=L["pf"] if i == 0 else ident, cf=L["cf"] if last else ident,
                            mass=L["mass"] if last else 0.0, com=L["com"] if last else np.zeros(3),
                            inertia=L["inertia"] if last else np.zeros((3, 3))))
            parent = child
    return out


def state_at(m, q, v=None):
    """A Result holding the single sample (t = 0, q, v): body signals by mechsim's own kinematics."""
    st = m.initial_state()
    st.q[:] = q
    st.v[:] = 0.0 if v is None else v
    return m.simulate(t_end=1e-6, t_eval=[0.0], initial=st, solver="RK45")


def pose(rotation, position):
    X = np.eye(4)
    X[:3, :3], X[:3, 3] = rotation, position
    return X


@pytest.fixture
def equiv():
    return SimpleNamespace(expand_joint=expand_joint, state_at=state_at, pose=pose)
