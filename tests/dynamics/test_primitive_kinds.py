"""Every joint primitive in the registry (modeling/primitives) is moved by the kernels as its kind says: its node's
motion subspace against the derivative of its pose, q (+) dv against qdot = H(q) v, the reference point's
translation against its pose, the coordinate counts against the kind's; a new primitive is checked here by its
registry line."""
import numpy as np
import pytest
from numba import njit
from scipy.spatial.transform import Rotation

from mechsim.dynamics import kernels
from mechsim.dynamics.layout import AXIS, NODE_F_COLS, PITCH, POS_TREE, ROT_TREE
from mechsim.dynamics.projection import integrate_coordinates
from mechsim.modeling.primitives import PRIMITIVES

H = 1e-6


def one_node(kind, a, pitch, RF, pF):
    """(node_i, node_f) of one node of the kind on the ground, its joint frame F at (RF, pF)."""
    node_f = np.zeros((1, NODE_F_COLS))
    node_f[0, AXIS:AXIS + 3], node_f[0, PITCH] = a, pitch
    node_f[0, ROT_TREE:ROT_TREE + 9], node_f[0, POS_TREE:POS_TREE + 3] = RF.ravel(), pF
    return np.array([[-1, kind.code, 0, 0]], dtype=np.int64), node_f


def pose(node_i, node_f, q):
    """(R, p, S) of node 0 at q, the reference point at the world origin (the ground's row of p: zero)."""
    return node_pose(node_i, node_f, q, kernels.new_workspace(1))


@njit
def node_pose(node_i, node_f, q, ws):
    w = kernels.carve(ws)
    kernels.node_pose(node_i, node_f, q, w.R, w.p, w.S, w.RF, w.RJ, 0)
    return w.R[0].copy(), w.p[0].copy(), w.S[0].copy()


@njit
def head(node_i, node_f, q):
    """The ground's row of p that reference_point writes: minus the reference point."""
    p = np.zeros((2, 3))
    kernels.reference_point(node_i, node_f, q, p)
    return p[1].copy()


def state(kind, rng):
    a = rng.normal(size=3)
    q = rng.normal(size=kind.nq)
    if kind.quaternion:
        q /= np.linalg.norm(q)
    return a / np.linalg.norm(a), q, rng.normal(size=kind.nv), Rotation.random(random_state=rng).as_matrix(), \
        rng.normal(size=3)


def rate(node_i, q, v):
    qdot = np.zeros(q.size)
    kernels.kinematic_map(node_i, q, v, qdot)
    return qdot


@pytest.mark.parametrize("kind", PRIMITIVES, ids=lambda kind: kind.__name__)
def test_subspace_is_the_velocity_of_the_pose(kind):
    """S v = (w; pdot - w x p): the spatial velocity at the world origin of the node moved along qdot = H(q) v, by
    central differences; the node's R is a rotation."""
    rng = np.random.default_rng(kind.code)
    a, q, v, RF, pF = state(kind, rng)
    node_i, node_f = one_node(kind, a, 0.3 if kind.screw else 0.0, RF, pF)
    R, p, S = pose(node_i, node_f, q)
    assert np.allclose(R.T @ R, np.eye(3), atol=1e-12) and np.linalg.det(R) > 0
    qdot = rate(node_i, q, v)
    (R1, p1, _), (R0, p0, _) = (pose(node_i, node_f, q + s * H * qdot) for s in (1, -1))
    W = (R1 - R0) / (2 * H) @ R.T
    w = np.array([W[2, 1], W[0, 2], W[1, 0]])
    expected = np.concatenate([w, (p1 - p0) / (2 * H) - np.cross(w, p)])
    np.testing.assert_allclose(S[:, :kind.nv] @ v, expected, atol=1e-7 * (1 + np.abs(expected).max()))


@pytest.mark.parametrize("kind", PRIMITIVES, ids=lambda kind: kind.__name__)
def test_advance_follows_the_rate(kind):
    """q (+) h v = q + h H(q) v + O(h^2), and a whole step is exact where the coordinates are v's own."""
    rng = np.random.default_rng(10 + kind.code)
    a, q, v, RF, pF = state(kind, rng)
    node_i, _ = one_node(kind, a, 0.0, RF, pF)
    step = q.copy()
    integrate_coordinates(node_i, step, H * v)
    np.testing.assert_allclose(step, q + H * rate(node_i, q, v), atol=10 * H ** 2)
    if not kind.quaternion:
        step = q.copy()
        integrate_coordinates(node_i, step, v)
        np.testing.assert_allclose(step, q + v, rtol=1e-15)


@pytest.mark.parametrize("kind", PRIMITIVES, ids=lambda kind: kind.__name__)
def test_the_reference_point_moves_with_a_translation_at_the_head_of_the_tree(kind):
    """A sliding primitive at the root carries the reference point along its translation (F's origin moved by it);
    any other leaves it at F's origin."""
    rng = np.random.default_rng(20 + kind.code)
    a, q, _, RF, pF = state(kind, rng)
    node_i, node_f = one_node(kind, a, 0.0, RF, pF)
    _, p, _ = pose(node_i, node_f, q)
    np.testing.assert_allclose(-head(node_i, node_f, q), p if kind.slides else pF, atol=1e-14)
    if kind.slides:
        np.testing.assert_allclose(RF @ kind.slide_axes(a).T @ q, p - pF, atol=1e-14)


@pytest.mark.parametrize("kind", PRIMITIVES, ids=lambda kind: kind.__name__)
def test_registry_facts(kind):
    """Codes are registry indices; the kernels' coordinate counts are the kind's; units have one entry per
    coordinate."""
    assert PRIMITIVES[kind.code] is kind
    assert kernels.dof(kind.code) == kind.nv
    node_i = np.array([[-1, kind.code, 0, 0]], dtype=np.int64)
    assert kernels.coordinate_counts(node_i) == (kind.nq, kind.nv)
    assert kind.quaternion == (kind.nq != kind.nv)
    assert [len(kind.units[k]) for k in ("q", "v", "a", "force")] == [kind.nq, kind.nv, kind.nv, kind.nv]
