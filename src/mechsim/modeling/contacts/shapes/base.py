"""The contract of a contact shape, the part of a contact on its body (Contact ``shape=``): one class per kind,
in a module of its own, registered in SHAPE_KINDS (shapes/__init__.py). A shape is points of the body, each
with a radius about it and, for a disk, an axis: the kernels touch every kind of surface with the same point
(dynamics/motion.py contact_point), so a shape has no kernel of its own."""
import numpy as np

from ....errors import ModelError
from ...forces.base import finite_number


class Shape:
    """A contact shape: its options (beyond the contact's), their checks (_configure) and its contact points.
    Attributes after _configure: ``radius`` (0: a point), ``axis`` (a disk's; zero otherwise), ``size``."""
    kind = ""               # its name in files (shape=)
    options = ()            # the options it takes: radius, axis or size
    hertz = False           # round: a compliant contact's default exponent is Hertz's 1.5 (else 1)
    planes_only = False     # it touches plane surfaces only

    def __init__(self, opts, what):
        self.radius, self.axis, self.size = 0.0, np.zeros(3), np.zeros(3)
        self._configure(opts, what)

    def _configure(self, opts, what):
        """Check and take the shape's options (ModelError naming the contact ``what``)."""

    def centres(self, point):
        """The centres of its contact points, ``point`` its centre, in the body's frame."""
        return [point]


def positive_radius(shape, opts, what):
    """The shape's radius, refused unless > 0."""
    radius = finite_number(opts, "radius", 0.0, what)
    if not radius > 0:
        raise ModelError(f"{what}: a {shape.kind} needs radius > 0")
    return radius
