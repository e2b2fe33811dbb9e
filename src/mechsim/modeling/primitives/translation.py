"""T: the translation q[0:3] along F's three axes, one node for a free joint's three slides."""
import numpy as np

from .base import Case, Primitive, copy_kernels


class Translation(Primitive):
    letter, nq, nv = "T", 3, 3
    units = {"q": ["m"] * 3, "v": ["m/s"] * 3, "a": ["m/s²"] * 3, "force": ["N"] * 3}
    slides = True

    @staticmethod
    def slide_axes(axis):
        return np.eye(3)

    @staticmethod
    def kernel(inline):
        rate, advance = copy_kernels(inline, 3)

        @inline
        def move(args):
            """R = RF; p = pF + RF q; S = (0; R): translations along the node's axes."""
            a, pitch, q, qi, RF, RJ, axis, pF, R, p, S = args
            for r in range(3):
                p[r] = pF[r] + RF[r, 0] * q[qi] + RF[r, 1] * q[qi + 1] + RF[r, 2] * q[qi + 2]
                for k in range(3):
                    R[r, k] = RF[r, k]
                    S[r, k] = 0.0
                    S[3 + r, k] = RF[r, k]

        @inline
        def slide(args):
            a, q, qi = args
            return True, q[qi], q[qi + 1], q[qi + 2]

        return Case(move, rate, advance, slide)
