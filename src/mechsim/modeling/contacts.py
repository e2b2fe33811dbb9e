"""Contacts (SPEC §3 ``add_contact``): a shape on a body touching a plane on another body (or the
ground), rigid: a unilateral normal row and two tangent rows whose modes (open, sliding, sticking
or rolling) the run switches (simulation/hybrid.py), impacts by Newton's law with Coulomb friction.

Shapes: "point" (a point of the body) and "sphere" (centre ``point``, ``radius``). The plane passes
through ``origin`` with unit ``normal`` (pointing out of the surface, towards the body), both in the
surface body's frame; its tangents (t1, t2) follow from the normal (t1 x t2 = normal).
``surface_velocity``: the surface material's velocity relative to its body (a conveyor belt): a
number along t1 or a 3-vector in the surface body's frame (its normal part is ignored).
"""
import numpy as np

from ..errors import ModelError
from ..spatial.rotations import as_vector3
from .element import Element
from .forces import MIN_BOUNCE_SPEED, finite_number
from .joints import plane_axes, unit_axis

SHAPES = ("point", "sphere")
CONTACT_SIGNALS = ("normal_force", "friction_force", "slip_velocity", "gap", "mode")
CONTACT_OPTIONS = ("body", "shape", "radius", "point", "surface", "origin", "normal", "surface_velocity",
                   "restitution", "static", "kinetic", "min_bounce_speed", "model")


class Contact(Element):
    """A rigid contact of a point or sphere on ``body`` with a plane on ``surface``."""
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
            raise ModelError(f"{what}: shape {self.shape!r} is not available; the shapes are {', '.join(SHAPES)} "
                             "(a disk or box: put sphere or point contacts on its rim or corners)")
        if opts.get("model", "rigid") != "rigid":
            raise ModelError(f"{what}: model {opts['model']!r} is not available; contacts are rigid "
                             "(for a compliant stop on a joint use joint_limit with stiffness=)")
        self.radius = finite_number(opts, "radius", 0.0, what)
        if self.shape == "sphere" and not self.radius > 0:
            raise ModelError(f"{what}: a sphere needs radius > 0")
        if self.shape == "point" and self.radius != 0:
            raise ModelError(f"{what}: a point contact takes no radius (use shape='sphere')")
        self.point = as_vector3(opts.get("point", (0, 0, 0)), f"{what} point")
        self.origin = as_vector3(opts.get("origin", (0, 0, 0)), f"{what} origin")
        self.normal = unit_axis(opts.get("normal", (0, 0, 1)), f"{what} normal")
        self.tangents = plane_axes(self.normal)
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
        if not 0 <= self.restitution <= 1:
            raise ModelError(f"{what}: restitution must be in [0, 1], got {self.restitution:g}")
        if not 0 <= self.kinetic <= self.static:
            raise ModelError(f"{what}: need 0 <= kinetic <= static, got static={self.static:g}, "
                             f"kinetic={self.kinetic:g}")
        if self.min_bounce_speed < 0:
            raise ModelError(f"{what}: min_bounce_speed must be >= 0")
