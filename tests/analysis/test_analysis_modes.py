"""The analysis modes' machinery (issue 4): joint reactions checked by each body's Newton–Euler
balance, kinematics of driven mechanisms and its failures, trim options and failures, the
linearization's partition, quaternion states, inputs and outputs, and trajectories."""
import sys
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import four_bar  # noqa: E402

G = 9.81


def skew(w):
    return np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])


def body_balance(m, res, body):
    """Largest residual of Newton's and Euler's equations of a body (about its COM, world axes) with
    the joint reactions (parent -> child at M's origin) and constraint reactions as the only forces
    besides gravity and the listed extra wrenches."""
    b = m.bodies[body]
    R, p = res[f"{body}.rotation"], res[f"{body}.position"]
    x = p + R @ b.com
    acc, w = res[f"{body}.acceleration"], res[f"{body}.omega"]
    alpha = acc[:, :3]
    a_com = acc[:, 3:] + np.cross(alpha, x - p) + np.cross(w, np.cross(w, x - p))
    force = np.tile(b.mass * m.gravity, (len(res.t), 1))
    torque = np.zeros_like(force)
    for name, joint in m.joints.items():
        for sign, side, pose in ((1.0, joint.child, joint.child_pose), (-1.0, joint.parent, None)):
            if side != body:
                continue
            wrench = sign * res[f"{name}.reaction"]
            origin = res.point(joint.child, joint.child_pose[0])          # the reaction's point (M's origin)
            force += wrench[:, 3:]
            torque += wrench[:, :3] + np.cross(origin - x, wrench[:, 3:])
    I_world = R @ b.inertia @ np.swapaxes(R, 1, 2)
    Iw = np.einsum("nij,nj->ni", I_world, w)
    newton = force - b.mass * a_com
    euler = torque - (np.einsum("nij,nj->ni", I_world, alpha) + np.cross(w, Iw))
    return max(np.abs(newton).max(), np.abs(euler).max())


# ================================================================= reactions
def test_reactions_balance_every_body_of_the_four_bar():
    """Tree joints and the cut joint j3 (with 3 redundant equations): every body's Newton–Euler
    equations close with the reaction signals, during a forward run with a crank torque."""
    m = four_bar.build_model()
    res = m.simulate(t_end=0.5, t_eval=np.linspace(0, 0.5, 11), rtol=1e-10, atol=1e-12)
    assert "j1.reaction" in m.signals() and "j3.reaction" in m.signals()
    scale = max(np.abs(res[f"{j}.reaction"]).max() for j in m.joints)
    for body in ("crank", "coupler", "rocker"):
        assert body_balance(m, res, body) < 1e-9 * scale, body
    # the crank's reaction along its axis is the applied torque (the joint force it transmits)
    assert np.allclose(res["j1.reaction"][:, 2], four_bar.TORQUE, atol=1e-9)


