"""Force elements (SPEC §2, §3): joint spring-damper, point-to-point spring-damper, joint force
actuators and body forces. Time-varying values are numbers, callables of t, expression
strings of t, or (for joint forces) the name of a model input."""
import numpy as np

from ..errors import ModelError
from ..expressions import parse_expression
from ..spatial.rotations import as_vector3
from .element import Element
from .joints import PRIM_P, PRIM_R

MIN_BOUNCE_SPEED = 1e-4     # default rebound speed (m/s or rad/s) below which a rigid stop stays closed


class Source:
    """A scalar signal of time: a constant, a callable f(t), an expression, or a model input."""

    def __init__(self, value, what, inputs=()):
        self.constant, self.function, self.input = None, None, None
        if isinstance(value, str):
            if value in inputs:
                self.input = value
            else:
                self.function = parse_expression(value, what)
        elif callable(value):
            self.function = value
        else:
            try:
                self.constant = float(value)
            except (TypeError, ValueError):
                raise ModelError(f"{what}: expected a number, a function of t, an expression string "
                                 f"or an input name, got {value!r}") from None
            if not np.isfinite(self.constant):
                raise ModelError(f"{what}: value must be finite, got {value!r}")
        self.raw, self.what = value, what

    @property
    def is_constant(self):
        return self.constant is not None

    def __call__(self, t):
        """The value at time t (not for a model input, which the caller looks up)."""
        return self.constant if self.constant is not None else number_returned(self.function(t), self.what, t)


def number_returned(value, what, t, n=None):
    """A user function's value at t as a float (n floats if n is given); ModelError naming it otherwise."""
    try:
        return float(value) if n is None else np.asarray(value, dtype=float).reshape(n)
    except (TypeError, ValueError, OverflowError):
        raise ModelError(f"{what}: the function returned {value!r} at t = {t:.6g}; it must return "
                         f"{'a number' if n is None else f'{n} numbers'}") from None


def vector_sources(value, what, n=3, inputs=()):
    """n Sources from a sequence of n values (numbers, callables, expressions or input names), or n
    Sources splitting one callable returning n values."""
    if callable(value) and not isinstance(value, str):
        cache = {}

        def component(i):
            def f(t):
                if cache.get("t") != t:
                    cache["t"], cache["v"] = t, number_returned(value(t), what, t, n)
                return cache["v"][i]
            return f
        return [Source(component(i), f"{what}[{i}]") for i in range(n)]
    if isinstance(value, str) or len(value) != n:
        raise ModelError(f"{what}: expected {n} values (numbers, functions or expressions), got {value!r}")
    return [Source(v, f"{what}[{i}]", inputs) for i, v in enumerate(value)]


class ForceElement(Element):
    _noun, _section = "force", "forces"
    _structural = ("joint", "body", "body_a", "body_b")
    kind = None
    options = ()

    def _arguments(self):
        return ("kind", *self.options)

    signals = ()           # its own signals, "<name>.<signal>"

    def __init__(self, name, **opts):
        self.name = name
        unknown = set(opts) - set(self.options)
        if unknown:
            raise ModelError(f"force '{name}' ({self.kind}): unknown option(s) {sorted(unknown)}; it takes {list(self.options)}")
        self.opts = opts

    @property
    def _what(self):
        return f"force '{self.name}' ({self.kind})"

    def _configure(self, model, opts):
        """Check ``opts`` against ``model`` and set the element's parameters from them."""
        raise NotImplementedError

    def _need(self, opts, key):
        if key not in opts:
            raise ModelError(f"{self._what}: missing {key}=")
        return opts[key]

    def _number(self, opts, key, default):
        return finite_number(opts, key, default, self._what)

    def _joint_with_dof(self, model, opts):
        joint = model.joint(self._need(opts, "joint"), self._what)
        if joint.nv == 0:
            raise ModelError(f"{self._what}: joint '{joint.name}' has no degrees of freedom")
        self.joint = joint.name
        return joint

    def _joint_coordinate(self, model, opts):
        """joint, coordinate and primitive (a 1-DOF primitive) of an element on one joint coordinate."""
        from .constraints import primitive_of_coordinate
        joint = model.joint(self._need(opts, "joint"), self._what)
        coordinate = opts.get("coordinate", 0)
        if not isinstance(coordinate, (int, np.integer)) or not 0 <= coordinate < joint.nv:
            raise ModelError(f"{self._what}: coordinate must be an integer in 0..{max(joint.nv - 1, 0)} for joint "
                             f"'{joint.name}' ({joint.kind})")
        self.joint, self.coordinate = joint.name, int(coordinate)
        self.primitive = primitive_of_coordinate(joint, self.coordinate, self._what)


