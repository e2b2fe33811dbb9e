"""Constraints and motion drivers (SPEC §1 C1, §3): gear, distance, point_coincident,
point_on_line, point_on_plane; a driver makes one joint coordinate follow a motion of time."""
import numpy as np

from ..errors import ModelError
from ..spatial.rotations import as_vector3
from .element import Element
from .forces import Source
from .joints import PRIM_NQ, PRIM_NV, PRIM_S, unit_axis

CONSTRAINT_OPTIONS = {
    "gear": ("joints", "ratio"),
    "distance": ("body_a", "point_a", "body_b", "point_b", "length"),
    "point_coincident": ("body_a", "point_a", "body_b", "point_b"),
    "point_on_line": ("body_a", "point_a", "direction", "body_b", "point_b"),
    "point_on_plane": ("body_a", "point_a", "normal", "body_b", "point_b"),
}
CONSTRAINT_KINDS = tuple(CONSTRAINT_OPTIONS)


class Constraint(Element):
    """A constraint between two bodies (geometric kinds) or two joint coordinates (gear)."""
    _noun, _section = "constraint", "constraints"
    _structural = ("joints", "body_a", "body_b")

    def _arguments(self):
        return ("kind", *CONSTRAINT_OPTIONS[self.kind])

    def __init__(self, model, name, kind, opts):
        if kind not in CONSTRAINT_OPTIONS:
            raise ModelError(f"constraint '{name}': unknown kind {kind!r}; use one of {', '.join(CONSTRAINT_KINDS)}")
        what = f"constraint '{name}' ({kind})"
        unknown = set(opts) - set(CONSTRAINT_OPTIONS[kind])
        if unknown:
            raise ModelError(f"{what}: unknown option(s) {sorted(unknown)}; it takes {list(CONSTRAINT_OPTIONS[kind])}")
        self.name, self.kind, self.what = name, kind, what
        if kind == "gear":
            joints = opts.get("joints")
            if not isinstance(joints, (list, tuple)) or len(joints) != 2:
                raise ModelError(f"{what}: give joints=(joint_a, joint_b)")
            self.joints = tuple(single_coordinate_joint(model, j, what).name for j in joints)
            self.ratio = _finite(opts.get("ratio", 1.0), f"{what} ratio")
            return
        for key in ("body_a", "body_b"):
            if key not in opts:
                raise ModelError(f"{what}: missing {key}=")
        self.body_a = model.body(opts["body_a"], what).name
        self.body_b = model.body(opts["body_b"], what).name
        if self.body_a == self.body_b:
            raise ModelError(f"{what}: body_a and body_b are the same body '{self.body_a}'")
        self.point_a = as_vector3(opts.get("point_a", (0, 0, 0)), f"{what} point_a")
        self.point_b = as_vector3(opts.get("point_b", (0, 0, 0)), f"{what} point_b")
        if kind == "distance":
            if "length" not in opts:
                raise ModelError(f"{what}: missing length= (a number, a function of t or an expression)")
            self.length = Motion(Source(opts["length"], f"{what} length"), None, None, what, 0.0)
            if self.length.is_constant and not self.length.constant > 0:
                raise ModelError(f"{what}: length must be positive (for coincident points use point_coincident)")
        elif kind == "point_on_line":
            self.direction = unit_axis(opts.get("direction", (1, 0, 0)), f"{what} direction")
        elif kind == "point_on_plane":
            self.normal = unit_axis(opts.get("normal", (0, 0, 1)), f"{what} normal")

    @property
    def joints_used(self):
        return self.joints if self.kind == "gear" else ()


class Driver(Element):
    """Joint coordinate ``coordinate`` of ``joint`` follows a prescribed motion of t."""
    _noun, _section = "driver", "drivers"
    _structural = ("joint", "coordinate")

    def _arguments(self):
        return ("joint", "position", "velocity", "acceleration", "coordinate")

    def __init__(self, model, joint, position=None, velocity=None, acceleration=None, coordinate=0, name=None):
        j = model.joint(joint, "driver")
        self.joint = j.name
        self.name = name or j.name
        what = f"driver '{self.name}'"
        if not isinstance(coordinate, (int, np.integer)) or not 0 <= coordinate < j.nv:
            raise ModelError(f"{what}: coordinate must be an integer in 0..{j.nv - 1} for joint '{j.name}' ({j.kind})")
        self.coordinate = int(coordinate)
        self.primitive = primitive_of_coordinate(j, self.coordinate, what)
        if position is None and velocity is None and acceleration is None:
            raise ModelError(f"{what}: give position=, velocity= or acceleration= (a number, function of t or expression)")
        sources = [None if x is None else Source(x, f"{what} {key}")
                   for x, key in ((position, "position"), (velocity, "velocity"), (acceleration, "acceleration"))]
        self.q0 = float(j.q0[self.q_offset(j)])
        self.v0 = float(j.v0[self.coordinate])
        self.motion = Motion(*sources, what, self.q0, self.v0)

    def q_offset(self, joint):
        """Index in the joint's q block of the driven coordinate (a quaternion before it takes 4)."""
        i = k = 0
        for ptype, _, _ in joint.primitives:
            if k <= self.coordinate < k + PRIM_NV[ptype]:
                return i + self.coordinate - k
            i, k = i + PRIM_NQ[ptype], k + PRIM_NV[ptype]
        raise AssertionError


