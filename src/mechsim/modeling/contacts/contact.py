"""Contacts (SPEC §3 ``add_contact``): a shape on a body touching a surface on another body (or the
ground), rigid: a unilateral normal row and two tangent rows whose modes (open, sliding, sticking
or rolling) the run switches (simulation/hybrid), impacts by Newton's law with Coulomb friction
(``impact_law="newton"``, the default) or with Smith's (1991) friction law (``"smith"``).

``model="compliant"`` instead: a Hunt-Crossley spring-damper on the penetration (``stiffness``,
``damping``, ``exponent``: 1.5 for a sphere or disk, Hertz's) with Coulomb friction regularized over
``slip_tolerance`` (m/s), a force element evaluated in the compiled dynamics, no modes or events.

The shape on the body (``shape``: shapes/, one module per kind: point, sphere, disk, box) and the surface
(``surface_shape``: surfaces/, one module per kind: plane, sphere, cylinder) are kinds of their own, each with
its options. Points, axes and sizes are in the body's frame, the surface's origin, normal and axis in the
surface body's frame. ``surface_velocity``: the surface material's velocity relative to its body (a conveyor
belt): a number along t1 or a 3-vector in the surface body's frame (its normal part is ignored).
"""
import numpy as np

from ...errors import ModelError
from ...spatial.rotations import as_vector3
from ..element import Element
from ..forces.base import MIN_BOUNCE_SPEED, ForceRow, finite_number
from .shapes import SHAPE_CLASSES, SHAPE_OPTIONS
from .surfaces import SURFACE_CLASSES, SURFACE_CODE, SURFACE_OPTIONS

CONTACT_SIGNALS = ("normal_force", "friction_force", "slip_velocity", "gap", "mode")
CONTACT_OPTIONS = ("body", "shape", *SHAPE_OPTIONS, "point", "surface", "surface_shape", "origin", *SURFACE_OPTIONS,
                   "restitution", "static", "kinetic", "min_bounce_speed", "model", "stiffness", "damping", "exponent",
                   "slip_tolerance", "impact_law")
RIGID_ONLY = ("restitution", "min_bounce_speed", "impact_law")
COMPLIANT_ONLY = ("stiffness", "damping", "exponent", "slip_tolerance")
IMPACT_LAWS = ("newton", "smith")       # simulation/hybrid/impulses.py contact_impact
# a compliant contact point's row of the force table (force_rows; its law: dynamics/forces.py compliant_contact):
# a = the surface's node, b = the body's; params: Hunt-Crossley stiffness, damping and exponent, kinetic friction
# and the slip speed that regularizes it, the surface's point and direction (in the surface's node), the shape's
# centre and disk axis (in the body's node), its radius, the surface material's velocity (surface node), the
# surface's kind (its code, surfaces.SURFACE_CODE) and signed radius
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
        if self.shape not in SHAPE_CLASSES:
            raise ModelError(f"{what}: shape {self.shape!r} is not available; the shapes are {', '.join(SHAPE_CLASSES)}")
        self.model = opts.get("model", "rigid")
        if self.model not in ("rigid", "compliant"):
            raise ModelError(f"{what}: model must be 'rigid' or 'compliant', got {self.model!r}")
        wrong = sorted(set(opts) & set(COMPLIANT_ONLY if self.model == "rigid" else RIGID_ONLY))
        if wrong:
            raise ModelError(f"{what}: {', '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} not for a "
                             f"{self.model} contact")
        refuse_others(opts, SHAPE_CLASSES[self.shape], SHAPE_CLASSES, "", what)
        self.shape_kind = SHAPE_CLASSES[self.shape](opts, what)
        self.radius, self.axis, self.size = self.shape_kind.radius, self.shape_kind.axis, self.shape_kind.size
        self.point = as_vector3(opts.get("point", (0, 0, 0)), f"{what} point")
        self.origin = as_vector3(opts.get("origin", (0, 0, 0)), f"{what} origin")
        self.surface_shape = opts.get("surface_shape", "plane")
        if self.surface_shape not in SURFACE_CLASSES:
            raise ModelError(f"{what}: surface_shape {self.surface_shape!r} is not available; the surfaces are "
                             f"{', '.join(SURFACE_CLASSES)}")
        refuse_others(opts, SURFACE_CLASSES[self.surface_shape], SURFACE_CLASSES, " surface", what)
        self.surface_kind = SURFACE_CLASSES[self.surface_shape](opts, self.shape_kind, what)
        self.normal, self.tangents = self.surface_kind.normal, self.surface_kind.tangents
        velocity = opts.get("surface_velocity")
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
            self.exponent = finite_number(opts, "exponent", 1.5 if self.shape_kind.hertz else 1.0, what)
            self.slip_tolerance = finite_number(opts, "slip_tolerance", 1e-3, what)
            if not (self.stiffness > 0 and self.damping >= 0 and self.exponent >= 1 and self.slip_tolerance > 0):
                raise ModelError(f"{what}: a compliant contact needs stiffness > 0, damping >= 0, exponent >= 1 and "
                                 "slip_tolerance > 0")

    def surface_frame(self):
        """(code, signed radius, direction, tangent reference e) of the surface for the kernels (layout.py
        contacts; surfaces/base.py Surface.frame)."""
        return (SURFACE_CODE[self.surface_shape], *self.surface_kind.frame())

    def points(self):
        """The centres of the shape's contact points on the body (a box's eight corners)."""
        return self.shape_kind.centres(self.point)

    def force_rows(self, cm):
        """A compliant contact's rows of the force table, one per point (K_* above); a rigid one has none."""
        if self.model != "compliant":
            return
        code, radius, direction, _ = self.surface_frame()
        surface_node, origin = cm.body_point_in_node(self.surface, self.origin)
        for centre in self.points():
            node, centre = cm.body_point_in_node(self.body, centre)
            prm = np.zeros(K_COLS)
            prm[[K_STIFF, K_DAMP, K_EXP, K_MU, K_SLIP, K_RADIUS, K_KIND, K_SRADIUS]] = \
                self.stiffness, self.damping, self.exponent, self.kinetic, self.slip_tolerance, self.radius, \
                code, radius
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
        n = len(self.points())
        suffix = [f"[{k}]" for k in range(n)] if n > 1 else [""]
        return [tuple(f"{row}{k}" for row in ("normal", "t1", "t2")) for k in suffix]


def refuse_others(opts, kind, kinds, noun, what):
    """ModelError for an option ``opts`` gives that another of ``kinds`` takes but ``kind`` does not."""
    for option in dict.fromkeys(o for other in kinds.values() for o in other.options):
        if option in opts and option not in kind.options:
            owners = " or ".join(k for k, other in kinds.items() if option in other.options)
            raise ModelError(f"{what}: {option}= is not for a {kind.kind}{noun}; {option}= for a {owners}{noun}")
