"""The fluid_drag force element (modeling/forces/fluid_drag.py; against MuJoCo itself: tests/io/test_mjcf.py) against
MuJoCo documentation, Computation: Fluid forces, inertia-based model, evaluated here by hand for one free body, its
options' checks, and the model file."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mechsim as ms

MASS, MOMENTS = 2.0, np.array([0.02, 0.05, 0.06])
AXES = Rotation.from_euler("xyz", (0.4, -0.3, 0.8)).as_matrix()      # principal axes in body coordinates
RHO, BETA, WIND = 1000.0, 0.3, np.array([0.4, -0.2, 0.3])


def swimmer(**options):
    """A free body (COM at its origin, principal axes AXES) in the fluid, no gravity."""
    m = ms.Model("fish", gravity=(0, 0, 0))
    m.add_body("fish", mass=MASS, inertia=AXES @ np.diag(MOMENTS) @ AXES.T)
    m.add_joint("float", "free", "ground", "fish")
    m.add_force("drag", "fluid_drag", **{"density": RHO, "viscosity": BETA, "wind": WIND, **options})
    return m


def documented_wrench(v, omega):
    """Force and torque along the principal axes, the documentation's equations with r = half-sizes of the box."""
    r = np.sqrt(1.5 / MASS * (MOMENTS.sum() - 2 * MOMENTS))
    r_eq = r.mean()
    j, k = [1, 2, 0], [2, 0, 1]
    f = -6 * BETA * np.pi * r_eq * v - 2 * RHO * r[j] * r[k] * np.abs(v) * v
    g = -8 * BETA * np.pi * r_eq ** 3 * omega - 0.5 * RHO * r * (r[j] ** 4 + r[k] ** 4) * np.abs(omega) * omega
    return f, g


def test_free_body_accelerations_follow_the_documented_drag():
    """v' = F / m (world) and I w' = T - w x I w (body axes) with F, T from documented_wrench."""
    m, rng = swimmer(), np.random.default_rng(3)
    J = AXES @ np.diag(MOMENTS) @ AXES.T
    for _ in range(4):
        quat = Rotation.random(random_state=rng).as_quat()[[3, 0, 1, 2]]
        q, v = np.concatenate([rng.uniform(-1, 1, 3), quat]), rng.uniform(-2, 2, 6)
        R = Rotation.from_quat(quat[[1, 2, 3, 0]]).as_matrix()                # body to world
        principal = R @ AXES                                                 # principal axes, world
        f, g = documented_wrench(principal.T @ (v[:3] - WIND), AXES.T @ v[3:])
        expected = np.concatenate([principal @ f / MASS,
                                   np.linalg.solve(J, AXES @ g - np.cross(v[3:], J @ v[3:]))])
        a = ms.forward_dynamics(m, q, v)
        assert np.abs(a - expected).max() <= 1e-12 * np.abs(expected).max()


def test_bodies_and_the_principal_axes_default_sensibly():
    """Default bodies: those of positive mass; default axes: the inertia's eigenvectors (unique here)."""
    m = swimmer(axes={"fish": AXES})
    m.add_body("tag", mass=0.0)
    m.add_joint("tag_weld", "weld", "fish", "tag")
    q, v = m.initial_state().q, np.array([0.3, -1.0, 0.5, 2.0, -1.0, 0.5])
    given = ms.forward_dynamics(m, q, v)
    assert m.forces["drag"].moving_bodies(m) == ("fish",)
    assert np.allclose(ms.forward_dynamics(swimmer(), q, v), given, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("options, match", [
    ({"density": -1.0}, r"density and viscosity must be >= 0"),
    ({"density": 0.0, "viscosity": 0.0}, r"one of them positive"),
    ({"wind": (1, 2)}, r"wind"),
    ({"bodies": ["fin"]}, r"unknown body 'fin'"),
    ({"bodies": "fish"}, r"bodies must be a list of distinct body names"),
    ({"bodies": ["ground"]}, r"body 'ground' has no mass"),
    ({"axes": {"fish": np.eye(3)}}, r"not principal axes of its inertia"),
    ({"viscosity": "thick"}, r"viscosity must be a number"),
    ({"drag": 1.0}, r"unknown option"),
])
def test_bad_options_name_the_element(options, match):
    with pytest.raises(ms.ModelError, match=r"force 'drag' \(fluid_drag\).*" + match):
        swimmer(**options)


def test_the_model_file_takes_it(tmp_path):
    m = swimmer(axes={"fish": AXES})
    m.to_yaml(tmp_path / "fish.yaml")
    again = ms.load(tmp_path / "fish.yaml")
    q, v = m.initial_state().q, np.array([0.3, -1.0, 0.5, 2.0, -1.0, 0.5])
    assert again.forces["drag"].kind == "fluid_drag"
    assert np.array_equal(ms.forward_dynamics(again, q, v), ms.forward_dynamics(m, q, v))
