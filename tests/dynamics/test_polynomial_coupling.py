"""The polynomial_coupling constraint (modeling/constraints/polynomial_coupling.py, dynamics/constraints.py
polynomial_row; against MuJoCo's equalities: tests/io/test_mjcf.py): its residual, Jacobian and velocity term against
finite differences, its linear case against a gear, assembly onto it, and its options' checks."""
import numpy as np
import pytest

import mechsim as ms
from mechsim.dynamics.api import constraint_accelerations, constraint_values

A = (0.1, 0.7, 0.4, -0.3, 0.2)


def chain(**coupling):
    m = ms.Model("chain", gravity=(0.3, -9.81, 0.2))
    for name in "abc":
        m.add_body(name, mass=1.0, com=(0.2, 0.05, 0), inertia=(0.01, 0.02, 0.025))
    m.add_joint("j1", "revolute", "ground", "a", axis=(0, 0, 1), q0=0.3)
    m.add_joint("j2", "revolute", "a", "b", parent_frame=(0.5, 0, 0), axis=(0, 1, 0.2), q0=-0.2)
    m.add_joint("j3", "prismatic", "b", "c", parent_frame=(0.4, 0, 0), axis=(1, 0, 0.3), q0=0.05)
    if coupling:
        m.add_constraint("cam", "polynomial_coupling", **coupling)
    return m


def test_residual_jacobian_and_velocity_term_match_finite_differences():
    """h = y - y0 - P(x - x0) - a0; G v = dh/dt and Gdot v = -gamma by central differences along q' = v."""
    m = chain(y={"j3": 2.0, "j1": 0.3}, x={"j1": 1.0, "j2": -0.6}, coefficients=A, y0=0.2, x0=0.1)
    cm, rng, eps = m.compile(), np.random.default_rng(2), 1e-6
    for _ in range(3):
        q, v = rng.uniform(-1, 1, 3), rng.uniform(-2, 2, 3)
        h, _, G = constraint_values(cm, q, v)
        y, d = 2.0 * q[2] + 0.3 * q[0] - 0.2, q[0] - 0.6 * q[1] - 0.1
        assert np.isclose(h[0], y - A[0] - sum(a * d ** k for k, a in enumerate(A) if k), rtol=1e-13, atol=1e-14)
        rate = (constraint_values(cm, q + eps * v, v)[0] - constraint_values(cm, q - eps * v, v)[0]) / (2 * eps)
        assert np.isclose(G[0] @ v, rate[0], rtol=1e-8, atol=1e-8)
        Gdot = (constraint_values(cm, q + eps * v, v)[2] - constraint_values(cm, q - eps * v, v)[2]) / (2 * eps)
        gamma = constraint_accelerations(cm, q, v)[1]
        assert np.isclose(-Gdot[0] @ v, gamma[0], rtol=1e-7, atol=1e-8) and abs(gamma[0]) > 1e-2


def test_linear_coupling_is_a_gear():
    """y - y0 = a1 (x - x0) between two joints, references at q0: the gear of ratio a1, its reaction too."""
    m = chain(y="j1", x="j3", coefficients=(0.0, -0.8))
    gear = chain()
    gear.add_constraint("cam", "gear", joints=("j1", "j3"), ratio=-0.8)
    q, v = np.array([0.3, 0.4, 0.05]), np.array([0.8, -0.5, -1.0])
    assert np.allclose(ms.forward_dynamics(m, q, v), ms.forward_dynamics(gear, q, v), rtol=1e-12, atol=1e-12)
    reactions = [model.simulate(t_end=0.1, t_eval=[0.0, 0.1])["cam.reaction"] for model in (m, gear)]
    assert np.allclose(*reactions, rtol=1e-6) and np.abs(reactions[0]).max() > 0.1   # the multiplier, as a gear's


def test_assembly_lands_on_the_quartic():
    """Default references: y and x at q0, which misses y by a0; given ones stay when q0 moves."""
    q = chain(y="j3", x="j2", coefficients=A).assemble(fixed=["j2"]).q
    assert np.isclose(q[2] - 0.05, A[0]) and np.isclose(q[1], -0.2)
    m = chain(y="j3", x="j2", coefficients=A, y0=0.05, x0=-0.2)
    m.joints["j2"].q0 = 0.4                                            # x - x0 = 0.6
    q = m.assemble(fixed=["j2"]).q
    assert np.isclose(q[2] - 0.05, sum(a * 0.6 ** k for k, a in enumerate(A)), rtol=1e-9)


@pytest.mark.parametrize("options, match", [
    ({"x": "j2"}, r"missing y="),
    ({"y": "j9"}, r"unknown joint 'j9'"),
    ({"y": "j1", "x": {"j2": None}}, r"coefficient of joint 'j2' in x must be a finite number"),
    ({"y": "j1", "coefficients": (1, 2, 3, 4, 5, 6)}, r"coefficients must be 1 to 5 finite numbers"),
    ({"y": "j1", "y0": "zero"}, r"y0 must be a number"),
    ({"y": "j1", "ratio": 2}, r"unknown option"),
])
def test_bad_options_name_the_constraint(options, match):
    with pytest.raises(ms.ModelError, match=r"constraint 'cam' \(polynomial_coupling\).*" + match):
        chain(**options)


def test_the_model_file_takes_it(tmp_path):
    m = chain(y={"j3": 2.0}, x="j2", coefficients=A)
    m.to_yaml(tmp_path / "chain.yaml")
    again = ms.load(tmp_path / "chain.yaml")
    q, v = np.array([0.3, 0.4, 0.2]), np.array([0.8, -0.5, -1.0])
    assert np.array_equal(ms.forward_dynamics(again, q, v), ms.forward_dynamics(m, q, v))