class JointSpringDamper(ForceElement):
    """tau = -k (q - rest) - c v per coordinate of a joint (SPEC §2)."""
    kind = "joint_spring_damper"
    options = ("joint", "stiffness", "damping", "rest")

    def _configure(self, model, opts):
        joint, what = self._joint_with_dof(model, opts), self._what
        self.stiffness = _per_coordinate(opts.get("stiffness", 0.0), joint.nv, what, "stiffness")
        self.damping = _per_coordinate(opts.get("damping", 0.0), joint.nv, what, "damping")
        self.rest = _per_coordinate(opts.get("rest", 0.0), joint.nv, what, "rest")
        if joint.nq != joint.nv:
            raise ModelError(f"{what}: joint '{joint.name}' ({joint.kind}) has quaternion coordinates; "
                             "use a bushing or gimbal joint for a rotational spring")


class SpringDamper(ForceElement):
    """Point-to-point spring-damper along the line between two body points."""
    kind = "spring_damper"
    options = ("body_a", "point_a", "body_b", "point_b", "stiffness", "damping", "rest_length")

    def _configure(self, model, opts):
        what = self._what
        self.body_a = model.body(self._need(opts, "body_a"), what).name
        self.body_b = model.body(self._need(opts, "body_b"), what).name
        self.point_a = as_vector3(opts.get("point_a", (0, 0, 0)), f"{what} point_a")
        self.point_b = as_vector3(opts.get("point_b", (0, 0, 0)), f"{what} point_b")
        self.stiffness, self.damping = self._number(opts, "stiffness", 0.0), self._number(opts, "damping", 0.0)
        self.rest_length = self._number(opts, "rest_length", 0.0)
        if self.rest_length < 0:
            raise ModelError(f"{what}: rest_length must be >= 0")


class JointForce(ForceElement):
    """Generalized actuator force on every coordinate of a joint (value per coordinate)."""
    kind = "joint_force"
    options = ("joint", "value")

    def _configure(self, model, opts):
        joint, what = self._joint_with_dof(model, opts), self._what
        value = self._need(opts, "value")
        values = value if (isinstance(value, (list, tuple, np.ndarray)) and joint.nv > 1) else [value] * joint.nv
        if len(values) != joint.nv:
            raise ModelError(f"{what}: value needs {joint.nv} entries for joint '{joint.name}'")
        self.values = [Source(v, f"{what} value", model.inputs) for v in values]


class BodyForce(ForceElement):
    """Force and torque (world axes) at a body point (body coordinates)."""
    kind = "body_force"
    options = ("body", "point", "force", "torque")

    def _configure(self, model, opts):
        what = self._what
        self.body = model.body(self._need(opts, "body"), what).name
        self.point = as_vector3(opts.get("point", (0, 0, 0)), f"{what} point")
        self.force = vector_sources(opts.get("force", (0, 0, 0)), f"{what} force", inputs=model.inputs)
        self.torque = vector_sources(opts.get("torque", (0, 0, 0)), f"{what} torque", inputs=model.inputs)


