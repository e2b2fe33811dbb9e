"""Contacts (SPEC §3 ``add_contact``): a shape on a body touching a surface on another body (or the
ground), rigid: a unilateral normal row and two tangent rows whose modes (open, sliding, sticking
or rolling) the run switches (simulation/hybrid), impacts by Newton's law with Coulomb friction
(``impact_law="newton"``, the default) or with Smith's (1991) friction law (``"smith"``).

``model="compliant"`` instead: a Hunt-Crossley spring-damper on the penetration (``stiffness``,
``damping``, ``exponent``: 1.5 for a sphere or disk, Hertz's) with Coulomb friction regularized over
``slip_tolerance`` (m/s), a force element evaluated in the compiled dynamics, no modes or events.

Shapes: "point" (a point of the body), "sphere" (centre ``point``, ``radius``), "disk" (centre
``point``, ``axis``, rim ``radius``: a wheel or a coin) and "box" (centre ``point``, edge lengths
``size`` along the body's axes: its eight corners, each a point contact with the rows of its own,
summed in the contact's forces). Points, axes and sizes are in the body's frame. The plane passes
through ``origin`` with unit ``normal`` (pointing out of the surface, towards the body), both in the
surface body's frame; its tangents (t1, t2) follow from the normal (t1 x t2 = normal).
``surface_velocity``: the surface material's velocity relative to its body (a conveyor belt): a
number along t1 or a 3-vector in the surface body's frame (its normal part is ignored).

Curved surfaces (``surface_shape``): "sphere" (centre ``origin``, ``surface_radius``) and "cylinder"
(axis ``surface_axis`` through ``origin``, ``surface_radius``), with the shape outside (convex: balls of
a Newton's cradle) or, ``inside=True``, inside (concave: a ball in a bowl, a disk in a circular fence);
the shape is a point, sphere or box there (a disk's rim touches planes only). The tangents are
t1 = e x n / |e x n|, t2 = n x t1 with e the cylinder's axis (t1 around it, t2 along it) or, for a
sphere, ``surface_axis`` (default z; at its two poles another fixed direction takes its place).
"""
import numpy as np

from ..errors import ModelError
from ..spatial.rotations import as_vector3
from .element import Element
from .forces.base import MIN_BOUNCE_SPEED, ForceRow, finite_number
from .joints import plane_axes, unit_axis

SHAPES = ("point", "sphere", "disk", "box")
SURFACES = ("plane", "sphere", "cylinder")
CONTACT_SIGNALS = ("normal_force", "friction_force", "slip_velocity", "gap", "mode")
CONTACT_OPTIONS = ("body", "shape", "radius", "point", "axis", "size", "surface", "origin", "normal",
                   "surface_velocity", "restitution", "static", "kinetic", "min_bounce_speed", "model", "stiffness",
                   "damping", "exponent", "slip_tolerance", "surface_shape", "surface_radius", "surface_axis", "inside",
                   "impact_law")
