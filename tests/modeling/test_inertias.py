"""Inertias that no rigid body has: add_body refuses them unless told (check_inertia=False), and
physical_inertia gives the nearest one that a rigid body has (what the robot-file readers use)."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mechsim as ms
from mechsim.modeling.body import inertia_problem, physical_inertia


def point_masses_inertia(rng, n=4):
    """The inertia about their centre of mass of n random point masses: a rigid body's, by construction."""
    masses, points = rng.uniform(0.1, 2.0, n), rng.normal(size=(n, 3))
    points -= masses @ points / masses.sum()
    return sum(m * (r @ r * np.eye(3) - np.outer(r, r)) for m, r in zip(masses, points))


def test_a_rigid_bodys_inertia_is_kept():
    rng = np.random.default_rng(3)
    for _ in range(50):
        J = point_masses_inertia(rng, n=rng.integers(2, 6))
        assert inertia_problem(J) is None
        np.testing.assert_allclose(physical_inertia(J), J, atol=1e-14 * np.abs(J).max())


def test_the_nearest_inertia_in_closed_form():
    """Moments (1, 1, 3) break I1 + I2 >= I3 by 1: the nearest point of that face is (4/3, 4/3, 8/3) (the
    violation over the normal (1, 1, -1), shared out), in the tensor's own principal axes; moments (-1e-8, 1, 1)
    go to (0, 1, 1)."""
    R = Rotation.from_rotvec([0.3, -0.7, 1.1]).as_matrix()
    J = R @ np.diag([1.0, 1.0, 3.0]) @ R.T
    assert "triangle inequality" in inertia_problem(J)
    np.testing.assert_allclose(physical_inertia(J), R @ np.diag([4 / 3, 4 / 3, 8 / 3]) @ R.T, atol=1e-14)
    J = R @ np.diag([-1e-8, 1.0, 1.0]) @ R.T
    assert "not positive definite" in inertia_problem(J)
    np.testing.assert_allclose(physical_inertia(J), R @ np.diag([0.0, 1.0, 1.0]) @ R.T, atol=1e-14)


def test_no_rigid_bodys_inertia_is_nearer():
    """For tensors that no rigid body has, every rigid body's inertia tried (random point masses, and mixes of
    them with the one found: the set is convex) is at least as far away as the one physical_inertia gives."""
    rng = np.random.default_rng(4)
    for _ in range(20):
        A = rng.normal(size=(3, 3))
        J = A + A.T
        if inertia_problem(J) is None:
            continue
        P = physical_inertia(J)
        assert inertia_problem(P) is None
        best = np.linalg.norm(J - P)
        for _ in range(200):
            C = point_masses_inertia(rng) * rng.uniform(0.01, 3.0)
            for t in (1.0, 0.1, 1e-3):
                B = (1 - t) * P + t * C
                assert np.linalg.norm(J - B) >= best * (1 - 1e-12)


@pytest.mark.parametrize("inertia, problem", [((1.0, 1.0, 3.0), "triangle inequality"),
                                              ((1.0, -1.0, 1.0), "not positive definite")])
def test_add_body_takes_an_impossible_inertia_only_when_told(inertia, problem):
    m = ms.Model()
    with pytest.raises(ms.ModelError, match=rf"body 'b': .*{problem}.*check_inertia=False"):
        m.add_body("b", mass=1.0, inertia=inertia)
    body = m.add_body("b", mass=1.0, inertia=inertia, check_inertia=False)
    np.testing.assert_array_equal(body.inertia, np.diag(inertia))
    body.mass = 2.0                                     # the model is rebuilt from its arguments, the flag included
    again = ms.load_dict(m.to_dict())                   # and the model file keeps it
    assert again.bodies["b"].check_inertia is False and again.bodies["b"].mass == 2.0
    np.testing.assert_array_equal(again.bodies["b"].inertia, np.diag(inertia))
    assert "check_inertia" not in str(ms.load_dict(pendulum_dict()).to_dict())   # the default is not written


def pendulum_dict():
    return {"name": "p", "bodies": [{"name": "rod", "mass": 1.0, "inertia": [0.1, 0.1, 0.1]}],
            "joints": [{"name": "j", "kind": "revolute", "parent": "ground", "child": "rod"}]}