def test_reaction_of_a_spherical_chain_with_a_weld_and_force_elements():
    """3D: a spherical joint, a weld, a point spring–damper and a body force; Newton–Euler closes on
    every body, and the weld carries what hangs from it."""
    m = ms.Model("chain", gravity=(0, 0, -G))
    m.add_body("a", mass=1.5, com=(0.1, 0.0, -0.3), inertia=(0.04, 0.05, 0.02, 0.003, -0.002, 0.001))
    m.add_body("b", mass=0.7, com=(0.0, 0.05, -0.1), inertia=(0.01, 0.012, 0.008))
    m.add_body("c", mass=0.4, com=(0.0, 0.0, -0.2), inertia=(0.005, 0.005, 0.002))
    m.add_joint("ball", "spherical", parent="ground", child="a", q0=(np.cos(0.2), np.sin(0.2), 0.0, 0.0),
                v0=(0.3, -1.0, 2.0))
    m.add_joint("fix", "weld", parent="a", child="b", parent_frame=(0.0, 0.0, -0.6))
    m.add_joint("hinge", "revolute", parent="b", child="c", parent_frame=(0.0, 0.1, -0.2), axis=(1, 0, 0), v0=1.0)
    m.add_force("cord", "spring_damper", body_a="ground", point_a=(0.5, 0.0, 0.0), body_b="c", point_b=(0, 0, -0.3),
                stiffness=30.0, damping=0.4, rest_length=0.3)
    m.add_force("push", "body_force", body="b", point=(0.05, 0.0, 0.0), force=lambda t: (np.sin(t), 0.0, 0.5),
                torque=(0.0, 0.1, 0.0))
    m.add_force("drag", "joint_spring_damper", joint="hinge", stiffness=0.5, damping=0.05)
    res = m.simulate(t_end=0.3, t_eval=np.linspace(0, 0.3, 7), rtol=1e-10, atol=1e-12)
    # c feels the cord: add its pull to the balance by hand
    xa = np.array([0.5, 0.0, 0.0])
    xb = res.point("c", (0, 0, -0.3))
    d = xb - xa
    length = np.linalg.norm(d, axis=1)
    n = d / length[:, None]
    vb = res["c.velocity"] + np.cross(res["c.omega"], xb - res["c.position"])
    tension = 30.0 * (length - 0.3) + 0.4 * np.einsum("ni,ni->n", n, vb)
    pull = -tension[:, None] * n                                        # on c, towards the anchor
    assert np.abs(pull).max() > 1.0
    # the balance of c with the cord's pull added as an extra force
    hinge = res["hinge.reaction"]
    c = m.bodies["c"]
    x = res["c.position"] + res["c.rotation"] @ c.com
    acc, w = res["c.acceleration"], res["c.omega"]
    a_com = acc[:, 3:] + np.cross(acc[:, :3], x - res["c.position"]) + np.cross(w, np.cross(w, x - res["c.position"]))
    np.testing.assert_allclose(hinge[:, 3:] + pull + c.mass * m.gravity, c.mass * a_com, atol=1e-9)
    # body a: nothing but its joints and gravity
    assert body_balance(m, res, "a") < 1e-9
    # the hinge transmits the spring-damper's torque about its axis (world x turned with the bodies)
    axis = np.einsum("nij,j->ni", res["b.rotation"], [1.0, 0.0, 0.0])
    drag = -0.5 * res["hinge.q"] - 0.05 * res["hinge.v"]
    np.testing.assert_allclose(np.einsum("ni,ni->n", hinge[:, :3], axis), drag, atol=1e-10)


# ================================================================= kinematics
def test_kinematics_needs_every_dof_driven():
    with pytest.raises(ms.ModelError, match="1 degree"):
        four_bar.build_model().kinematics([0.0, 0.1])
    m = four_bar.build_model()
    m.add_driver("j1", position="1.5708 + 2*t")
    with pytest.raises(ms.MechsimError, match="increasing"):
        m.kinematics([0.1, 0.0])


def test_kinematics_follows_drivers_and_reports_a_lockup_with_partial_results():
    """The four-bar driven at its crank through whole turns; then driven at its rocker, which cannot
    turn round (a crank-rocker): the run stops where the loop cannot close, keeping what it had."""
    m = four_bar.build_model()
    m.add_driver("j1", position="1.5708 + 2*t", velocity="2", acceleration="0")
    t = np.linspace(0.0, 4.0, 81)
    kin = m.kinematics(t)
    np.testing.assert_allclose(kin["j1.q"], 1.5708 + 2 * t, atol=1e-12)
    np.testing.assert_allclose(kin["j1.v"], 2.0, atol=1e-10)
    np.testing.assert_allclose(kin["j1.a"], 0.0, atol=1e-8)
    assert kin.constraint_error.max() < 1e-11
    m = four_bar.build_model()
    rocker0 = m.assemble()["j4.q"]
    m.add_driver("j4", position=lambda t: rocker0 + t, velocity=1.0, acceleration=0.0)
    with pytest.raises(ms.SimulationError, match="kinematics of") as info:
        m.kinematics(np.linspace(0.0, 6.0, 121))
    partial = info.value.partial
    assert 1 < len(partial.t) < 121 and partial.success is False
    assert partial.constraint_error.max() < 1e-9