RIGID_ONLY = ("restitution", "min_bounce_speed", "impact_law")
COMPLIANT_ONLY = ("stiffness", "damping", "exponent", "slip_tolerance")
IMPACT_LAWS = ("newton", "smith")       # simulation/hybrid/impulses.py contact_impact
CORNERS = np.array([(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
# a compliant contact point's row of the force table (force_rows; its law: dynamics/forces.py compliant_contact):
# a = the surface's node, b = the body's; params: Hunt-Crossley stiffness, damping and exponent, kinetic friction
# and the slip speed that regularizes it, the surface's point and direction (in the surface's node), the shape's
# centre and disk axis (in the body's node), its radius, the surface material's velocity (surface node), the
# surface's kind (SURFACES) and signed radius
K_STIFF, K_DAMP, K_EXP, K_MU, K_SLIP, K_ORIGIN, K_NORMAL, K_CENTRE, K_AXIS, K_RADIUS, K_SURFACE, K_KIND, K_SRADIUS = \
    0, 1, 2, 3, 4, 5, 8, 11, 14, 17, 18, 21, 22
K_COLS = 23


class Contact(Element):
    """A contact of a shape on ``body`` with a plane, sphere or cylinder on ``surface``, rigid or compliant
    (module docstring)."""
    _noun, _section = "contact", "contacts"
    _structural = ("body", "surface")

    def _arguments(self):
        return CONTACT_OPTIONS

    def __init__(self, model, name, opts):
        what = f"contact '{name}'"
        unknown = set(opts) - set(CONTACT_OPTIONS)
        if unknown:
            raise ModelError(f"{what}: unknown option(s) {sorted(unknown)}; it takes {list(CONTACT_OPTIONS)}")
        self.name = name
        if "body" not in opts:
            raise ModelError(f"{what}: missing body=")
        self.body = model.body(opts["body"], what).name
        self.surface = model.body(opts.get("surface", "ground"), what + " surface").name
        if self.body == self.surface:
            raise ModelError(f"{what}: body and surface are the same body '{self.body}'")
        self.shape = opts.get("shape", "point")
        if self.shape not in SHAPES:
            raise ModelError(f"{what}: shape {self.shape!r} is not available; the shapes are {', '.join(SHAPES)}")
        self.model = opts.get("model", "rigid")
        if self.model not in ("rigid", "compliant"):
            raise ModelError(f"{what}: model must be 'rigid' or 'compliant', got {self.model!r}")
        wrong = sorted(set(opts) & set(COMPLIANT_ONLY if self.model == "rigid" else RIGID_ONLY))
        if wrong:
            raise ModelError(f"{what}: {', '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} not for a "
                             f"{self.model} contact")
        self.radius = finite_number(opts, "radius", 0.0, what)
        if self.shape in ("sphere", "disk") and not self.radius > 0:
            raise ModelError(f"{what}: a {self.shape} needs radius > 0")
        if self.shape in ("point", "box") and self.radius != 0:
            raise ModelError(f"{what}: a {self.shape} contact takes no radius (use shape='sphere' or 'disk')")
        if "axis" in opts and self.shape != "disk" or "size" in opts and self.shape != "box":
            raise ModelError(f"{what}: axis= is for a disk and size= for a box")
        self.point = as_vector3(opts.get("point", (0, 0, 0)), f"{what} point")
        self.axis = unit_axis(opts.get("axis", (0, 0, 1)), f"{what} axis") if self.shape == "disk" else np.zeros(3)
        self.size = as_vector3(opts.get("size", (0, 0, 0)), f"{what} size")
        if self.shape == "box" and not np.all(self.size > 0):
            raise ModelError(f"{what}: a box needs size= (three positive edge lengths)")
        self.origin = as_vector3(opts.get("origin", (0, 0, 0)), f"{what} origin")
        self._surface(opts, what)
        velocity = opts.get("surface_velocity")
        if velocity is not None and self.surface_shape != "plane":
            raise ModelError(f"{what}: surface_velocity is for a plane surface")
        if velocity is None:
            velocity = np.zeros(3)
        elif np.ndim(velocity) == 0:
            velocity = finite_number(opts, "surface_velocity", 0.0, what) * self.tangents[0]
        else:
            velocity = as_vector3(velocity, f"{what} surface_velocity")
        self.surface_velocity = velocity
        self.restitution = finite_number(opts, "restitution", 0.0, what)
        self.static = finite_number(opts, "static", 0.0, what)
        self.kinetic = finite_number(opts, "kinetic", self.static, what)
        self.min_bounce_speed = finite_number(opts, "min_bounce_speed", MIN_BOUNCE_SPEED, what)
        self.impact_law = opts.get("impact_law", "newton")
        if self.impact_law not in IMPACT_LAWS:
            raise ModelError(f"{what}: impact_law must be one of {', '.join(map(repr, IMPACT_LAWS))}, got "
                             f"{self.impact_law!r}")
        if not 0 <= self.restitution <= 1:
            raise ModelError(f"{what}: restitution must be in [0, 1], got {self.restitution:g}")
        if not 0 <= self.kinetic <= self.static:
            raise ModelError(f"{what}: need 0 <= kinetic <= static, got static={self.static:g}, "
                             f"kinetic={self.kinetic:g}")
        if self.min_bounce_speed < 0:
            raise ModelError(f"{what}: min_bounce_speed must be >= 0")
        if self.model == "compliant":
            self.stiffness = finite_number(opts, "stiffness", 0.0, what)
            self.damping = finite_number(opts, "damping", 0.0, what)
            self.exponent = finite_number(opts, "exponent", 1.5 if self.shape in ("sphere", "disk") else 1.0, what)
            self.slip_tolerance = finite_number(opts, "slip_tolerance", 1e-3, what)
            if not (self.stiffness > 0 and self.damping >= 0 and self.exponent >= 1 and self.slip_tolerance > 0):
                raise ModelError(f"{what}: a compliant contact needs stiffness > 0, damping >= 0, exponent >= 1 and "
                                 "slip_tolerance > 0")

    def _surface(self, opts, what):
        """The surface's shape, radius (signed: < 0 inside), normal (plane) or axis, and tangents."""
        self.surface_shape = opts.get("surface_shape", "plane")
        if self.surface_shape not in SURFACES:
            raise ModelError(f"{what}: surface_shape {self.surface_shape!r} is not available; the surfaces are "
                             f"{', '.join(SURFACES)}")
        curved = self.surface_shape != "plane"
        for option in ("surface_radius", "surface_axis", "inside") if not curved else ("normal",):
            if option in opts:
                raise ModelError(f"{what}: {option}= is not for a {self.surface_shape} surface")
        self.normal = unit_axis(opts.get("normal", (0, 0, 1)), f"{what} normal")
        self.tangents = plane_axes(self.normal)
        self.surface_axis = unit_axis(opts.get("surface_axis", (0, 0, 1)), f"{what} surface_axis")
        self.inside = opts.get("inside", False)
        if not isinstance(self.inside, bool):
            raise ModelError(f"{what}: inside must be true or false, got {self.inside!r}")
        self.surface_radius = finite_number(opts, "surface_radius", 0.0, what)
        if curved and not self.surface_radius > 0:
            raise ModelError(f"{what}: a {self.surface_shape} surface needs surface_radius > 0")
        if curved and self.shape == "disk":
            raise ModelError(f"{what}: a disk's rim touches planes only; use shape='sphere' on a "
                             f"{self.surface_shape}")
        if self.inside and self.surface_radius <= self.radius:
            raise ModelError(f"{what}: the {self.shape} (radius {self.radius:g}) does not fit inside the "
                             f"{self.surface_shape} of radius {self.surface_radius:g}")

    def surface_frame(self):
        """(kind, signed radius, direction, tangent reference e) of the surface for the kernels (layout.py
        contacts): a plane's normal and e = t2 (so that e x n = t1); a curved surface's axis for both."""
        if self.surface_shape == "plane":
            return "plane", 0.0, self.normal, self.tangents[1]
        return self.surface_shape, -self.surface_radius if self.inside else self.surface_radius, \
            self.surface_axis, self.surface_axis

    def points(self):
        """The centres of the shape's contact points on the body: a box's eight corners, else ``point``."""
        return list(self.point + CORNERS * self.size) if self.shape == "box" else [self.point]

    def force_rows(self, cm):
        """A compliant contact's rows of the force table, one per point (K_* above); a rigid one has none."""
        if self.model != "compliant":
            return
        kind, radius, direction, _ = self.surface_frame()
        surface_node, origin = cm.body_point_in_node(self.surface, self.origin)
        for centre in self.points():
            node, centre = cm.body_point_in_node(self.body, centre)
            prm = np.zeros(K_COLS)
            prm[[K_STIFF, K_DAMP, K_EXP, K_MU, K_SLIP, K_RADIUS, K_KIND, K_SRADIUS]] = \
                self.stiffness, self.damping, self.exponent, self.kinetic, self.slip_tolerance, self.radius, \
                SURFACES.index(kind), radius
            for column, value in ((K_ORIGIN, origin), (K_NORMAL, cm.body_direction_in_node(self.surface, direction)),
                                  (K_CENTRE, centre), (K_AXIS, cm.body_direction_in_node(self.body, self.axis)),
                                  (K_SURFACE, cm.body_direction_in_node(self.surface, self.surface_velocity))):
                prm[column:column + 3] = value
            yield ForceRow(surface_node, node, prm, ())

    @staticmethod
    def kernel(inline, compliant_contact, apply_point_force, **tools):
        """A compliant contact point's case (ForceElement.kernel): its force at the contact point on the
        body, the reaction on the surface."""
        @inline
        def compliant_contact_point(index, prm, u, q, v, R, p, vel, pA, tau):
            a, b = index[1], index[2]
            force, c, _, _, _ = compliant_contact(prm, a, b, R, p, vel)
            apply_point_force(pA, b, c, force, 1.0)
            apply_point_force(pA, a, c, force, -1.0)
        return compliant_contact_point

    def labels(self):
        """The labels of the rows of each point: ("normal", "t1", "t2"), indexed for a box's corners."""
        suffix = [f"[{k}]" for k in range(8)] if self.shape == "box" else [""]
        return [tuple(f"{row}{k}" for row in ("normal", "t1", "t2")) for k in suffix]
