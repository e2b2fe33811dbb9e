"""Point coincident (SPEC §3): a point of one body stays on a point of another (a spherical joint's
three rows, where a loop is closed by a constraint instead of a joint): x_b = x_a, along body_a's axes."""
import numpy as np

from .base import BetweenPoints


class PointCoincident(BetweenPoints):
    kind = "point_coincident"

    def directions(self):
        return np.eye(3)
