"""Body signals are consistent time derivatives of each other (SPEC §2): .acceleration [angular;
linear] of the body-frame origin in world equals d/dt of .omega and .velocity, .velocity equals
d/dt .position, .omega is the angular velocity of .rotation, joint .a equals d/dt .v."""
import numpy as np
import pytest

import mechsim as ms

H = 1e-3
T_END = 0.4


def derivative(t, x):
    """Five-point central difference on a uniform grid (interior samples only)."""
    return (x[:-4] - 8 * x[1:-3] + 8 * x[3:-1] - x[4:]) / (12 * (t[1] - t[0]))


def chain(gravity):
    """ground -R(unaligned)-> a -S-> b -P-> c, every frame offset and turned, a joint spring."""
    from scipy.spatial.transform import Rotation
    rot = lambda *e: Rotation.from_euler("xyz", e).as_matrix()
    m = ms.Model("chain", gravity=gravity)
    m.add_body("a", mass=1.2, com=(0.2, 0.05, 0.0), inertia=(0.01, 0.04, 0.045, 0.002, 0.0, 0.0))
    m.add_body("b", mass=0.9, com=(0.0, -0.2, 0.05), inertia=(0.03, 0.01, 0.03))
    m.add_body("c", mass=0.5, com=(0.05, 0.0, 0.0), inertia=(0.004, 0.005, 0.006))
    m.add_joint("ja", "revolute", parent="ground", child="a", parent_frame=((0.1, 0.2, 0.3), rot(0.3, 0.2, 0.1)),
                child_frame=((-0.05, 0.0, 0.02), rot(0.0, 0.4, 0.0)), axis=(0.2, 0.3, 0.9), q0=0.4, v0=2.0)
    m.add_joint("jb", "spherical", parent="a", child="b", parent_frame=((0.4, 0.0, 0.0), rot(0.5, 0.0, 0.0)),
                child_frame=((0.0, 0.1, 0.0), rot(0.0, 0.0, 0.3)), q0={"euler": [0.3, 0.5, -0.2], "seq": "xyz"},
                v0=(1.0, -2.0, 3.0))
    m.add_joint("jc", "prismatic", parent="b", child="c", parent_frame=((0.0, -0.4, 0.0), rot(0.0, 0.2, 0.0)),
                child_frame=((0.1, 0.0, 0.0), rot(0.1, 0.0, 0.0)), axis=(0, 1, 0), q0=0.05, v0=0.5)
    m.add_force("k", "joint_spring_damper", joint="jc", stiffness=40.0, damping=0.3)
    return m


def floating(gravity):
    """A free body pushed by a time-varying force at an offset point."""
    from scipy.spatial.transform import Rotation
    m = ms.Model("floating", gravity=gravity)
    m.add_body("f", mass=2.0, com=(0.1, -0.1, 0.05), inertia=(0.05, 0.03, 0.04, 0.004, -0.002, 0.001))
    m.add_joint("jf", "free", parent="ground", child="f",
                parent_frame=((0.0, 0.0, 1.0), Rotation.from_euler("xyz", [0.2, 0.4, 0.1]).as_matrix()),
                child_frame=((0.05, 0.02, 0.0), Rotation.from_euler("xyz", [0.0, 0.3, 0.6]).as_matrix()),
                v0=(0.2, 0.1, -0.3, 1.0, 2.0, -0.5))
    m.add_force("push", "body_force", body="f", point=(0.2, 0.1, 0.0),
                force=lambda t: (np.sin(3 * t), 1.0, 0.5 * t), torque=lambda t: (0.0, 0.1 * np.cos(t), 0.0))
    return m


BUILDERS = {"chain": chain, "floating": floating}
GRAVITY = (0.0, -9.81, 2.0)


def run(model_name, gravity):
    m = BUILDERS[model_name](gravity)
    t = np.arange(0.0, T_END + H / 2, H)
    res = m.simulate(t_end=t[-1], t_eval=t, solver="DOP853", rtol=1e-11, atol=1e-13)
    return m, res


@pytest.fixture(scope="module", params=[(name, g) for name in BUILDERS for g in ("zero-g", "gravity")],
                ids=lambda p: f"{p[0]}-{p[1]}")
def sim(request):
    name, g = request.param
    return name, g, run(name, (0.0, 0.0, 0.0) if g == "zero-g" else GRAVITY)


def bodies(m):
    return [b for b in m.bodies if b != "ground"]


def close(actual, expected, rel=1e-6):
    scale = max(1.0, np.max(np.abs(expected)))
    np.testing.assert_allclose(actual, expected, rtol=0, atol=rel * scale)


def test_velocity_is_derivative_of_position(sim):
    _, _, (m, res) = sim
    for b in bodies(m):
        close(res[f"{b}.velocity"][2:-2], derivative(res.t, res[f"{b}.position"]))


def test_omega_is_angular_velocity_of_rotation(sim):
    _, _, (m, res) = sim
    for b in bodies(m):
        R = res[f"{b}.rotation"]
        W = np.einsum("nij,nkj->nik", derivative(res.t, R), R[2:-2])       # Rdot R^T = [w]x
        w = np.column_stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]])
        close(res[f"{b}.omega"][2:-2], w)


def test_angular_acceleration_is_derivative_of_omega(sim):
    _, _, (m, res) = sim
    for b in bodies(m):
        close(res[f"{b}.acceleration"][2:-2, :3], derivative(res.t, res[f"{b}.omega"]))


def test_linear_acceleration_is_derivative_of_velocity(sim):
    name, g, (m, res) = sim
    for b in bodies(m):
        close(res[f"{b}.acceleration"][2:-2, 3:], derivative(res.t, res[f"{b}.velocity"]))


def test_joint_acceleration_is_derivative_of_joint_velocity(sim):
    _, _, (m, res) = sim
    for j in m.joints:
        v = np.asarray(res[f"{j}.v"])
        close(np.asarray(res[f"{j}.a"])[2:-2], derivative(res.t, v))


def _pendulum():
    m = ms.Model("p", gravity=(0, -9.81, 0))
    m.add_body("b", mass=1.0, com=(0, -1, 0))
    m.add_joint("j", "revolute", parent="ground", child="b", axis=(0, 0, 1), q0=0.5)
    return m.simulate(t_end=0.1, t_eval=[0.0, 0.1])


def test_pendulum_angular_acceleration():
    res = _pendulum()
    np.testing.assert_allclose(res["b.acceleration"][:, :3], np.column_stack([0 * res.t, 0 * res.t, res["j.a"]]),
                               atol=1e-12)
    assert res["b.acceleration"][0, 2] == pytest.approx(-9.81 * np.sin(0.5), rel=1e-12)


def test_fixed_pivot_has_zero_linear_acceleration():
    """The body frame of a pendulum sits on the fixed hinge: its linear acceleration is zero
    (mechsim reports (0, 9.81, 0) = -gravity)."""
    res = _pendulum()
    np.testing.assert_allclose(res["b.acceleration"][:, 3:], 0.0, atol=1e-12)