class JointLimit(ForceElement):
    """A stop on one coordinate of a joint (R, P or H primitive): ``lower`` and/or ``upper``. Rigid
    (default): a unilateral constraint row; reaching a stop with approach speed v_n rebounds with
    ``restitution`` e (Newton's law, an impulse through Lambda = G M^-1 G^T), and the stop stays
    closed when e v_n < ``min_bounce_speed``, until its force would pull. Compliant (``stiffness``
    given): tau = -k d - c d' on the penetration d > 0, never pulling."""
    kind = "joint_limit"
    options = ("joint", "lower", "upper", "restitution", "stiffness", "damping", "coordinate", "min_bounce_speed")
    signals = ("force",)

    def _configure(self, model, opts):
        self._joint_coordinate(model, opts)
        what, number = self._what, lambda key, default: self._number(opts, key, default)
        self.lower = None if opts.get("lower") is None else number("lower", 0.0)
        self.upper = None if opts.get("upper") is None else number("upper", 0.0)
        if self.lower is None and self.upper is None:
            raise ModelError(f"{what}: give lower=, upper= or both")
        if self.lower is not None and self.upper is not None and not self.lower < self.upper:
            raise ModelError(f"{what}: lower ({self.lower:g}) must be below upper ({self.upper:g})")
        self.stiffness = None if opts.get("stiffness") is None else number("stiffness", 0.0)
        self.damping = number("damping", 0.0)
        self.restitution = number("restitution", 0.0)
        self.min_bounce_speed = number("min_bounce_speed", MIN_BOUNCE_SPEED)
        if self.stiffness is not None and not self.stiffness > 0:
            raise ModelError(f"{what}: stiffness must be positive, got {self.stiffness:g}")
        if self.damping < 0 or (self.stiffness is None and self.damping > 0):
            raise ModelError(f"{what}: damping must be >= 0 and needs stiffness= (a compliant stop)")
        if not 0 <= self.restitution <= 1:
            raise ModelError(f"{what}: restitution must be in [0, 1], got {self.restitution:g}")
        if self.stiffness is not None and "restitution" in opts:
            raise ModelError(f"{what}: restitution is for rigid stops; a compliant stop takes stiffness= and damping=")
        if self.min_bounce_speed < 0:
            raise ModelError(f"{what}: min_bounce_speed must be >= 0")

    @property
    def rigid(self):
        return self.stiffness is None

    def stops(self):
        """(side, value, sign) of each stop: sign +1 for lower (the stop pushes q up), -1 for upper."""
        return [(side, value, sign) for side, value, sign in (("lower", self.lower, 1.0), ("upper", self.upper, -1.0))
                if value is not None]


