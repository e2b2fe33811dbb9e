"""P: a slide by q along the axis."""
import numpy as np

from .base import LINEAR, Case, Primitive, copy_kernels


class Prismatic(Primitive):
    letter, custom, nq, nv, units = "P", True, 1, 1, LINEAR
    axial = slides = True
    load_friction = "guide"

    @staticmethod
    def slide_axes(axis):
        return np.array([axis])

    @staticmethod
    def kernel(inline):
        rate, advance = copy_kernels(inline, 1)

        @inline
        def move(args):
            """R = RF; p = pF + q axis; S = (0; axis)."""
            a, pitch, q, qi, RF, RJ, axis, pF, R, p, S = args
            for r in range(3):
                p[r] = pF[r] + axis[r] * q[qi]
                S[r, 0] = 0.0
                S[3 + r, 0] = axis[r]
                for k in range(3):
                    R[r, k] = RF[r, k]

        @inline
        def slide(args):
            a, q, qi = args
            return True, a[0] * q[qi], a[1] * q[qi], a[2] * q[qi]

        return Case(move, rate, advance, slide)
