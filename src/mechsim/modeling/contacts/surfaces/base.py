"""The contract of a contact surface, the part of a contact on its surface body (Contact ``surface_shape=``):
one class per kind, in a module of its own, registered in SURFACE_KINDS (surfaces/__init__.py), whose order
gives each kind its code in the compiled rows (layout.py SURF, contacts.py K_KIND).

A kind has its options and their checks (_configure), its frame for the kernels (``frame``) and its kernel
case (``kernel``): the geometry of a shape's point touching it. dynamics/motion.py builds contact_geometry,
the dispatch over the kinds' codes, from the cases; a case is called as

    case(R, p, vel, acc0, na, nb, surface, shape) -> (gap, c, cd, n, nd)

with the node poses R, p, velocities vel and velocity-product accelerations acc0, the surface's node na and
the shape's nb, surface = (code, signed radius, origin, direction) fixed in na and shape = (centre, axis,
radius) fixed in nb; it returns the gap between the shape and the surface, the shape's point c nearest the
surface with its rate as a geometric point, and the surface's normal n there (out of the surface, towards the
shape) with its rate."""
from ....errors import ModelError
from ...forces.base import finite_number
from ...joints import plane_axes, unit_axis


class Surface:
    """A contact surface: its options, their checks, its frame and its kernel case (module docstring).
    Attributes after _configure: ``normal`` and ``tangents`` (a plane's; z and its axes otherwise)."""
    kind = ""               # its name in files (surface_shape=)
    options = ()            # the options it takes

    def __init__(self, opts, shape, what):
        self.normal = unit_axis(opts.get("normal", (0, 0, 1)), f"{what} normal")
        self.tangents = plane_axes(self.normal)
        self._configure(opts, shape, what)

    def _configure(self, opts, shape, what):
        """Check and take the surface's options for the contact's Shape ``shape`` (ModelError naming ``what``)."""

    def frame(self):
        """(signed radius, direction, tangent reference e) for the kernels (layout.py contacts): the tangents are
        t1 = e x n / |e x n|, t2 = n x t1."""
        raise NotImplementedError

    @staticmethod
    def kernel(inline, **tools):
        """The kind's case (module docstring), decorated with ``inline``; ``tools``: dynamics/motion.py's
        SURFACE_TOOLS, taken by name."""
        raise NotImplementedError


class RoundSurface(Surface):
    """A sphere or a cylinder: ``surface_radius`` about its centre or axis (``surface_axis``, through
    ``origin``), with the shape outside (convex) or, ``inside=True``, inside (concave). The tangents follow
    surface_axis: around and along a cylinder's axis; on a sphere, away from its poles along that axis."""
    options = ("surface_radius", "surface_axis", "inside")

    def _configure(self, opts, shape, what):
        self.axis = unit_axis(opts.get("surface_axis", (0, 0, 1)), f"{what} surface_axis")
        self.inside = opts.get("inside", False)
        if not isinstance(self.inside, bool):
            raise ModelError(f"{what}: inside must be true or false, got {self.inside!r}")
        self.radius = finite_number(opts, "surface_radius", 0.0, what)
        if not self.radius > 0:
            raise ModelError(f"{what}: a {self.kind} surface needs surface_radius > 0")
        if shape.planes_only:
            raise ModelError(f"{what}: a {shape.kind}'s rim touches planes only; use shape='sphere' on a {self.kind}")
        if self.inside and self.radius <= shape.radius:
            raise ModelError(f"{what}: the {shape.kind} (radius {shape.radius:g}) does not fit inside the "
                             f"{self.kind} of radius {self.radius:g}")

    def frame(self):
        return -self.radius if self.inside else self.radius, self.axis, self.axis
