"""S: a free turn, its q the unit quaternion (scalar first) of M's rotation in F, its v M's angular velocity
in its own axes (SPEC §2)."""
import numpy as np

from ...spatial.rotations import as_rotation, matrix_to_quat
from .base import Case, Primitive, fixed_kernels


class Spherical(Primitive):
    letter, custom, nq, nv = "S", True, 4, 3
    units = {"q": [""] * 4, "v": ["rad/s"] * 3, "a": ["rad/s²"] * 3, "force": ["N·m"] * 3}
    turns = quaternion = True

    @classmethod
    def initial(cls, item, what):
        """Any rotation (SPEC §2: a quaternion, matrix, euler dict...), as a unit quaternion."""
        return np.array([1.0, 0, 0, 0]) if item is None else matrix_to_quat(as_rotation(item, what))

    @staticmethod
    def kernel(inline):
        from ...spatial.algebra import cross3, matmul3, quat_matrix, quat_rate
        no_slide = fixed_kernels(inline)[-1]

        @inline
        def move(args):
            """R = RF R(q); p = pF; S = (R; p x R): turns about the node's axes through p."""
            a, pitch, q, qi, RF, RJ, axis, pF, R, p, S = args
            quat_matrix(q[qi:qi + 4], RJ)
            matmul3(RF, RJ, R)
            for r in range(3):
                p[r] = pF[r]
            for k in range(3):
                cross3(p, R[:, k], S[3:6, k])
                for r in range(3):
                    S[r, k] = R[r, k]

        @inline
        def rate(args):
            """qdot = 1/2 q (x) (0, w)."""
            q, v, qi, vi, qdot = args
            quat_rate(q[qi:qi + 4], v[vi:vi + 3], qdot[qi:qi + 4])

        @inline
        def advance(args):
            """q <- q (x) exp(dv / 2), dv a rotation vector in the body's axes."""
            q, dv, qi, vi = args
            x, y, z = dv[vi], dv[vi + 1], dv[vi + 2]
            angle = np.sqrt(x * x + y * y + z * z)
            c = np.cos(0.5 * angle)
            s = 0.5 if angle < 1e-12 else np.sin(0.5 * angle) / angle
            b0, b1, b2, b3 = c, s * x, s * y, s * z
            a0, a1, a2, a3 = q[qi], q[qi + 1], q[qi + 2], q[qi + 3]
            q[qi] = a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3
            q[qi + 1] = a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2
            q[qi + 2] = a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1
            q[qi + 3] = a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0

        return Case(move, rate, advance, no_slide)