# ================================================================= trim
def flywheel_pendulum():
    m = ms.Model("flywheel-pendulum", gravity=(0, -G, 0))
    m.add_body("arm", mass=1.0, com=(0.5, 0, 0), inertia=(0.001, 0.08, 0.08))
    m.add_body("wheel", mass=0.5, inertia=(0.01, 0.005, 0.005))
    m.add_joint("pivot", "revolute", parent="ground", child="arm", axis=(0, 0, 1), q0=-1.2)
    m.add_joint("spin", "revolute", parent="arm", child="wheel", parent_frame=(1.0, 0, 0), axis=(1, 0, 0))
    m.add_input("u")
    m.add_force("motor", "joint_force", joint="pivot", value="u")
    return m


def test_trim_with_held_velocity_and_free_input():
    m = flywheel_pendulum()
    op = m.trim(fixed={"spin.v": 7.0})                    # hangs, its wheel spinning steadily about the arm
    assert op["spin.v"] == 7.0 and op["pivot.v"] == 0.0
    assert abs(np.sin(op["pivot.q"]) + 1.0) < 1e-12      # straight down (angle -pi/2 from +x)
    assert op.residual < 1e-9
    np.testing.assert_allclose(ms.forward_dynamics(m, op.q, op.v), 0.0, atol=1e-9)
    op = m.trim(fixed={"pivot.q": 0.3}, free_inputs=["u"])
    static = (1.0 * 0.5 + 0.5 * 1.0) * G * np.cos(0.3)   # the motor holds the arm's weight
    assert abs(op.inputs["u"] - static) < 1e-9
    assert op["pivot.q"] == 0.3


def test_trim_failures_are_model_errors():
    m = ms.Model("wheel", gravity=(0, 0, 0))
    m.add_body("w", mass=1.0, inertia=(0.1, 0.1, 0.2))
    m.add_joint("j", "revolute", parent="ground", child="w", axis=(0, 0, 1))
    m.add_force("torque", "joint_force", joint="j", value=1.0)
    with pytest.raises(ms.ModelError, match="no equilibrium .* acceleration left is 5"):
        m.trim()
    with pytest.raises(ms.MechsimError, match="unknown input 'x'"):
        m.trim(free_inputs=["x"])
    with pytest.raises(ms.ModelError, match="unknown coordinate"):
        m.trim(fixed=["nope"])


# ================================================================= linearization
def test_spinning_body_on_a_ball_joint():
    """Torque-free spin Omega about principal axis 3 (quaternion state, tangent coordinates): A's
    eigenvalues are those of -[w]x (0, +-i Omega) and of Euler's equations linearized,
    lambda^2 = Omega^2 (I2 - I3)(I3 - I1) / (I1 I2)."""
    I1, I2, I3, spin = 0.3, 0.2, 0.1, 4.0                 # spin about the minor axis: stable
    m = ms.Model("top", gravity=(0, 0, 0))
    m.add_body("body", mass=1.0, inertia=(I1, I2, I3))
    m.add_joint("ball", "spherical", parent="ground", child="body", q0=(0.9, 0.1, -0.3, 0.2), v0=(0, 0, spin))
    lin = m.linearize(m.assemble())
    assert lin.state_names == ["ball.q[0]", "ball.q[1]", "ball.q[2]", "ball.v[0]", "ball.v[1]", "ball.v[2]"]
    lam2 = spin ** 2 * (I2 - I3) * (I3 - I1) / (I1 * I2)
    expected = [-spin, -np.sqrt(-lam2), 0, 0, np.sqrt(-lam2), spin]          # imaginary parts
    poles = lin.poles()
    assert np.abs(poles.real).max() < 1e-6               # the double zero is a Jordan block: ~sqrt(eps)
    np.testing.assert_allclose(np.sort(poles.imag), expected, atol=1e-9)
    state = m.initial_state()
    state.v = np.array([0.0, spin, 0.0])                 # about the intermediate axis: unstable
    lam2 = spin ** 2 * (I1 - I2) * (I2 - I3) / (I3 * I1)   # the same formula, axes (3, 1, 2) for (1, 2, 3)
    assert lam2 > 0
    assert abs(np.max(m.linearize(state).poles().real) - np.sqrt(lam2)) < 1e-7


