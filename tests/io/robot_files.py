"""Where the tests' robot descriptions are: PR2 and Solo12 ship with the package (the speed suite
uses them, mechsim/bench/robot_files), the others are in tests/data/robots."""
from pathlib import Path

import numpy as np

import mechsim as ms
from mechsim.bench import robots as bench_robots
from mechsim.bench.robots import ROBOT_FILES

ROBOTS = Path(__file__).parents[1] / "data" / "robots"


def robot_file(name):
    """Path of the robot description ``name`` (.urdf)."""
    shipped = ROBOT_FILES / f"{name}.urdf"
    return shipped if shipped.exists() else ROBOTS / f"{name}.urdf"


def random_state(m, rng):
    """Random (q, v) of model m, a free joint's quaternion normalized."""
    q_names, v_names = m.coordinates()
    q, v = rng.uniform(-1, 1, len(q_names)), rng.uniform(-1, 1, len(v_names))
    if "root_joint.q[3]" in q_names:
        k = q_names.index("root_joint.q[3]")
        q[k:k + 4] = rng.normal(size=4)
        q[k:k + 4] /= np.linalg.norm(q[k:k + 4])
    return q, v


def relative_error(actual, expected):
    assert actual.shape == expected.shape
    return np.abs(actual - expected).max(initial=0.0) / max(np.abs(expected).max(initial=0.0), 1e-300)


def assert_agrees_with_pinocchio(pin, m, pm, rng, tol, samples=2, what=""):
    """Forward and inverse dynamics and the mass matrix of mechsim's model m and Pinocchio's pm at random states,
    to ``tol`` relative; URDF damping included (Pinocchio's aba and rnea leave it out: its model.damping is added).
    Coordinates mapped by mechsim.bench.robots (joint order, continuous joints, the free flyer)."""
    pd = pm.createData()
    assert len(m.coordinates()[1]) == pm.nv, what
    for _ in range(samples):
        q, v = random_state(m, rng)
        qp, vp, P = bench_robots.pinocchio_state(pin, m, pm, q, v)
        c = bench_robots.free_flyer_bias(m, P, vp)
        tau = rng.uniform(-5, 5, len(v))
        expected = P @ pin.aba(pm, pd, qp, vp, P.T @ tau - pm.damping * vp) + c
        assert relative_error(ms.forward_dynamics(m, q, v, tau), expected) < tol, what
        a = rng.uniform(-1, 1, len(v))
        expected = P @ (pin.rnea(pm, pd, qp, vp, P.T @ (a - c)) + pm.damping * vp)
        assert relative_error(ms.inverse_dynamics(m, q, v, a), expected) < tol, what
        M = pin.crba(pm, pd, qp)
        assert relative_error(ms.mass_matrix(m, q), P @ (np.triu(M) + np.triu(M, 1).T) @ P.T) < tol, what
