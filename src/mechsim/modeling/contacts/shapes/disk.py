"""A disk (shape="disk"): centre ``point``, ``axis``, rim ``radius``, a wheel or a coin. Its rim touches a plane
at c = x - r u, u the plane's normal's part in the disk's plane, normalized (dynamics/motion.py contact_point);
planes only."""
from ...joints import unit_axis
from .base import Shape, positive_radius


class Disk(Shape):
    kind, options, hertz, planes_only = "disk", ("radius", "axis"), True, True

    def _configure(self, opts, what):
        self.radius = positive_radius(self, opts, what)
        self.axis = unit_axis(opts.get("axis", (0, 0, 1)), f"{what} axis")