def test_linearize_inputs_outputs_and_minimal_agree():
    """A joint's generalized force as input equals a declared input driving it; ".a" outputs have D;
    on a closed loop the full model's columns are the minimal one's, dependent columns zero."""
    m = four_bar.build_model()
    m.add_input("u")
    m.add_force("servo", "joint_force", joint="j1", value="u")
    op = m.assemble()
    full = m.linearize(op, inputs=["u", "j1.force"], outputs=["j1.a", "rocker.omega[2]"])
    assert full.A.shape == (6, 6) and full.B.shape == (6, 2) and full.C.shape == (2, 6)
    np.testing.assert_allclose(full.B[:, 0], full.B[:, 1], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(full.D[:, 0], full.D[:, 1], rtol=1e-9, atol=1e-12)
    assert full.independent == ["j1.q"]
    mini = m.linearize(op, inputs=["u"], outputs=["j1.a", "rocker.omega[2]"], minimal=True)
    assert mini.state_names == ["j1.q", "j1.v"]
    keep = [full.state_names.index(n) for n in mini.state_names]
    np.testing.assert_allclose(full.A[np.ix_(keep, keep)], mini.A, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(full.C[:, keep], mini.C, rtol=1e-9, atol=1e-12)
    dependent = [k for k in range(6) if k not in keep]
    assert np.all(full.A[:, dependent] == 0.0) and np.all(full.C[:, dependent] == 0.0)
    np.testing.assert_allclose(mini.C[0], mini.A[1], rtol=1e-9, atol=1e-12)          # y = j1.a = row 2 of A
    np.testing.assert_allclose(mini.D[0, 0], mini.B[1, 0], rtol=1e-9)
    # at rest, the rocker's rate follows the crank's rate only: C = [0, velocity ratio]
    assert abs(mini.C[1, 0]) < 1e-9 and abs(mini.C[1, 1]) > 0.1


def test_independent_coordinates_chosen_or_refused():
    m = four_bar.build_model()
    m.add_input("u")
    m.add_force("servo", "joint_force", joint="j1", value="u")
    op = m.trim(fixed=["j1"], free_inputs=["u"])         # an equilibrium: there A's eigenvalues do not
    lin = m.linearize(op, independent=["j4"], minimal=True)      # depend on the coordinates
    assert lin.independent == ["j4.q"] and lin.state_names == ["j4.q", "j4.v"]
    for other in (["j1"], ["j2"]):
        np.testing.assert_allclose(np.sort_complex(lin.poles()),
                                   np.sort_complex(m.linearize(op, minimal=True, independent=other).poles()),
                                   rtol=1e-8)
    with pytest.raises(ms.MechsimError, match="1 degree"):
        m.linearize(op, independent=["j1", "j4"])
    chain = flywheel_pendulum()                          # 2 DOF; driving the pivot leaves the wheel free
    chain.add_driver("pivot", position=0.2)
    with pytest.raises(ms.MechsimError, match="'pivot.q' cannot be independent .* drivers determine it"):
        chain.linearize(chain.assemble(), independent=["pivot"])
    assert chain.linearize(chain.assemble(), minimal=True).independent == ["spin.q"]
    with pytest.raises(ms.MechsimError, match="unknown input"):
        four_bar.build_model().linearize(inputs=["j9.force"])
    with pytest.raises(ms.MechsimError, match="unknown output"):
        four_bar.build_model().linearize(outputs=["crank.speed"])


def test_linearize_along_a_trajectory_keeps_the_partition():
    m = four_bar.build_model()
    res = m.simulate(t_end=0.4, t_eval=np.linspace(0, 0.4, 5), rtol=1e-10, atol=1e-12)
    lins = m.linearize(res, minimal=True, independent=["j4"])
    assert len(lins) == 5 and all(lin.independent == ["j4.q"] for lin in lins)
    k = 3
    state = ms.State(m.compile(), res.q[k], res.v[k], res.t[k])
    single = m.linearize(state, minimal=True, independent=["j4"])
    np.testing.assert_allclose(lins[k].A, single.A, rtol=1e-8, atol=1e-10)
    assert not np.allclose(lins[0].A, lins[4].A)          # it moved: the linearization changes


def test_adaptive_differences_beat_a_single_step():
    """A pendulum at a generic angle and speed: the adaptive ladder gets A to 1e-10, a single central
    difference of 1e-3 only to ~1e-6 (truncation error h^2 |a'''| / 6)."""
    m = ms.Model("pendulum", gravity=(0, -G, 0))
    m.add_body("rod", mass=1.0, com=(0.4, 0, 0), inertia=(0.001, 0.02, 0.02))
    m.add_joint("j", "revolute", parent="ground", child="rod", axis=(0, 0, 1), q0=0.7, v0=1.3)
    I = 0.02 + 1.0 * 0.4 ** 2                             # a = -m g l cos(q) / I
    exact = np.array([[0, 1], [1.0 * G * 0.4 * np.sin(0.7) / I, 0]])
    adaptive = m.linearize(m.initial_state()).A
    single = m.linearize(m.initial_state(), adaptive=False).A
    assert np.abs(adaptive - exact).max() < 1e-10
    assert np.abs(single - exact).max() > 1e-9


def test_body_force_components_as_inputs():
    """A model input may drive a body force component: simulate takes its value, linearize its column
    (B = lever arm / pivot inertia for a horizontal push at the tip of a hanging rod)."""
    m = ms.Model("pushed", gravity=(0, -G, 0))
    m.add_body("rod", mass=1.0, com=(0, -0.5, 0), inertia=(0.02, 0.001, 0.02))
    m.add_joint("j", "revolute", parent="ground", child="rod", axis=(0, 0, 1))
    m.add_input("push")
    m.add_force("tip", "body_force", body="rod", point=(0, -1, 0), force=("push", 0, 0))
    lin = m.linearize(inputs=["push"], minimal=True)
    np.testing.assert_allclose(lin.B[:, 0], [0.0, 1.0 / (0.02 + 0.25)], rtol=1e-10)
    res = m.simulate(t_end=0.2, inputs={"push": 2.0}, t_eval=[0.2], rtol=1e-10, atol=1e-12)
    assert res["j.q"][0] > 0.0                           # pushed towards +x: turns positively about z


def test_linearize_refuses_a_state_off_the_constraints():
    m = four_bar.build_model()
    state = m.assemble()
    state["j2.q"] += 0.2
    with pytest.raises(ms.MechsimError, match="violates the constraints"):
        m.linearize(state)
    state = m.assemble()
    state["j2.v"] = 1.0                                   # the loop's velocity equations broken
    with pytest.raises(ms.MechsimError, match="violates the constraints"):
        m.linearize(state)
    with pytest.raises(ms.ModelError, match="linearize\\(\\): independent names unknown coordinate 'j9'"):
        m.linearize(independent=["j9"])


def test_trim_leaves_a_stationary_point_of_the_residual():
    """A double pendulum held level (q0 = (0, 0)): the accelerations have no gradient there, yet trim
    finds an equilibrium (hanging or upright: both links vertical)."""
    m = ms.Model("double", gravity=(0, -G, 0))
    for name, parent in (("a", "ground"), ("b", "a")):
        m.add_body(name, mass=1.0, com=(0.5, 0, 0), inertia=(0.001, 0.08, 0.08))
    m.add_joint("j1", "revolute", parent="ground", child="a", axis=(0, 0, 1))
    m.add_joint("j2", "revolute", parent="a", child="b", parent_frame=(1.0, 0, 0), axis=(0, 0, 1))
    op = m.trim()
    assert abs(np.cos(op["j1.q"])) < 1e-12 and abs(np.sin(op["j2.q"])) < 1e-12
    with pytest.raises(ms.ModelError, match="trim\\(\\): fixed names unknown coordinate 'j9'"):
        m.trim(fixed=["j9"])
