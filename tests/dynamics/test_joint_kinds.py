"""Every joint kind against an independent reference: Pinocchio (CRBA, RNEA, ABA) where it has the
joint, an equivalent mechsim model of single-DOF primitives through massless bodies where mechsim
composes it, a closed-form Lagrangian, and hand-computed poses at known coordinates (SPEC §2)."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mechsim as ms

PIN_CASES = {
    "revolute-x": ("revolute", {"axis": (1, 0, 0)}),
    "revolute-y": ("revolute", {"axis": (0, 1, 0)}),
    "revolute-z": ("revolute", {"axis": (0, 0, 1)}),
    "revolute-unaligned": ("revolute", {"axis": (0.3, -0.5, 0.8)}),
    "prismatic-y": ("prismatic", {"axis": (0, 1, 0)}),
    "prismatic-unaligned": ("prismatic", {"axis": (1, 2, -0.5)}),
    "spherical": ("spherical", {}),
    "free": ("free", {}),
    "planar": ("planar", {}),
    "translation": ("custom", {"primitives": [("P", (1, 0, 0)), ("P", (0, 1, 0)), ("P", (0, 0, 1))]}),
    "screw": ("screw", {"axis": (0.2, 0.4, 1.0), "lead": 0.15}),
    "universal": ("universal", {"axes": ((1, 0, 0), (0, 0.6, 0.8))}),
    "cylindrical": ("cylindrical", {"axis": (1, 1, 0)}),
    "gimbal-zxz": ("gimbal", {"seq": "zxz"}),
    "bushing": ("bushing", {}),
}


def _tree(helpers, rng, kind, opts):
    """ground -R-> b1 -kind-> b2 -> {b3 (R about x), b4 (kind)}: the joint under test both carries
    a moving parent and branches, all joint frames offset and turned."""
    return [helpers.link("b1", "revolute", "ground", rng, {"axis": (0.4, 0.1, 0.9)}),
            helpers.link("b2", kind, "b1", rng, opts),
            helpers.link("b3", "revolute", "b2", rng, {"axis": (1, 0, 0)}),
            helpers.link("b4", kind, "b2", rng, opts)]


def _compare_with_pinocchio(helpers, rng, links, n_states=4):
    pin = pytest.importorskip("pinocchio")
    pair = helpers.PinPair(pin, links)
    m = pair.m
    for _ in range(n_states):
        q, v, a = helpers.random_state(links, rng)
        M = ms.mass_matrix(m, q)
        scale = np.max(np.abs(M))
        np.testing.assert_allclose(M, pair.mass_matrix(q), rtol=0, atol=1e-11 * scale, err_msg="CRBA")
        tau = ms.inverse_dynamics(m, q, v, a)
        tau_ref = pair.inverse_dynamics(q, v, a)
        np.testing.assert_allclose(tau, tau_ref, rtol=0, atol=1e-10 * max(1.0, np.max(np.abs(tau_ref))), err_msg="RNEA")
        tau2 = rng.uniform(-3, 3, len(v))
        acc = ms.forward_dynamics(m, q, v, tau2)
        acc_ref = pair.forward_dynamics(q, v, tau2)
        np.testing.assert_allclose(acc, acc_ref, rtol=0, atol=1e-9 * max(1.0, np.max(np.abs(acc_ref))), err_msg="ABA")
        # mechsim against itself: FD inverts ID
        np.testing.assert_allclose(ms.forward_dynamics(m, q, v, tau), a, rtol=0, atol=1e-9 * max(1.0, np.max(np.abs(a))))


@pytest.mark.reference
@pytest.mark.parametrize("case", list(PIN_CASES))
def test_joint_kind_against_pinocchio(helpers, rng, case):
    kind, opts = PIN_CASES[case]
    _compare_with_pinocchio(helpers, rng, _tree(helpers, rng, kind, opts))


@pytest.mark.reference
def test_free_flyer_root_against_pinocchio(helpers, rng):
    """A floating base (Pinocchio's free flyer: velocity [linear in M; angular in M]; mechsim's free
    joint: [velocity of M's origin in F; angular in M]) carrying a spherical and a prismatic joint."""
    links = [helpers.link("base", "free", "ground", rng),
             helpers.link("arm", "spherical", "base", rng),
             helpers.link("tip", "prismatic", "arm", rng, {"axis": (0.2, 0.9, -0.3)})]
    _compare_with_pinocchio(helpers, rng, links)


@pytest.mark.reference
def test_pinocchio_comparison_can_tell_conventions_apart(helpers, rng):
    """Sanity of the reference itself: feeding mechsim's free-joint velocity to Pinocchio unchanged
    (no frame change) gives a different answer, so the comparison above does resolve it."""
    pin = pytest.importorskip("pinocchio")
    links = [helpers.link("base", "free", "ground", rng), helpers.link("arm", "revolute", "base", rng)]
    pair = helpers.PinPair(pin, links)
    q, v, a = helpers.random_state(links, rng)
    qp, T, bias = helpers.pin_coordinates(links, q, v)
    wrong = pin.rnea(pair.model, pair.data, qp, v, a)
    assert np.max(np.abs(wrong - ms.inverse_dynamics(pair.m, q, v, a))) > 1e-3


def test_inverse_dynamics_with_force_elements(helpers, rng):
    """ID includes the force elements (SPEC §3: forward_dynamics(m, q, v, ID(q, v, a)) == a): a joint
    spring-damper shifts it by k (q - rest) + c v exactly; arrays over time give the same rows."""
    links = _tree(helpers, rng, "gimbal", {"seq": "xzy"})
    bare = helpers.build_mechsim(links)
    m = helpers.build_mechsim(links)
    k, c, rest = np.array([3.0, 4.0, 5.0]), np.array([0.3, 0.2, 0.1]), np.array([0.1, -0.2, 0.3])
    m.add_force("spring", "joint_spring_damper", joint="j_b2", stiffness=k, damping=c, rest=rest)
    m.add_force("p2p", "spring_damper", body_a="b3", point_a=(0.1, 0, 0), body_b="b1", point_b=(0, 0.2, 0),
                stiffness=25.0, damping=0.4, rest_length=0.1)
    m.add_force("push", "body_force", body="b4", point=(0.1, 0.2, -0.1), force=(1.0, -2.0, 0.5), torque=(0.3, 0, 0))
    qs, vs, accs = [], [], []
    for _ in range(4):
        q, v, a = helpers.random_state(links, rng)
        tau = ms.inverse_dynamics(m, q, v, a)
        np.testing.assert_allclose(ms.forward_dynamics(m, q, v, tau), a, rtol=0, atol=1e-9 * max(1, np.abs(a).max()))
        # only the joint spring: the shift is the spring's generalized force
        only_spring = helpers.build_mechsim(links)
        only_spring.add_force("spring", "joint_spring_damper", joint="j_b2", stiffness=k, damping=c, rest=rest)
        shift = ms.inverse_dynamics(only_spring, q, v, a) - ms.inverse_dynamics(bare, q, v, a)
        expected = np.zeros(len(v))
        expected[1:4] = k * (q[1:4] - rest) + c * v[1:4]
        np.testing.assert_allclose(shift, expected, rtol=0, atol=1e-10)
        qs.append(q), vs.append(v), accs.append(a)
    rows = ms.inverse_dynamics(m, np.array(qs), np.array(vs), np.array(accs))
    for i in range(4):
        np.testing.assert_allclose(rows[i], ms.inverse_dynamics(m, qs[i], vs[i], accs[i]), rtol=0, atol=1e-12)


# ----------------------------------------------------------------------------- composed kinds
R_, P_ = "revolute", "prismatic"
EQUIVALENTS = {
    "universal": (("universal", {"axes": ((1, 0, 0), (0, 0.6, 0.8))}),
                  [(R_, {"axis": (1, 0, 0)}), (R_, {"axis": (0, 0.6, 0.8)})]),
    "gimbal-xyz": (("gimbal", {}), [(R_, {"axis": (1, 0, 0)}), (R_, {"axis": (0, 1, 0)}), (R_, {"axis": (0, 0, 1)})]),
    "gimbal-zxz": (("gimbal", {"seq": "zxz"}),
                   [(R_, {"axis": (0, 0, 1)}), (R_, {"axis": (1, 0, 0)}), (R_, {"axis": (0, 0, 1)})]),
    "gimbal-yzx": (("gimbal", {"seq": "yzx"}),
                   [(R_, {"axis": (0, 1, 0)}), (R_, {"axis": (0, 0, 1)}), (R_, {"axis": (1, 0, 0)})]),
    "bushing": (("bushing", {}), [(P_, {"axis": e}) for e in np.eye(3)] + [(R_, {"axis": e}) for e in np.eye(3)]),
    "cylindrical": (("cylindrical", {"axis": (1, -1, 2)}), [(P_, {"axis": (1, -1, 2)}), (R_, {"axis": (1, -1, 2)})]),
    "planar": (("planar", {}), [(P_, {"axis": (1, 0, 0)}), (P_, {"axis": (0, 1, 0)}), (R_, {"axis": (0, 0, 1)})]),
    "free": (("free", {}), [(P_, {"axis": e}) for e in np.eye(3)] + [("spherical", {})]),
    "custom-RPS": (("custom", {"primitives": [("R", (0, 1, 1)), ("P", (1, 0, 0)), ("S",)]}),
                   [(R_, {"axis": (0, 1, 1)}), (P_, {"axis": (1, 0, 0)}), ("spherical", {})]),
    "custom-PR": (("custom", {"primitives": [("P", (0.3, 0.2, 1)), ("R", (1, 0.5, 0))]}),
                  [(P_, {"axis": (0.3, 0.2, 1)}), (R_, {"axis": (1, 0.5, 0)})]),
}


def _compare_models(helpers, equiv, rng, links_a, links_b, leaves, n_states=4):
    ma, mb = helpers.build_mechsim(links_a), helpers.build_mechsim(links_b)
    assert ma.compile().nv == mb.compile().nv
    for _ in range(n_states):
        q, v, a = helpers.random_state(links_a, rng)
        tau = rng.uniform(-3, 3, len(v))
        np.testing.assert_allclose(ms.mass_matrix(ma, q), ms.mass_matrix(mb, q), rtol=0, atol=1e-12)
        np.testing.assert_allclose(ms.inverse_dynamics(ma, q, v, a), ms.inverse_dynamics(mb, q, v, a),
                                   rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(ms.forward_dynamics(ma, q, v, tau), ms.forward_dynamics(mb, q, v, tau),
                                   rtol=1e-9, atol=1e-9)
        ra, rb = equiv.state_at(ma, q, v), equiv.state_at(mb, q, v)
        for body in leaves:
            for sig in ("position", "rotation", "velocity", "omega"):
                np.testing.assert_allclose(ra[f"{body}.{sig}"], rb[f"{body}.{sig}"], rtol=0, atol=1e-12,
                                           err_msg=f"{body}.{sig}")
    return ma, mb


@pytest.mark.parametrize("case", list(EQUIVALENTS))
def test_composed_kind_equals_chain_of_primitives(helpers, equiv, rng, case):
    (kind, opts), primitives = EQUIVALENTS[case]
    links = _tree(helpers, rng, kind, opts)
    expanded = equiv.expand_joint(equiv.expand_joint(links, "b2", primitives), "b4", primitives)
    ma, mb = _compare_models(helpers, equiv, rng, links, expanded, ["b2", "b3", "b4"])
    # and the motion agrees: a short simulation of both from the same state
    q, v, _ = helpers.random_state(links, rng)
    runs = []
    for mm in (ma, mb):
        st = mm.initial_state()
        st.q[:], st.v[:] = q, v
        runs.append(mm.simulate(t_end=0.3, t_eval=[0.3], initial=st, solver="DOP853", rtol=1e-10, atol=1e-12))
    for body in ("b3", "b4"):
        np.testing.assert_allclose(runs[0][f"{body}.position"], runs[1][f"{body}.position"], atol=1e-8)


def _merge(parent_link, welded):
    """Mass properties of parent_link's body plus the welded body (pose X_pw in the parent body)."""
    R_pw, p_pw = welded["X"]
    m1, m2 = parent_link["mass"], welded["mass"]
    c1, c2 = np.asarray(parent_link["com"]), R_pw @ welded["com"] + p_pw
    mass = m1 + m2
    c = (m1 * c1 + m2 * c2) / mass
    J = np.zeros((3, 3))
    for mi, ci, Ji in ((m1, c1, parent_link["inertia"]), (m2, c2, R_pw @ welded["inertia"] @ R_pw.T)):
        d = ci - c
        J += Ji + mi * (d @ d * np.eye(3) - np.outer(d, d))
    return mass, c, J


def test_weld_equals_merged_body(helpers, equiv, rng):
    """ground -R-> b1 =weld= w -R-> b3 behaves as one rigid body b1+w carrying b3 by hand-combined
    mass properties (parallel-axis theorem) and the composed frame of b3's joint."""
    links = [helpers.link("b1", "revolute", "ground", rng, {"axis": (0.4, 0.1, 0.9)}),
             helpers.link("w", "weld", "b1", rng),
             helpers.link("b3", "revolute", "w", rng, {"axis": (1, 0, 0)})]
    (pf, Rf), (pc, Rc) = links[1]["pf"], links[1]["cf"]
    R_pw = Rf @ Rc.T                                   # the welded body's frame in b1: F M^-1
    p_pw = pf - R_pw @ pc
    mass, com, J = _merge(links[0], dict(X=(R_pw, p_pw), mass=links[1]["mass"], com=links[1]["com"],
                                         inertia=links[1]["inertia"]))
    merged0 = dict(links[0], mass=mass, com=com, inertia=J)
    pf3, Rf3 = links[2]["pf"]
    merged2 = dict(links[2], parent="b1", pf=(R_pw @ pf3 + p_pw, R_pw @ Rf3))
    ma = helpers.build_mechsim(links)
    mb = helpers.build_mechsim([merged0, merged2])
    assert ma.coordinates() == (["j_b1.q", "j_b3.q"], ["j_b1.v", "j_b3.v"])
    for _ in range(4):
        q, v, a = rng.uniform(-1, 1, 2), rng.uniform(-1, 1, 2), rng.uniform(-1, 1, 2)
        np.testing.assert_allclose(ms.mass_matrix(ma, q), ms.mass_matrix(mb, q), atol=1e-12)
        np.testing.assert_allclose(ms.inverse_dynamics(ma, q, v, a), ms.inverse_dynamics(mb, q, v, a), atol=1e-10)
        ra = equiv.state_at(ma, q, v)
        rb = equiv.state_at(mb, q, v)
        np.testing.assert_allclose(ra["b3.position"], rb["b3.position"], atol=1e-12)
        # the welded body moves with b1: its pose is b1's composed with F M^-1
        np.testing.assert_allclose(ra["w.rotation"][0], ra["b1.rotation"][0] @ R_pw, atol=1e-12)
        np.testing.assert_allclose(ra["w.position"][0], ra["b1.position"][0] + ra["b1.rotation"][0] @ p_pw, atol=1e-12)


# ----------------------------------------------------------------------------- closed-form Lagrangian
def test_planar_double_pendulum_lagrangian(helpers):
    """M(q), Coriolis/centrifugal and gravity terms of a planar double pendulum in closed form."""
    m1, m2, L1, c1, c2, I1, I2, g = 1.3, 0.8, 0.7, 0.3, 0.25, 0.05, 0.02, 9.81
    m = ms.Model("dp", gravity=(0, -g, 0))
    m.add_body("l1", mass=m1, com=(0, -c1, 0), inertia=(0.06, 0.01, I1))
    m.add_body("l2", mass=m2, com=(0, -c2, 0), inertia=(0.03, 0.015, I2))
    m.add_joint("j1", "revolute", parent="ground", child="l1", axis=(0, 0, 1))
    m.add_joint("j2", "revolute", parent="l1", child="l2", parent_frame=(0, -L1, 0), axis=(0, 0, 1))
    rng = np.random.default_rng(3)
    for _ in range(5):
        (t1, t2), (w1, w2), acc = rng.uniform(-3, 3, 2), rng.uniform(-3, 3, 2), rng.uniform(-5, 5, 2)
        ch = np.cos(t2)
        M = np.array([[I1 + I2 + m1 * c1 ** 2 + m2 * (L1 ** 2 + c2 ** 2 + 2 * L1 * c2 * ch), I2 + m2 * (c2 ** 2 + L1 * c2 * ch)],
                      [I2 + m2 * (c2 ** 2 + L1 * c2 * ch), I2 + m2 * c2 ** 2]])
        hs = m2 * L1 * c2 * np.sin(t2)
        C = np.array([-hs * (2 * w1 * w2 + w2 ** 2), hs * w1 ** 2])
        G = np.array([(m1 * c1 + m2 * L1) * g * np.sin(t1) + m2 * c2 * g * np.sin(t1 + t2),
                      m2 * c2 * g * np.sin(t1 + t2)])
        q, v = np.array([t1, t2]), np.array([w1, w2])
        np.testing.assert_allclose(ms.mass_matrix(m, q), M, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(ms.inverse_dynamics(m, q, v, acc), M @ acc + C + G, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ms.inverse_dynamics(m, q, v, np.zeros(2)) - ms.inverse_dynamics(m, q, 0 * v, np.zeros(2)),
                                   C, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ms.forward_dynamics(m, q, v), np.linalg.solve(M, -C - G), rtol=1e-11, atol=1e-12)


# ----------------------------------------------------------------------------- poses by hand
def rotv(axis, angle):
    a = np.asarray(axis, dtype=float)
    return Rotation.from_rotvec(a / np.linalg.norm(a) * angle).as_matrix()


def quat(q):
    return Rotation.from_quat(np.asarray(q)[[1, 2, 3, 0]]).as_matrix()


def _unit(a):
    a = np.asarray(a, dtype=float)
    return a / np.linalg.norm(a)


def joint_motion(kind, opts, q):
    """(R_J, p_J): pose of M in F at coordinates q, written out from SPEC §2."""
    I3, z = np.eye(3), np.zeros(3)
    if kind == "weld":
        return I3, z
    if kind == "revolute":
        return rotv(opts["axis"], q[0]), z
    if kind == "prismatic":
        return I3, q[0] * _unit(opts["axis"])
    if kind == "screw":
        return rotv(opts["axis"], q[0]), opts["lead"] * q[0] / (2 * np.pi) * _unit(opts["axis"])
    if kind == "cylindrical":
        return rotv(opts["axis"], q[1]), q[0] * _unit(opts["axis"])
    if kind == "universal":
        a1, a2 = opts["axes"]
        return rotv(a1, q[0]) @ rotv(a2, q[1]), z
    if kind == "gimbal":
        return Rotation.from_euler(opts.get("seq", "xyz").upper(), q).as_matrix(), z   # upper case: intrinsic
    if kind == "planar":
        return rotv((0, 0, 1), q[2]), np.array([q[0], q[1], 0.0])
    if kind == "spherical":
        return quat(q), z
    if kind == "bushing":
        return Rotation.from_euler("XYZ", q[3:]).as_matrix(), np.asarray(q[:3])
    if kind == "free":
        return quat(q[3:]), np.asarray(q[:3])
    if kind == "custom":
        R, p, i = I3.copy(), z.copy(), 0
        for prim in opts["primitives"]:
            if prim[0] == "R":
                R = R @ rotv(prim[1], q[i])          # axes move with the primitives before them
                i += 1
            elif prim[0] == "P":
                p = p + R @ (q[i] * _unit(prim[1]))
                i += 1
            else:
                R = R @ quat(q[i:i + 4])
                i += 4
        return R, p
    raise AssertionError(kind)


KIN_CASES = {
    "weld": ("weld", {}, []),
    "revolute": ("revolute", {"axis": (0.3, -0.5, 0.8)}, [0.9]),
    "prismatic": ("prismatic", {"axis": (1, 2, 2)}, [0.35]),
    "screw": ("screw", {"axis": (0, 1, 1), "lead": 0.2}, [2.1]),
    "cylindrical": ("cylindrical", {"axis": (1, 0, 1)}, [0.3, -0.8]),
    "universal": ("universal", {"axes": ((0, 0, 1), (1, 1, 0))}, [0.7, -0.4]),
    "gimbal-xyz": ("gimbal", {}, [0.3, -0.6, 1.1]),
    "gimbal-zyx": ("gimbal", {"seq": "zyx"}, [0.3, -0.6, 1.1]),
    "gimbal-zxz": ("gimbal", {"seq": "zxz"}, [0.3, -0.6, 1.1]),
    "planar": ("planar", {}, [0.4, -0.7, 0.9]),
    "spherical": ("spherical", {}, list(_unit([0.8, 0.1, -0.5, 0.3]))),
    "bushing": ("bushing", {}, [0.1, -0.2, 0.3, 0.5, -0.4, 0.8]),
    "free": ("free", {}, [0.5, -1.0, 2.0, *_unit([0.6, -0.2, 0.5, 0.4])]),
    "custom": ("custom", {"primitives": [("P", (0, 0, 1)), ("R", (1, 0, 0)), ("P", (1, 1, 0)), ("S",)]},
               [0.4, 0.8, -0.3, *_unit([0.9, 0.2, 0.3, -0.1])]),
}


def _single(kind, opts, q, F, Mf):
    m = ms.Model("one", gravity=(0, 0, 0))
    m.add_body("b", mass=1.0, com=(0.1, 0.2, 0.3), inertia=(0.1, 0.2, 0.25))
    m.add_joint("j", kind, parent="ground", child="b", parent_frame=F, child_frame=Mf, q0=q if len(q) else None, **opts)
    return m


@pytest.mark.parametrize("case", list(KIN_CASES))
def test_body_pose_by_hand(equiv, case):
    kind, opts, q = KIN_CASES[case]
    F = (np.array([0.3, -0.2, 0.5]), rotv((1, 2, 3), 0.6))
    Mf = (np.array([-0.1, 0.25, 0.05]), rotv((-1, 0.5, 0.2), 1.1))
    m = _single(kind, opts, q, F, Mf)
    res = equiv.state_at(m, np.asarray(q, float))
    RJ, pJ = joint_motion(kind, opts, np.asarray(q, float))
    X = equiv.pose(F[1], F[0]) @ equiv.pose(RJ, pJ) @ np.linalg.inv(equiv.pose(Mf[1], Mf[0]))
    np.testing.assert_allclose(res["b.rotation"][0], X[:3, :3], atol=1e-12)
    np.testing.assert_allclose(res["b.position"][0], X[:3, 3], atol=1e-12)
    np.testing.assert_allclose(res.point("b", (0.1, -0.3, 0.2))[0], X[:3, :3] @ (0.1, -0.3, 0.2) + X[:3, 3], atol=1e-12)
    w, x, y, z = res["b.quat"][0]                      # scalar-first
    np.testing.assert_allclose(Rotation.from_quat([x, y, z, w]).as_matrix(), X[:3, :3], atol=1e-12)


def test_gimbal_xyz_is_intrinsic_euler(equiv):
    a, b, c = 0.4, -0.9, 1.3
    m = _single("gimbal", {}, [a, b, c], None, None)
    res = equiv.state_at(m, [a, b, c])
    np.testing.assert_allclose(res["b.rotation"][0], Rotation.from_euler("XYZ", [a, b, c]).as_matrix(), atol=1e-12)
    # and not the extrinsic sequence
    assert np.max(np.abs(res["b.rotation"][0] - Rotation.from_euler("xyz", [a, b, c]).as_matrix())) > 0.1


def test_planar_with_custom_normal(equiv):
    """[x, y, angle]: translation in the plane normal to n (a right-handed in-plane pair, x then y),
    rotation by the angle about n; with F at the origin, identity."""
    n = _unit([1.0, -2.0, 0.5])
    m = _single("planar", {"normal": n}, [0, 0, 0], None, None)
    P = lambda q: equiv.state_at(m, np.asarray(q, float))
    e1 = P([1, 0, 0])["b.position"][0]
    e2 = P([0, 1, 0])["b.position"][0]
    assert abs(np.linalg.norm(e1) - 1) < 1e-12 and abs(np.linalg.norm(e2) - 1) < 1e-12
    assert abs(e1 @ n) < 1e-12 and abs(e2 @ n) < 1e-12
    np.testing.assert_allclose(np.cross(e1, e2), n, atol=1e-12)
    np.testing.assert_allclose(P([1, 0, 0])["b.rotation"][0], np.eye(3), atol=1e-12)
    q = [0.3, -0.8, 1.2]
    r = P(q)
    np.testing.assert_allclose(r["b.position"][0], q[0] * e1 + q[1] * e2, atol=1e-12)
    np.testing.assert_allclose(r["b.rotation"][0], rotv(n, q[2]), atol=1e-12)
    # velocities are the coordinate rates: in-plane velocity along e1, e2 and spin about n
    st = equiv.state_at(m, np.asarray(q, float), v=[0.5, -0.25, 2.0])
    np.testing.assert_allclose(st["b.velocity"][0], 0.5 * e1 - 0.25 * e2, atol=1e-12)
    np.testing.assert_allclose(st["b.omega"][0], 2.0 * n, atol=1e-12)


def test_free_joint_velocity_convention(equiv):
    """Free joint: q[:3] is M's origin in F, v[:3] its velocity in F axes, v[3:] the angular velocity in M."""
    F = (np.array([0.3, -0.2, 0.5]), rotv((1, 2, 3), 0.6))
    Mf = (np.array([-0.1, 0.25, 0.05]), rotv((-1, 0.5, 0.2), 1.1))
    q = np.array([0.5, -1.0, 2.0, *_unit([0.6, -0.2, 0.5, 0.4])])
    v = np.array([0.3, -0.7, 1.1, 2.0, -1.0, 0.5])
    m = _single("free", {}, q, F, Mf)
    m.add_frame("b", "M", Mf)
    res = equiv.state_at(m, q, v)
    RJ = quat(q[3:])
    w_world = F[1] @ RJ @ v[3:]
    np.testing.assert_allclose(res["b.omega"][0], w_world, atol=1e-12)
    origin_M = F[0] + F[1] @ q[:3]
    np.testing.assert_allclose(res.point("b", Mf[0])[0], origin_M, atol=1e-12)
    # body-frame origin velocity = velocity of M's origin + w x (body origin - M origin)
    expected = F[1] @ v[:3] + np.cross(w_world, res["b.position"][0] - origin_M)
    np.testing.assert_allclose(res["b.velocity"][0], expected, atol=1e-12)


def test_spherical_velocity_is_angular_velocity_in_M(equiv):
    F = (np.array([0.3, -0.2, 0.5]), rotv((1, 2, 3), 0.6))
    q = _unit([0.8, 0.1, -0.5, 0.3])
    v = np.array([1.0, -2.0, 0.5])
    m = _single("spherical", {}, q, F, (np.zeros(3), rotv((0, 1, 0), 0.4)))
    res = equiv.state_at(m, q, v)
    np.testing.assert_allclose(res["b.omega"][0], F[1] @ quat(q) @ v, atol=1e-12)


# ----------------------------------------------------------------------------- coordinate names
@pytest.mark.parametrize("case", list(KIN_CASES))
def test_coordinate_names_and_sizes(helpers, case):
    kind, opts, q = KIN_CASES[case]
    nq, nv = helpers.joint_sizes(kind, opts)
    assert len(q) == nq
    m = _single(kind, opts, q, None, None)
    names = lambda letter, n: [f"j.{letter}"] if n == 1 else [f"j.{letter}[{i}]" for i in range(n)]
    assert m.coordinates() == (names("q", nq), names("v", nv))
    if nv:
        res = m.simulate(t_end=0.01, t_eval=[0.0, 0.01])
        assert np.shape(res["j.q"]) == ((2,) if nq == 1 else (2, nq))
        assert np.shape(res["j.v"]) == ((2,) if nv == 1 else (2, nv))


def test_coordinates_follow_the_tree(helpers):
    m = ms.Model("t", gravity=(0, 0, 0))
    for b in "abc":
        m.add_body(b, mass=1.0, inertia=(0.1, 0.1, 0.1))
    m.add_joint("ball", "spherical", parent="ground", child="a")
    m.add_joint("hinge", "revolute", parent="a", child="b")
    m.add_joint("fly", "free", parent="a", child="c")
    qn, vn = m.coordinates()
    assert qn == ["ball.q[0]", "ball.q[1]", "ball.q[2]", "ball.q[3]", "hinge.q"] + [f"fly.q[{i}]" for i in range(7)]
    assert vn == ["ball.v[0]", "ball.v[1]", "ball.v[2]", "hinge.v"] + [f"fly.v[{i}]" for i in range(6)]


# ------------------------------------------------------------------------------ cut joints of every kind
CUT_OPTIONS = {"revolute": {"axis": (0.3, -0.5, 0.8)}, "prismatic": {"axis": (1, 2, -0.5)},
               "cylindrical": {"axis": (1, 1, 0)}, "screw": {"axis": (0.2, 0.4, 1.0), "lead": 0.15},
               "universal": {"axes": ((1, 0, 0), (0, 0.6, 0.8))}, "gimbal": {"seq": "zxy"},
               "planar": {"normal": (0.2, 1.0, 0.3)}}
CUTTABLE = [kind for kind, known in ms.modeling.JOINT_KINDS.items() if known.closure is not None]


@pytest.mark.parametrize("kind", list(ms.modeling.JOINT_KINDS))
def test_a_cut_joint_gives_six_minus_its_dof_rows(kind):
    """The registry's invariant: a kind that can be cut closes its loop with 6 - DOF equations."""
    m = ms.Model("one")
    m.add_body("b", mass=1.0, inertia=(1, 1, 1))
    options = CUT_OPTIONS.get(kind, {"primitives": [("R", (0, 0, 1))]} if kind == "custom" else {})
    joint = m.add_joint("j", kind, parent="ground", child="b", **options)
    known = ms.modeling.JOINT_KINDS[kind]
    if known.closure is None:
        assert kind == "custom"
        return
    rows = joint.closure()
    assert len(rows) == 6 - joint.nv
    assert all(row[0] in ("offset", "angle", "screw") for row in rows)


@pytest.mark.parametrize("kind", CUTTABLE)
def test_a_cut_joint_moves_the_body_as_the_same_joint_in_the_tree(kind):
    """A body on a free joint held by a cut joint of ``kind`` follows the motion of the same body on that joint
    in the tree: the cut joint's closure rows allow exactly the joint's own motion (gravity off every axis,
    the centre of mass off the joint, both started at rest)."""
    def body(m):
        m.add_body("b", mass=1.3, com=(0.2, 0.1, -0.3), inertia=(0.05, 0.07, 0.09), frames={"x": (1, 0, 0)})
    tree = ms.Model("tree", gravity=(2.0, -9.81, 1.5))
    body(tree)
    tree.add_joint("j", kind, parent="ground", child="b", parent_frame=(0.1, 0.2, 0.3), **CUT_OPTIONS.get(kind, {}))
    loop = ms.Model("loop", gravity=(2.0, -9.81, 1.5))
    body(loop)
    loop.add_joint("float", "free", parent="ground", child="b", q0={"position": (0.1, 0.2, 0.3)})
    loop.add_joint("j", kind, parent="ground", child="b", parent_frame=(0.1, 0.2, 0.3), cut=True,
                   **CUT_OPTIONS.get(kind, {}))
    assert loop.check().dof == tree.check().dof
    t_eval = np.linspace(0.0, 0.5, 11)
    a, b = (m.simulate(t_end=0.5, t_eval=t_eval, rtol=1e-10, atol=1e-10) for m in (tree, loop))
    for point in ((0, 0, 0), (1, 0, 0), (0, 1, 0)):
        np.testing.assert_allclose(b.point("b", point), a.point("b", point), rtol=0, atol=1e-6)
    assert np.ptp(a.point("b", (1, 0, 0))) > 1e-2 or kind == "weld"       # it moved
    for s in "qva" if kind != "weld" else "":                              # and the cut joint reads the tree's
        np.testing.assert_allclose(b[f"j.{s}"], a[f"j.{s}"], rtol=0, atol=1e-6 * max(1.0, np.abs(a[f"j.{s}"]).max()))


# the angle coordinates of each kind, turned a whole turn and more in the test below
ANGLES = {"revolute": [0], "screw": [0], "cylindrical": [1], "universal": [0, 1], "gimbal": [0, 1, 2], "planar": [2],
          "bushing": [3, 4, 5]}


@pytest.mark.parametrize("kind", [kind for kind in CUTTABLE if kind != "weld"])
def test_a_cut_joint_reads_the_coordinates_of_the_same_joint_in_the_tree(helpers, equiv, rng, kind):
    """SPEC C2: a cut joint's .q, .v, .a, measured from its frames, are what the same joint reads in the tree. The
    tree model hangs the body on the joint (random frames, coordinates, velocities); the loop model floats the same
    body on a free joint at the tree's pose and velocity and cuts the joint: the same mechanism, so the same
    accelerations. The angles are a turn and more from 0 and a gimbal is on its second solution (θ2 past π/2):
    the cut joint's q0 names the branch, its screw's slide the turns."""
    options = CUT_OPTIONS.get(kind, {})
    tree_link = helpers.link("b", kind, "ground", rng, options)
    q = helpers.random_joint_q(kind, options, rng)
    q[ANGLES.get(kind, [])] += 2 * np.pi
    if kind == "gimbal":
        q[1] = 3 * np.pi - q[1]            # (a, π - b, c) + 2π: the other solution of the rotation of (a + π, b, c + π)
    if kind in ("spherical", "free"):
        q[-4:] *= np.sign(q[-4])           # a quaternion q0 is taken with w >= 0, the sign the cut joint starts on
    v = rng.uniform(-1.5, 1.5, helpers.joint_sizes(kind, options)[1])
    tree = helpers.build_mechsim([tree_link])
    a = equiv.state_at(tree, q, v)

    loop = helpers.build_mechsim([dict(tree_link, joint="float", kind="free", opts={},
                                       pf=(np.zeros(3), np.eye(3)), cf=(np.zeros(3), np.eye(3)))])
    q0 = q.copy()
    q0[ANGLES.get(kind, [])] += 0.2        # a guess off the angles: the branch nearest it
    loop.add_joint("j_b", kind, parent="ground", child="b", parent_frame=tree_link["pf"], child_frame=tree_link["cf"],
                   q0=q0, cut=True, **options)
    R = a["b.rotation"][0]
    free_q = np.concatenate([a["b.position"][0], Rotation.from_matrix(R).as_quat()[[3, 0, 1, 2]]])
    free_v = np.concatenate([a["b.velocity"][0], R.T @ a["b.omega"][0]])     # [origin velocity in F; omega in M]
    b = equiv.state_at(loop, free_q, free_v)

    assert loop.check().cut_joints == ["j_b"] and {"j_b.q", "j_b.v", "j_b.a"} <= set(loop.signals())
    # the same numbers by two compositions of the same rotations and offsets: rounding, angles up to ~10 rad
    np.testing.assert_allclose(b["j_b.q"][0], q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(b["j_b.v"][0], v, rtol=0, atol=1e-12)
    # the tree's ABA against the loop's multipliers (Λ of at most 5 rows on one body, well conditioned): rounding
    expected = a["j_b.a"][0]
    np.testing.assert_allclose(b["j_b.a"][0], expected, rtol=0, atol=1e-10 * max(1.0, np.abs(expected).max()))


def test_a_cut_gimbal_at_its_lock_keeps_the_first_angle_of_q0(helpers, equiv):
    """At the lock of a cut gimbal (zxy: the middle angle at pi/2, z and the carried y axis parallel) only the sum of
    the first and third angles is defined: the first is q0's, and the three compose the body's rotation."""
    m = helpers.build_mechsim([dict(name="b", joint="float", kind="free", parent="ground", opts={}, mass=1.0,
                                    com=np.zeros(3), inertia=np.eye(3), pf=(np.zeros(3), np.eye(3)),
                                    cf=(np.zeros(3), np.eye(3)))])
    m.add_joint("lock", "gimbal", parent="ground", child="b", seq="zxy", q0=(0.2, 1.5, 0.0), cut=True)
    R = Rotation.from_euler("ZXY", [0.7, np.pi / 2, 0.4]).as_matrix()
    q = equiv.state_at(m, np.concatenate([np.zeros(3), Rotation.from_matrix(R).as_quat()[[3, 0, 1, 2]]]))["lock.q"][0]
    assert q[0] == 0.2 and q[1] == pytest.approx(np.pi / 2, abs=1e-8)
    np.testing.assert_allclose(Rotation.from_euler("ZXY", q).as_matrix(), R, rtol=0, atol=1e-12)   # rounding
