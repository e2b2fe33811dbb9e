"""The compiled spatial-algebra helpers (src/mechsim/spatial/algebra.py) against the identities of
Featherstone, Rigid Body Dynamics Algorithms (2008), ch. 2, with every matrix built here by hand from
3-vector cross products (numpy), not from mechsim.

Conventions (RBDA §2.2, [angular; linear]): a motion vector m = [w; u], a force vector f = [n; f].
A rigid displacement (R, p) carries motion vectors by X = [[R, 0], [p~ R, R]] and force vectors by
X* = [[R, p~ R], [0, R]] (RBDA §2.8), with p~ the 3x3 matrix of p x (.)."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mechsim.spatial.algebra import (axis_angle_matrix, body_inertia_world, crf, crm, cross3, matmul3, matvec3,
                                     matvec6, quat_matrix, quat_rate, transform_point)

RNG = np.random.default_rng(20261126)


def tilde(a):
    """a~: a~ b = a x b."""
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def motion_transform(R, p):
    """X of RBDA §2.8 for the displacement (R, p): w' = R w, u' = R u + p x (R w)."""
    return np.block([[R, np.zeros((3, 3))], [tilde(p) @ R, R]])


def force_transform(R, p):
    """X* = X^-T (RBDA §2.8): n' = R n + p x (R f), f' = R f."""
    return np.block([[R, tilde(p) @ R], [np.zeros((3, 3)), R]])


def random_displacement():
    return Rotation.random(random_state=RNG).as_matrix(), RNG.normal(size=3)


def crm_matrix(v):
    """The 6x6 matrix of v x (.) built by applying the compiled crm to the unit vectors."""
    out, M = np.empty(6), np.empty((6, 6))
    for k in range(6):
        crm(v, np.eye(6)[k], out)
        M[:, k] = out
    return M


def crf_matrix(v):
    out, M = np.empty(6), np.empty((6, 6))
    for k in range(6):
        crf(v, np.eye(6)[k], out)
        M[:, k] = out
    return M


def test_cross3_is_the_vector_product():
    a, b, out = RNG.normal(size=3), RNG.normal(size=3), np.empty(3)
    cross3(a, b, out)
    np.testing.assert_allclose(out, np.cross(a, b), rtol=0, atol=1e-14)


def test_motion_cross_product_is_the_rbda_matrix():
    # v x m = [w x mw; w x mu + u x mw] (RBDA §2.9: v x = [[w~, 0], [u~, w~]])
    v, m, out = RNG.normal(size=6), RNG.normal(size=6), np.empty(6)
    crm(v, m, out)
    w, u = v[:3], v[3:]
    np.testing.assert_allclose(out, np.r_[np.cross(w, m[:3]), np.cross(w, m[3:]) + np.cross(u, m[:3])], atol=1e-14)
    expected = np.block([[tilde(w), np.zeros((3, 3))], [tilde(u), tilde(w)]])
    np.testing.assert_allclose(crm_matrix(v), expected, atol=1e-14)


def test_force_cross_product_is_minus_the_transpose_of_the_motion_one():
    # RBDA §2.9: v x* = -(v x)^T, i.e. [[w~, u~], [0, w~]]
    v = RNG.normal(size=6)
    np.testing.assert_allclose(crf_matrix(v), -crm_matrix(v).T, atol=1e-14)
    w, u = v[:3], v[3:]
    np.testing.assert_allclose(crf_matrix(v), np.block([[tilde(w), tilde(u)], [np.zeros((3, 3)), tilde(w)]]),
                               atol=1e-14)


def test_cross_products_conserve_power():
    # the duality pairs m . f: (v x m) . f + m . (v x* f) = 0 for every v, m, f (RBDA §2.7, §2.9)
    v, m, f = RNG.normal(size=(3, 6))
    a, b = np.empty(6), np.empty(6)
    crm(v, m, a)
    crf(v, f, b)
    assert abs(a @ f + m @ b) < 1e-12
    crm(v, v, a)                                   # a motion crossed with itself vanishes
    np.testing.assert_allclose(a, 0.0, atol=1e-15)


def test_motion_cross_product_is_a_lie_bracket():
    # antisymmetric and Jacobi: u x (v x w) + v x (w x u) + w x (u x v) = 0
    u, v, w = RNG.normal(size=(3, 6))
    Mu, Mv, Mw = crm_matrix(u), crm_matrix(v), crm_matrix(w)
    np.testing.assert_allclose(Mu @ v, -(Mv @ u), atol=1e-13)
    np.testing.assert_allclose(Mu @ (Mv @ w) + Mv @ (Mw @ u) + Mw @ (Mu @ v), 0.0, atol=1e-12)


def test_cross_products_commute_with_rigid_transforms():
    # X (v x m) = (X v) x (X m) and X* (v x* f) = (X v) x* (X* f) (RBDA §2.9):
    # the cross products do not depend on the frame they are written in
    R, p = random_displacement()
    X, Xf = motion_transform(R, p), force_transform(R, p)
    # the transforms of this file are right: X^-1 = [[R^T, 0], [-R^T p~, R^T]] (RBDA §2.8), X* = X^-T
    np.testing.assert_allclose(X @ np.block([[R.T, np.zeros((3, 3))], [-R.T @ tilde(p), R.T]]), np.eye(6), atol=1e-13)
    np.testing.assert_allclose(Xf, np.linalg.inv(X).T, atol=1e-13)
    v, m, f = RNG.normal(size=(3, 6))
    a, b = np.empty(6), np.empty(6)
    crm(v, m, a)
    crm(X @ v, X @ m, b)
    np.testing.assert_allclose(X @ a, b, atol=1e-12)
    crf(v, f, a)
    crf(X @ v, Xf @ f, b)
    np.testing.assert_allclose(Xf @ a, b, atol=1e-12)


def random_body():
    m = RNG.uniform(0.5, 3.0)
    a, b, c = RNG.uniform(0.1, 1.0, 3)               # a box: a valid inertia about the COM in body axes
    Ic = m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    return m, RNG.normal(size=3), Ic, Rotation.random(random_state=RNG).as_matrix()


def test_body_inertia_about_the_world_origin_is_the_transformed_com_inertia():
    # RBDA §2.13: I_O = X*_{O<-C} I_C X_{C<-O} with I_C = [[R Ic R^T, 0], [0, m 1]] in world axes
    # at the COM c; X_{O<-C} is the pure translation by c
    m, c, Ic, R = random_body()
    out = np.empty((6, 6))
    body_inertia_world(m, c, Ic.ravel(), R, out)
    I_C = np.block([[R @ Ic @ R.T, np.zeros((3, 3))], [np.zeros((3, 3)), m * np.eye(3)]])
    expected = force_transform(np.eye(3), c) @ I_C @ np.linalg.inv(motion_transform(np.eye(3), c))
    np.testing.assert_allclose(out, expected, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(out, out.T, atol=0)


def test_body_inertia_gives_the_kinetic_energy():
    # 1/2 v^T I v = 1/2 m |u + w x c|^2 + 1/2 w^T (R Ic R^T) w: u is the velocity of the body point at
    # the world origin, u + w x c that of the COM (König's theorem)
    m, c, Ic, R = random_body()
    out = np.empty((6, 6))
    body_inertia_world(m, c, Ic.ravel(), R, out)
    w, u = RNG.normal(size=(2, 3))
    v_com = u + np.cross(w, c)
    expected = 0.5 * m * v_com @ v_com + 0.5 * w @ R @ Ic @ R.T @ w
    assert abs(0.5 * np.r_[w, u] @ out @ np.r_[w, u] - expected) < 1e-12 * expected


@pytest.mark.parametrize("angle", [0.7, -2.9, np.pi, 1e-9, 0.0])
def test_axis_angle_matrix_matches_the_rotation_vector(angle):
    # Rodrigues: the matrix of rotation vector a * angle (scipy as the oracle), angle pi and tiny too
    a = RNG.normal(size=3)
    a /= np.linalg.norm(a)
    out = np.empty((3, 3))
    axis_angle_matrix(a, angle, out)
    np.testing.assert_allclose(out, Rotation.from_rotvec(a * angle).as_matrix(), atol=1e-15)
    np.testing.assert_allclose(out @ a, a, atol=1e-15)                  # the axis stays put
    if abs(angle) < 1e-6:                                               # first order: 1 + angle a~
        np.testing.assert_allclose(out, np.eye(3) + angle * tilde(a), atol=1e-17)


def test_quaternion_matrix_is_scalar_first_and_normalizes():
    # (cos t/2, 0, 0, sin t/2) turns by t about z; any positive multiple of q and -q give the same matrix
    t, out = 0.8, np.empty((3, 3))
    quat_matrix(np.array([np.cos(t / 2), 0.0, 0.0, np.sin(t / 2)]), out)
    np.testing.assert_allclose(out, [[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]], atol=1e-15)
    q = RNG.normal(size=4)                          # not unit
    quat_matrix(q, out)
    np.testing.assert_allclose(out, Rotation.from_quat(np.r_[q[1:], q[0]]).as_matrix(), atol=1e-14)
    other = np.empty((3, 3))
    quat_matrix(-3.7 * q, other)
    np.testing.assert_allclose(other, out, atol=1e-14)


def test_quaternion_rate_is_the_body_angular_velocity():
    # q(t) = q0 (x) exp(w t / 2) turns with body-fixed angular velocity w: dq/dt at 0 by central
    # differences of scipy's composition (R(t) = R0 Rot(w t))
    q0 = Rotation.random(random_state=RNG)
    w, eps = RNG.normal(size=3), 1e-6

    def quat(t):
        x, y, z, s = (q0 * Rotation.from_rotvec(w * t)).as_quat()
        return np.array([s, x, y, z])
    q = quat(0.0)
    qp, qm = quat(eps), quat(-eps)
    qp *= np.sign(qp @ q)                          # scipy may return either sign of a quaternion
    qm *= np.sign(qm @ q)
    out = np.empty(4)
    quat_rate(q, w, out)
    np.testing.assert_allclose(out, (qp - qm) / (2 * eps), atol=1e-9)


def test_small_matrix_helpers_match_numpy():
    A, B = RNG.normal(size=(2, 3, 3))
    x, p = RNG.normal(size=(2, 3))
    out = np.empty((3, 3))
    matmul3(A, B, out)
    np.testing.assert_allclose(out, A @ B, atol=1e-14)
    np.testing.assert_allclose(matvec3(A, x), A @ x, atol=1e-14)
    np.testing.assert_allclose(transform_point(A, p, x), A @ x + p, atol=1e-14)
    M, y = RNG.normal(size=(6, 6)), RNG.normal(size=6)
    np.testing.assert_allclose(matvec6(M, y), M @ y, atol=1e-13)
