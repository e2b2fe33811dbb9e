"""Rotation parsing and conversions (src/mechsim/spatial/rotations.py): quaternion <-> matrix <->
rotation vector round trips with scipy.spatial.transform.Rotation as the oracle, hand-built
elementary rotations for the conventions (scalar-first quaternions, intrinsic euler angles), the edge
cases (angle pi, tiny angles, non-unit quaternions) and the errors of bad input."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mechsim import ModelError
from mechsim.spatial.algebra import axis_angle_matrix
from mechsim.spatial.rotations import as_pose, as_rotation, matrix_to_quat, quat_to_matrix

RNG = np.random.default_rng(7)


def Rx(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def Ry(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def Rz(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def quat_of_rotvec(r):
    """Closed form: (cos |r|/2, r/|r| sin |r|/2), scalar first."""
    angle = np.linalg.norm(r)
    return np.r_[np.cos(angle / 2), r / angle * np.sin(angle / 2)]


def test_quaternion_is_scalar_first():
    # (cos t/2, sin t/2 e_k) turns by t about axis k
    t = 0.9
    for k, R in enumerate((Rx, Ry, Rz)):
        q = np.r_[np.cos(t / 2), np.eye(3)[k] * np.sin(t / 2)]
        np.testing.assert_allclose(quat_to_matrix(q), R(t), atol=1e-15)


def test_quaternion_to_matrix_normalizes_and_matches_scipy():
    q = RNG.normal(size=4) * 5.0                       # far from unit
    expected = Rotation.from_quat(np.r_[q[1:], q[0]]).as_matrix()
    np.testing.assert_allclose(quat_to_matrix(q), expected, atol=1e-14)
    np.testing.assert_allclose(quat_to_matrix(-q), expected, atol=1e-14)      # q and -q: one rotation


def test_matrix_to_quaternion_round_trip_with_nonnegative_scalar():
    qs = Rotation.random(50, random_state=RNG).as_quat()
    qs = np.roll(qs, 1, axis=1)                        # scalar first
    Rs = np.array([quat_to_matrix(q) for q in qs])
    back = matrix_to_quat(Rs)                          # a batch (N, 3, 3) -> (N, 4)
    assert back.shape == (50, 4) and (back[:, 0] >= 0).all()
    np.testing.assert_allclose(back, qs * np.sign(qs[:, :1]), atol=1e-14)
    np.testing.assert_allclose(matrix_to_quat(Rs[3]), back[3], atol=0)      # one matrix -> (4,)


def test_angle_pi_has_zero_scalar_part():
    # a half turn about a: q = (0, a), up to sign; the matrix 2 a a^T - 1
    a = RNG.normal(size=3)
    a /= np.linalg.norm(a)
    R = 2 * np.outer(a, a) - np.eye(3)
    q = matrix_to_quat(R)
    assert abs(q[0]) < 1e-15 and abs(abs(q[1:] @ a) - 1) < 1e-14
    np.testing.assert_allclose(quat_to_matrix(q), R, atol=1e-14)


@pytest.mark.parametrize("angle", [1e-12, 1e-7, 0.4, 2.0, np.pi - 1e-9])
def test_rotation_vector_matrix_quaternion_round_trip(angle):
    # rotation vector -> matrix (mechsim's Rodrigues) -> quaternion (mechsim) -> closed form and
    # back to the rotation vector through scipy
    a = RNG.normal(size=3)
    r = angle * a / np.linalg.norm(a)
    R = np.empty((3, 3))
    axis_angle_matrix(r / angle, angle, R)
    q = matrix_to_quat(R)
    np.testing.assert_allclose(q, quat_of_rotvec(r), atol=2e-15 if angle < np.pi - 1e-6 else 1e-8)
    np.testing.assert_allclose(Rotation.from_matrix(quat_to_matrix(q)).as_rotvec(), r,
                               atol=1e-14 if angle < np.pi - 1e-6 else 1e-7)
    if angle < 1e-6:                                   # first order: q = (1, r / 2)
        np.testing.assert_allclose(q, np.r_[1.0, r / 2], atol=1e-15)


def test_euler_angles_are_intrinsic():
    # intrinsic x-y-z: R = Rx(a) Ry(b) Rz(c) (each turn about the already turned axes); z-y-x likewise
    a, b, c = 0.3, -1.1, 2.4
    np.testing.assert_allclose(as_rotation({"euler": [a, b, c], "seq": "xyz"}), Rx(a) @ Ry(b) @ Rz(c), atol=1e-15)
    np.testing.assert_allclose(as_rotation({"euler": [a, b, c], "seq": "zyx"}), Rz(a) @ Ry(b) @ Rx(c), atol=1e-15)
    np.testing.assert_allclose(as_rotation({"euler": [a, b, c]}), Rx(a) @ Ry(b) @ Rz(c), atol=1e-15)   # default
    np.testing.assert_allclose(as_rotation({"euler": [a, b, c], "seq": "zxz"}), Rz(a) @ Rx(b) @ Rz(c), atol=1e-15)


def test_as_rotation_accepts_the_three_forms():
    np.testing.assert_array_equal(as_rotation(None), np.eye(3))
    q = np.array([2.0, 0.0, 0.0, 2.0])                 # not unit: a quarter turn about z
    np.testing.assert_allclose(as_rotation(q), Rz(np.pi / 2), atol=1e-15)
    R = Rotation.random(random_state=RNG).as_matrix()
    np.testing.assert_allclose(as_rotation(R.tolist()), R, atol=1e-15)


def test_slightly_off_matrix_is_reorthonormalized():
    # within the 1e-6 acceptance: the nearest rotation (polar factor), orthonormal to rounding
    R = Rotation.random(random_state=RNG).as_matrix()
    noisy = R + 1e-8 * RNG.normal(size=(3, 3))
    out = as_rotation(noisy)
    np.testing.assert_allclose(out @ out.T, np.eye(3), atol=1e-15)
    assert abs(np.linalg.det(out) - 1) < 1e-15
    np.testing.assert_allclose(out, R, atol=1e-7)


@pytest.mark.parametrize("value, match", [
    ([0, 0, 0, 0], "zero or non-finite norm"),
    ([1, np.nan, 0, 0], "zero or non-finite norm"),
    (np.diag([1.0, 1.0, -1.0]), "not a proper rotation"),      # a reflection: det -1
    (2 * np.eye(3), "not a proper rotation"),                  # not orthonormal
    ([1, 2, 3], "give a 3x3 matrix"),
    ("abc", "cannot read rotation"),
    ({"euler": [1, 2, 3], "seq": "xyw"}, "euler seq must be three letters"),
    ({"euler": [1, 2, 3], "order": "xyz"}, "takes 'euler' and optional 'seq'"),
    ({"euler": [1, 2]}, "must be 3 numbers"),
    ({"euler": [1, 2, np.inf]}, "must be finite"),
])
def test_bad_rotations_are_model_errors(value, match):
    with pytest.raises(ModelError, match=match):
        as_rotation(value, "frame 'f'")


def test_as_pose_forms():
    p, R = as_pose(None)
    np.testing.assert_array_equal(p, 0)
    np.testing.assert_array_equal(R, np.eye(3))
    p, R = as_pose([1, 2, 3])
    np.testing.assert_array_equal(p, [1, 2, 3])
    np.testing.assert_array_equal(R, np.eye(3))
    p, R = as_pose(([1, 2, 3], {"euler": [0, 0, 0.5], "seq": "xyz"}))
    np.testing.assert_array_equal(p, [1, 2, 3])
    np.testing.assert_allclose(R, Rz(0.5), atol=1e-15)
    p, R = as_pose({"rotation": [np.cos(0.25), np.sin(0.25), 0, 0]})
    np.testing.assert_array_equal(p, 0)
    np.testing.assert_allclose(R, Rx(0.5), atol=1e-15)
    with pytest.raises(ModelError, match="unknown key"):
        as_pose({"position": [0, 0, 0], "orientation": None})
    with pytest.raises(ModelError, match="position must be finite"):
        as_pose([0, np.nan, 0], "frame")
