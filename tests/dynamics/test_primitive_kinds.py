"""Every joint primitive in the registry (modeling/primitives) keeps the contract its kernel cases state (base.py
Case), checked by finite differences of its own move: a new primitive is checked here by its registry line."""
import numpy as np
import pytest
from numba import njit
from scipy.spatial.transform import Rotation

from mechsim.dynamics import kernels
from mechsim.modeling.primitives import PRIMITIVES
from mechsim.spatial.rotations import as_vector3

H = 1e-6


@njit
def move(code, a, pitch, q, RF, pF, nv):
    """(R, p, S) of a node at q: its primitive's move."""
    R, p, RJ, S = np.zeros((3, 3)), np.zeros(3), np.zeros((3, 3)), np.zeros((6, 3))
    axis = (RF[0, 0] * a[0] + RF[0, 1] * a[1] + RF[0, 2] * a[2], RF[1, 0] * a[0] + RF[1, 1] * a[1] + RF[1, 2] * a[2],
            RF[2, 0] * a[0] + RF[2, 1] * a[1] + RF[2, 2] * a[2])
    kernels.move(code, (a, pitch, q, 0, RF, RJ, axis, (pF[0], pF[1], pF[2]), R, p, S))
    return R, p, S[:, :nv]


@njit
def rate(code, q, v):
    qdot = np.zeros(q.size)
    kernels.rate(code, (q, v, 0, 0, qdot))
    return qdot


@njit
def advance(code, q, dv):
    q = q.copy()
    kernels.advance(code, (q, dv, 0, 0))
    return q


@njit
def slide(code, a, q):
    return kernels.slide(code, (a, q, 0))


def state(kind, rng):
    a = as_vector3(rng.normal(size=3), "axis")
    a /= np.linalg.norm(a)
    q = rng.normal(size=kind.nq)
    if kind.quaternion:
        q /= np.linalg.norm(q)
    return a, q, rng.normal(size=kind.nv), Rotation.random(random_state=rng).as_matrix(), rng.normal(size=3)


@pytest.mark.parametrize("kind", PRIMITIVES, ids=lambda kind: kind.__name__)
def test_subspace_is_the_velocity_of_the_pose(kind):
    """S v = (w; pdot - w x p): the spatial velocity at the world origin of the frame moved to q(t) with
    qdot = rate(q, v), by central differences; and move's R is a rotation."""
    rng = np.random.default_rng(kind.code)
    a, q, v, RF, pF = state(kind, rng)
    pitch = 0.3 if kind.turns and kind.axial else 0.0
    R, p, S = move(kind.code, a, pitch, q, RF, pF, kind.nv)
    assert np.allclose(R.T @ R, np.eye(3), atol=1e-12) and np.linalg.det(R) > 0
    qdot = rate(kind.code, q, v)
    (R1, p1, _), (R0, p0, _) = (move(kind.code, a, pitch, q + s * H * qdot, RF, pF, kind.nv) for s in (1, -1))
    W = (R1 - R0) / (2 * H) @ R.T
    w = np.array([W[2, 1], W[0, 2], W[1, 0]])
    expected = np.concatenate([w, (p1 - p0) / (2 * H) - np.cross(w, p)])
    assert S.shape == (6, kind.nv)
    np.testing.assert_allclose(S @ v, expected, atol=1e-7 * (1 + np.abs(expected).max()))


@pytest.mark.parametrize("kind", PRIMITIVES, ids=lambda kind: kind.__name__)
def test_advance_follows_the_rate(kind):
    """q (+) h v = q + h rate(q, v) + O(h^2), and a whole step is exact where the coordinates are v's own."""
    rng = np.random.default_rng(10 + kind.code)
    _, q, v, _, _ = state(kind, rng)
    step = advance(kind.code, q, H * v)
    np.testing.assert_allclose(step, q + H * rate(kind.code, q, v), atol=10 * H ** 2)
    if not kind.quaternion:
        np.testing.assert_allclose(advance(kind.code, q, v), q + v, rtol=1e-15)


@pytest.mark.parametrize("kind", PRIMITIVES, ids=lambda kind: kind.__name__)
def test_slide_is_the_translation_in_the_joint_frame(kind):
    rng = np.random.default_rng(20 + kind.code)
    a, q, _, RF, pF = state(kind, rng)
    moves, *t = slide(kind.code, a, q)
    assert moves == kind.slides
    _, p, _ = move(kind.code, a, 0.0, q, RF, pF, kind.nv)
    np.testing.assert_allclose(t, RF.T @ (p - pF) if kind.slides else np.zeros(3), atol=1e-14)
    if kind.slides:
        np.testing.assert_allclose(kind.slide_axes(a).T @ q, t, atol=1e-14)


@pytest.mark.parametrize("kind", PRIMITIVES, ids=lambda kind: kind.__name__)
def test_registry_facts(kind):
    """Codes are registry indices, the kernels' coordinate counts are the kinds', units have one entry per
    coordinate."""
    assert PRIMITIVES[kind.code] is kind
    assert (kernels.NQ[kind.code], kernels.NV[kind.code]) == (kind.nq, kind.nv)
    assert kind.quaternion == (kind.nq != kind.nv)
    assert [len(kind.units[k]) for k in ("q", "v", "a", "force")] == [kind.nq, kind.nv, kind.nv, kind.nv]
