"""What every force element kind shares: ``ForceElement``, the contract a kind module fulfils, and the
values that vary in time (``Source``: numbers, callables of t, expression strings of t, or the name of
a model input)."""
from collections import namedtuple

import numpy as np

from ...errors import ModelError
from ...expressions import parse_expression
from ..element import Element
from ..joints import primitive_of_coordinate

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


ForceRow = namedtuple("ForceRow", "a b params sources")
ForceRow.__doc__ = """One row of the compiled force table (dynamics/compiled.py): the indices a and b its kernel case
reads (nodes, or v and q indices), its parameters (floats, in the kind's own order) and the Sources of its
time-varying values, which take consecutive slots of the force values u (the case reads u[slot:])."""


class ForceElement(Element):
    """A force element kind, one module each (modeling/forces/__init__.py lists them): the element checks
    its options (``_configure``), says what it compiles into (``force_rows``, and for a hybrid element
    ``constraint_rows``), brings its kernel case (``kernel``) and computes its signals (``signal``).

    The kernel case is ``case(index, prm, u, q, v, R, p, vel, pA, tau)``: ``index`` = [code, a, b, slot] and
    ``prm`` = the params of one row; u the force values; q, v the state; R, p, vel the nodes' rotations,
    origins and spatial velocities (world axes, referred to the kernels' reference point, dynamics/kernels.py);
    a wrench f on node i leaves its bias force, pA[i] -= f, and a generalized force adds to tau."""
    _noun, _section = "force", "forces"
    _structural = ("joint", "body", "body_a", "body_b")
    kind = None
    options = ()
    signals = ()           # its own signals, "<name>.<signal>"

    def _arguments(self):
        return ("kind", *self.options)

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

    @property
    def joints_used(self):
        """The joints whose coordinates it acts on (they stay in the spanning tree, dynamics/topology.py)."""
        joint = vars(self).get("joint")
        return () if joint is None else (joint,)

    def force_rows(self, cm):
        """The ForceRows it compiles into, given the CompiledModel ``cm`` (its nodes, coordinate slots and
        body points in node coordinates); none for an element held by constraint rows."""
        return ()

    def constraint_rows(self, rows):
        """Add the constraint rows it holds in some modes to ``rows`` (dynamics/closure.py ConstraintRows)."""

    @staticmethod
    def kernel(inline, **tools):
        """Its kernel case (class docstring), compiled by ``inline`` (dynamics/forces.py KERNEL_TOOLS: the case
        takes the kernels' helpers it calls as keyword arguments of the same names: point_state, ...)."""
        raise NotImplementedError

    def signal(self, result, quantity):
        """Its signal ``quantity`` (one of ``signals``) at every sample of ``result``."""
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
        joint = model.joint(self._need(opts, "joint"), self._what)
        coordinate = opts.get("coordinate", 0)
        if not isinstance(coordinate, (int, np.integer)) or not 0 <= coordinate < joint.nv:
            raise ModelError(f"{self._what}: coordinate must be an integer in 0..{max(joint.nv - 1, 0)} for joint "
                             f"'{joint.name}' ({joint.kind})")
        self.joint, self.coordinate = joint.name, int(coordinate)
        self.primitive = primitive_of_coordinate(joint, self.coordinate, self._what)


def finite_number(opts, key, default, what):
    """opts[key] (or ``default``) as a finite float; ModelError naming ``what`` and the key otherwise."""
    try:
        x = float(opts.get(key, default))
    except (TypeError, ValueError):
        raise ModelError(f"{what}: {key} must be a number, got {opts.get(key)!r}") from None
    if not np.isfinite(x):
        raise ModelError(f"{what}: {key} must be finite")
    return x


def per_coordinate(value, n, what, key):
    """One number or n numbers as n floats; ModelError naming ``what`` and the key otherwise."""
    a = np.atleast_1d(np.asarray(value, dtype=float)).ravel()
    if a.size == 1:
        a = np.full(n, a[0])
    if a.size != n or not np.all(np.isfinite(a)):
        raise ModelError(f"{what}: {key} must be one number or {n} numbers")
    return a
