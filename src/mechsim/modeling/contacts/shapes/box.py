"""A box (shape="box"): centre ``point``, edge lengths ``size`` along the body's axes. Its eight corners are
point contacts, each with rows of its own, summed in the contact's forces."""
import numpy as np

from ....errors import ModelError
from ....spatial.rotations import as_vector3
from .base import Shape

CORNERS = np.array([(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])


class Box(Shape):
    kind, options = "box", ("size",)

    def _configure(self, opts, what):
        self.size = as_vector3(opts.get("size", (0, 0, 0)), f"{what} size")
        if not np.all(self.size > 0):
            raise ModelError(f"{what}: a box needs size= (three positive edge lengths)")

    def centres(self, point):
        return list(point + CORNERS * self.size)