def primitive_of_coordinate(joint, coordinate, what):
    """Index of the primitive carrying a joint's velocity coordinate: one of a single coordinate, or a
    translation T (spherical ones refused)."""
    k = 0
    for index, (ptype, _, _) in enumerate(joint.primitives):
        n = PRIM_NV[ptype]
        if k <= coordinate < k + n:
            if ptype == PRIM_S:
                raise ModelError(f"{what}: coordinate {coordinate} of joint '{joint.name}' is part of a spherical "
                                 "(quaternion) primitive, which cannot be driven; use a gimbal joint instead")
            return index
        k += n
    raise AssertionError


def single_coordinate_joint(model, name, what):
    joint = model.joint(name, what)
    if joint.nv != 1 or joint.nq != 1:
        raise ModelError(f"{what}: joint '{joint.name}' ({joint.kind}) must have exactly one coordinate")
    return joint


def _finite(value, what):
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"{what} must be a number, got {value!r}") from None
    if not np.isfinite(x):
        raise ModelError(f"{what} must be finite")
    return x


class Motion:
    """A prescribed scalar motion f(t) with its first two derivatives. Given the position only, the
    derivatives are taken by Richardson-extrapolated central differences (error O(h^4)); given only
    the velocity or only the acceleration, the position is its integral from the value at t = 0."""

    H1, H2 = 1e-3, 5e-3        # difference steps for the first and second derivative (relative to 1 + |t|)

    def __init__(self, position, velocity, acceleration, what, q0=0.0, v0=0.0):
        self.what = what
        self.sources = (position, velocity, acceleration)
        self.constant = position.constant if position is not None and velocity is None and acceleration is None \
            and position.is_constant else None
        self.q0, self.v0 = q0, v0

    @property
    def is_constant(self):
        return self.constant is not None

    def position(self, t):
        p, v, a = self.sources
        if p is not None:
            return p(t)
        if v is not None:
            return self.q0 + _integral(v, t)
        return self.q0 + self.v0 * t + _integral(lambda s: (t - s) * a(s), t)

    def velocity(self, t):
        p, v, a = self.sources
        if v is not None:
            return v(t)
        if p is not None:
            return _derivative(p, t, self.H1 * (1 + abs(t)))
        return self.v0 + _integral(a, t)

    def acceleration(self, t):
        p, v, a = self.sources
        if a is not None:
            return a(t)
        if v is not None:
            return _derivative(v, t, self.H1 * (1 + abs(t)))
        return _second_derivative(p, t, self.H2 * (1 + abs(t)))

    def __call__(self, t):
        """(f, f', f'') at t."""
        if self.is_constant:
            return self.constant, 0.0, 0.0
        values = (self.position(t), self.velocity(t), self.acceleration(t))
        if not np.all(np.isfinite(values)):
            raise ModelError(f"{self.what}: the prescribed motion is not finite at t = {t:.6g}")
        return values


def _integral(f, t):
    """The integral of f from 0 to t (adaptive quadrature)."""
    from scipy.integrate import quad        # imported here, not at start-up: scipy.integrate takes ~0.4 s
    return quad(f, 0.0, t, epsabs=1e-13, epsrel=1e-12, limit=200)[0]


def _derivative(f, t, h):
    """f'(t) by central differences at h and h/2, Richardson-extrapolated."""
    d1 = (f(t + h) - f(t - h)) / (2 * h)
    d2 = (f(t + h / 2) - f(t - h / 2)) / h
    return (4 * d2 - d1) / 3


def _second_derivative(f, t, h):
    """f''(t) by second central differences at h and h/2, Richardson-extrapolated."""
    f0 = f(t)
    d1 = (f(t + h) - 2 * f0 + f(t - h)) / h ** 2
    d2 = (f(t + h / 2) - 2 * f0 + f(t - h / 2)) / (h / 2) ** 2
    return (4 * d2 - d1) / 3
