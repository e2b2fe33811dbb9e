"""R: a turn by q about the axis through F's origin."""
from .base import ANGULAR, Case, Primitive, copy_kernels, fixed_kernels


class Revolute(Primitive):
    letter, custom, nq, nv, units = "R", True, 1, 1, ANGULAR
    axial = turns = True
    load_friction = "pin"

    @staticmethod
    def kernel(inline):
        """The cases of a screw about the axis (helical.py): a revolute's pitch is 0."""
        from ...spatial.algebra import axis_angle_matrix, cross3, matmul3
        no_slide = fixed_kernels(inline)[-1]
        rate, advance = copy_kernels(inline, 1)

        @inline
        def move(args):
            """R = RF RJ(a, q); p = pF + pitch q axis; S = (axis; p x axis + pitch axis): a screw about the axis
            through p (RBDA Table 4.1)."""
            a, pitch, q, qi, RF, RJ, axis, pF, R, p, S = args
            axis_angle_matrix(a, q[qi], RJ)
            matmul3(RF, RJ, R)
            shift = pitch * q[qi]
            for r in range(3):
                p[r] = pF[r] + axis[r] * shift
            cross3(p, axis, S[3:6, 0])
            for r in range(3):
                S[r, 0] = axis[r]
                S[3 + r, 0] += pitch * axis[r]

        return Case(move, rate, advance, no_slide)
