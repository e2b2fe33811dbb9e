"""P: a slide by q along the axis."""
import numpy as np

from .base import LINEAR, Primitive


class Prismatic(Primitive):
    letter, custom, nq, nv, units = "P", True, 1, 1, LINEAR
    axial = slides = True
    load_friction = "guide"

    @staticmethod
    def slide_axes(axis):
        return np.array([axis])
