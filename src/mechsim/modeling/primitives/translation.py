"""T: the translation q[0:3] along F's three axes, one node for a free joint's three slides."""
import numpy as np

from .base import Primitive


class Translation(Primitive):
    letter, nq, nv = "T", 3, 3
    units = {"q": ["m"] * 3, "v": ["m/s"] * 3, "a": ["m/s²"] * 3, "force": ["N"] * 3}
    slides = True

    @staticmethod
    def slide_axes(axis):
        return np.eye(3)
