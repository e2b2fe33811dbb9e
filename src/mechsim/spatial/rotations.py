"""Parsing of user rotations and poses (SPEC §2): 3x3 matrix, scalar-first quaternion, or
``{"euler": [a, b, c], "seq": "xyz"}`` (intrinsic, radians)."""
import numpy as np

from ..errors import ModelError


def _Rotation():
    from scipy.spatial.transform import Rotation     # imported on first use: keeps CLI start-up fast
    return Rotation


def quat_to_matrix(quat):
    """Rotation matrix of a scalar-first quaternion (w, x, y, z); normalizes it."""
    w, x, y, z = np.asarray(quat, dtype=float) / np.linalg.norm(quat)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def matrix_to_quat(R):
    """Scalar-first unit quaternion(s) (w >= 0) of a rotation matrix (3, 3) or matrices (N, 3, 3); NaN
    for a matrix that is not finite (the samples of a failed run's last evaluation).

    Shepperd, "Quaternion from rotation matrix", J. Guidance and Control 1(3), 1978: of 4w^2 = 1 + tr R
    and 4x^2 = 1 + 2 R_xx - tr R (likewise y, z), the largest is taken by its square root and the other
    components from the off-diagonal sums and differences divided by it, so that nothing divides by a
    small number."""
    R = np.asarray(R, dtype=float)
    trace = np.trace(R, axis1=-2, axis2=-1)
    squares = np.stack([1 + trace, *(1 + 2 * R[..., k, k] - trace for k in range(3))], axis=-1)  # 4 w^2, 4 x^2, ...
    d21, d02, d10 = R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0], R[..., 1, 0] - R[..., 0, 1]
    s01, s02, s12 = R[..., 0, 1] + R[..., 1, 0], R[..., 0, 2] + R[..., 2, 0], R[..., 1, 2] + R[..., 2, 1]
    candidates = np.stack([np.stack(row, axis=-1) for row in (      # 4 q times the largest component
        (squares[..., 0], d21, d02, d10), (d21, squares[..., 1], s01, s02),
        (d02, s01, squares[..., 2], s12), (d10, s02, s12, squares[..., 3]))], axis=-2)
    with np.errstate(invalid="ignore"):
        largest = np.argmax(np.where(np.isfinite(squares), squares, -np.inf), axis=-1)
        q = np.take_along_axis(candidates, largest[..., None, None], axis=-2)[..., 0, :]
        q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    q[~np.isfinite(R).all(axis=(-2, -1))] = np.nan
    return q * np.where(q[..., :1] < 0, -1.0, 1.0)


def as_vector3(value, what):
    try:
        v = np.asarray(value, dtype=float).reshape(3)
    except (TypeError, ValueError, OverflowError):
        raise ModelError(f"{what} must be 3 numbers, got {value!r}") from None
    if not np.all(np.isfinite(v)):
        raise ModelError(f"{what} must be finite, got {value!r}")
    return v


def as_rotation(value, what="rotation"):
    """3x3 rotation matrix from a matrix, a scalar-first quaternion or an euler dict."""
    if value is None:
        return np.eye(3)
    if isinstance(value, dict):
        unknown = set(value) - {"euler", "seq"}
        if unknown or "euler" not in value:
            raise ModelError(f"{what}: a rotation dict takes 'euler' and optional 'seq', got keys {sorted(value)}")
        seq = str(value.get("seq", "xyz"))
        if len(seq) != 3 or set(seq) - set("xyz"):
            raise ModelError(f"{what}: euler seq must be three letters of x, y, z, got {seq!r}")
        angles = as_vector3(value["euler"], f"{what} euler angles")
        return _Rotation().from_euler(seq.upper(), angles).as_matrix()   # upper case = intrinsic
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ModelError(f"{what}: cannot read rotation {value!r}") from None
    if a.shape == (4,):
        n = np.linalg.norm(a)
        if not np.isfinite(n) or n < 1e-12:
            raise ModelError(f"{what}: quaternion {value!r} has zero or non-finite norm")
        return quat_to_matrix(a / n)
    if a.shape == (3, 3):
        if not np.allclose(a @ a.T, np.eye(3), atol=1e-6) or np.linalg.det(a) < 0:
            raise ModelError(f"{what}: matrix is not a proper rotation (orthonormal, det +1)")
        u, _, vt = np.linalg.svd(a)   # re-orthonormalize small round-off
        return u @ vt
    raise ModelError(f"{what}: give a 3x3 matrix, a quaternion (w, x, y, z) or "
                     f"{{'euler': [a, b, c], 'seq': 'xyz'}}, got {value!r}")


def as_pose(value, what="frame"):
    """(position, rotation) from a position, a (position, rotation) pair or a dict."""
    if value is None:
        return np.zeros(3), np.eye(3)
    if isinstance(value, dict):
        unknown = set(value) - {"position", "rotation"}
        if unknown:
            raise ModelError(f"{what}: unknown key(s) {sorted(unknown)}; a pose takes 'position' and 'rotation'")
        return as_vector3(value.get("position", (0, 0, 0)), f"{what} position"), as_rotation(value.get("rotation"), what)
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return as_vector3(value[0], f"{what} position"), as_rotation(value[1], what)
    return as_vector3(value, f"{what} position"), np.eye(3)