class JointFriction(ForceElement):
    """Coulomb friction on one coordinate of a joint (force or torque levels): stuck, the coordinate is
    held by a constraint row while its force stays within ``static``; slipping, ``kinetic`` opposes
    the slip (Wood & Kennedy 2003 §6: joints that lock and unlock, resolved by a mode iteration).
    ``model="regularized"``: the smooth -kinetic v / sqrt(v^2 + slip_tolerance^2) instead, a force with
    no modes (it creeps under a load below the static level: at v = v_s r / sqrt(1 - r^2), r = load /
    kinetic).

    Friction from the joint's load, ``mu`` (mu_s = mu_k, or [mu_s, mu_k]): the levels grow by mu times
    the reaction the joint transmits across its axis, |F_perp| for a prismatic guide and ``radius`` x
    |F_perp| for a revolute pin of that radius (the radial load on the pin; its axial load and the
    reaction moments are left out), on top of the constant ``static`` and ``kinetic``. The reaction
    depends on the friction itself while slipping: the dynamics solve the two together (a fixed-point
    iteration, dynamics/multipliers.py)."""
    kind = "joint_friction"
    options = ("joint", "static", "kinetic", "coordinate", "model", "slip_tolerance", "mu", "radius")
    signals = ("force", "mode")

    def _configure(self, model, opts):
        self._joint_coordinate(model, opts)
        what = self._what
        self.static, self.kinetic = self._number(opts, "static", 0.0), self._number(opts, "kinetic", opts.get("static", 0.0))
        if not 0 <= self.kinetic <= self.static:
            raise ModelError(f"{what}: need 0 <= kinetic <= static, got static={self.static:g}, kinetic={self.kinetic:g}")
        self.model = opts.get("model", "exact")
        if self.model not in ("exact", "regularized"):
            raise ModelError(f"{what}: model must be 'exact' (stick and slip) or 'regularized', got {self.model!r}")
        self._friction_from_load(model, opts)
        self.slip_tolerance = self._number(opts, "slip_tolerance", 1e-3)
        if self.model == "exact" and "slip_tolerance" in opts or not self.slip_tolerance > 0:
            raise ModelError(f"{what}: slip_tolerance (> 0) is for model='regularized'")

    def _friction_from_load(self, model, opts):
        """mu_static, mu_kinetic and radius (the class docstring)."""
        what = self._what
        mu = opts.get("mu", 0.0)
        mu = list(mu) if isinstance(mu, (list, tuple, np.ndarray)) else [mu, mu]
        if len(mu) != 2:
            raise ModelError(f"{what}: mu must be one coefficient or [static, kinetic], got {opts.get('mu')!r}")
        self.mu_static, self.mu_kinetic = (finite_number({"mu": x}, "mu", 0.0, what) for x in mu)
        if not 0 <= self.mu_kinetic <= self.mu_static:
            raise ModelError(f"{what}: need 0 <= kinetic <= static friction coefficients, got mu={opts.get('mu')!r}")
        ptype = model.joint(self.joint, what).primitives[self.primitive][0]
        rotational = ptype == PRIM_R
        self.radius = self._number(opts, "radius", 0.0) if rotational else 1.0
        if "radius" in opts and not rotational:
            raise ModelError(f"{what}: radius= is the pin radius of a revolute coordinate; a prismatic guide's "
                             "friction is mu times its transverse load")
        if self.mu_static > 0 and rotational and not self.radius > 0:
            raise ModelError(f"{what}: mu= on a revolute coordinate needs the pin's radius= (> 0)")
        if self.mu_static > 0 and not (self.exact and ptype in (PRIM_R, PRIM_P)):
            raise ModelError(f"{what}: mu= (friction from the joint's load) needs model='exact' on a revolute or "
                             "prismatic coordinate")

    @property
    def exact(self):
        return self.model == "exact"

    @property
    def loaded(self):
        """Whether its levels grow with the joint's reaction (``mu`` given)."""
        return self.mu_static > 0


FORCE_CLASSES = {cls.kind: cls for cls in (JointSpringDamper, SpringDamper, JointForce, BodyForce, JointLimit,
                                           JointFriction)}
FORCE_KINDS = tuple(FORCE_CLASSES)


def finite_number(opts, key, default, what):
    """opts[key] (or ``default``) as a finite float; ModelError naming ``what`` and the key otherwise."""
    try:
        x = float(opts.get(key, default))
    except (TypeError, ValueError):
        raise ModelError(f"{what}: {key} must be a number, got {opts.get(key)!r}") from None
    if not np.isfinite(x):
        raise ModelError(f"{what}: {key} must be finite")
    return x


def make_force(model, name, kind, opts):
    """Validate a force element against the model and return it with parsed parameters."""
    if kind not in FORCE_CLASSES:
        raise ModelError(f"force '{name}': unknown kind {kind!r}; use one of {', '.join(FORCE_KINDS)}")
    force = FORCE_CLASSES[kind](name, **opts)
    force._configure(model, opts)
    return force


def _per_coordinate(value, n, what, key):
    a = np.atleast_1d(np.asarray(value, dtype=float)).ravel()
    if a.size == 1:
        a = np.full(n, a[0])
    if a.size != n or not np.all(np.isfinite(a)):
        raise ModelError(f"{what}: {key} must be one number or {n} numbers")
    return a
