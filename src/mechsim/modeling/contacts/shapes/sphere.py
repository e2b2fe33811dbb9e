"""A sphere (shape="sphere"): centre ``point``, ``radius``; it touches where its surface is nearest."""
from .base import Shape, positive_radius


class Sphere(Shape):
    kind, options, hertz = "sphere", ("radius",), True

    def _configure(self, opts, what):
        self.radius = positive_radius(self, opts, what)
