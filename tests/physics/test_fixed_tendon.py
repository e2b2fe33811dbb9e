"""The fixed_tendon force element (modeling/forces/fixed_tendon.py; against MuJoCo itself: tests/io/test_mjcf.py): on
one joint it is a joint spring-damper with gains scaled by c^2, slack in its dead band; its options' checks, signals and
the model file."""
import numpy as np
import pytest

import mechsim as ms


def two_links(**tendon):
    m = ms.Model("arm", gravity=(0, -9.81, 0))
    for name in ("a", "b"):
        m.add_body(name, mass=1.0, com=(0.3, 0, 0), inertia=(0.01, 0.02, 0.03))
    m.add_joint("j1", "revolute", "ground", "a", axis=(0, 0, 1), q0=0.2)
    m.add_joint("j2", "prismatic", "a", "b", parent_frame=(0.6, 0, 0), axis=(1, 0, 0), q0=0.1)
    if tendon:
        m.add_force("t", "fixed_tendon", **tendon)
    return m


def test_on_one_joint_it_is_a_scaled_joint_spring_damper():
    """L = c q: tau = c (-k (c q - rest) - b c v) = -(k c^2) (q - rest / c) - (b c^2) v."""
    c, k, b, rest = -1.5, 40.0, 0.7, 0.3
    m = two_links(joints={"j2": c}, stiffness=k, damping=b, rest_length=rest)
    reference = two_links()
    reference.add_force("s", "joint_spring_damper", joint="j2", stiffness=k * c * c, damping=b * c * c, rest=rest / c)
    rng = np.random.default_rng(5)
    for _ in range(3):
        q, v = rng.uniform(-1, 1, 2), rng.uniform(-2, 2, 2)
        assert np.allclose(ms.forward_dynamics(m, q, v), ms.forward_dynamics(reference, q, v), rtol=1e-12, atol=1e-12)


def test_dead_band_and_signals():
    """Inside (low, high) only the damper acts; the signals give L and the tension."""
    m = two_links(joints={"j1": 1.0, "j2": 2.0}, stiffness=50.0, damping=0.5, rest_length=(0.0, 1.0))
    free = two_links()
    q, v = np.array([0.2, 0.1]), np.array([0.4, -0.3])                # L = 0.4: slack spring, rate 0.4 - 0.6
    tau = 0.5 * 0.2 * np.array([1.0, 2.0])                           # -b L' along (1, 2)
    assert np.allclose(ms.forward_dynamics(m, q, v), ms.forward_dynamics(free, q, v, tau=tau), rtol=1e-12)
    res = m.simulate(t_end=1e-6, t_eval=[0.0])
    assert np.isclose(res["t.length"][0], 0.4) and np.isclose(res["t.force"][0], 0.0)
    m.add_force("stiff", "fixed_tendon", joints={"j1": 1.0}, stiffness=10.0, rest_length=-0.3)
    res = m.simulate(t_end=1e-6, t_eval=[0.0])
    assert np.isclose(res["stiff.force"][0], -10.0 * 0.5)


@pytest.mark.parametrize("options, match", [
    ({}, r"missing joints="),
    ({"joints": ["j1"]}, r"joints must map joint names to coefficients"),
    ({"joints": {"j9": 1.0}}, r"unknown joint 'j9'"),
    ({"joints": {"j1": "one"}}, r"coefficient of joint 'j1' in joints must be a finite number"),
    ({"joints": {"j1": 1.0}, "stiffness": -1.0}, r"stiffness and damping must be >= 0"),
    ({"joints": {"j1": 1.0}, "rest_length": (1.0, 0.0)}, r"rest_length must be a length or \(low, high\)"),
])
def test_bad_options_name_the_element(options, match):
    with pytest.raises(ms.ModelError, match=r"force 't' \(fixed_tendon\).*" + match):
        two_links().add_force("t", "fixed_tendon", **options)


def test_a_joint_with_several_coordinates_is_refused():
    m = two_links()
    m.add_body("c", mass=1.0, inertia=(0.1, 0.1, 0.1))
    m.add_joint("ball", "spherical", "b", "c")
    with pytest.raises(ms.ModelError, match=r"force 't' \(fixed_tendon\): joint 'ball' \(spherical\) in joints must "
                                            "have exactly one coordinate"):
        m.add_force("t", "fixed_tendon", joints={"ball": 1.0})


def test_the_model_file_takes_it(tmp_path):
    m = two_links(joints={"j1": 1.0, "j2": -0.5}, stiffness=20.0, damping=0.1, rest_length=(0.1, 0.2))
    m.to_yaml(tmp_path / "arm.yaml")
    again = ms.load(tmp_path / "arm.yaml")
    q, v = np.array([0.9, -0.4]), np.array([0.3, 0.2])
    assert np.array_equal(ms.forward_dynamics(again, q, v), ms.forward_dynamics(m, q, v))
