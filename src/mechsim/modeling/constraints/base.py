"""What every constraint kind shares: ``Constraint``, the contract a kind module fulfils (SPEC §3
add_constraint), and the checks of joint coordinates that constraints, drivers and joint elements use."""
import numpy as np

from ...errors import ModelError
from ...spatial.rotations import as_vector3
from ..element import Element
from ..joints import unit_axis


class Constraint(Element):
    """A constraint kind, one module each (modeling/constraints/__init__.py lists them): the constraint checks
    its options (``_configure``) and adds its rows (``constraint_rows``) through the row builders of
    dynamics/closure.py ConstraintRows; its signal is its reaction (the multipliers of its rows)."""
    _noun, _section = "constraint", "constraints"
    _structural = ("joints", "body_a", "body_b")
    kind = None
    options = ()
    joints_used = ()            # joints whose coordinates it couples (they stay in the spanning tree)

    def _arguments(self):
        return ("kind", *self.options)

    def __init__(self, model, name, opts):
        self.name, self.what = name, f"constraint '{name}' ({self.kind})"
        unknown = set(opts) - set(self.options)
        if unknown:
            raise ModelError(f"{self.what}: unknown option(s) {sorted(unknown)}; it takes {list(self.options)}")
        self._configure(model, opts)

    def _configure(self, model, opts):
        """Check ``opts`` against ``model`` and set the constraint's parameters from them."""
        raise NotImplementedError

    def constraint_rows(self, rows):
        """Add its rows to ``rows`` (ConstraintRows), owned by ("constraint", name, label)."""
        raise NotImplementedError

    def owner(self, k):
        """The owner of its row k."""
        return ("constraint", self.name, f"{self.name}[{k}]")


class BetweenPoints(Constraint):
    """A constraint between a point of ``body_a`` and a point of ``body_b`` (body coordinates), and for some
    kinds a unit ``axis`` fixed in body_a: (its option's name, its default)."""
    options = ("body_a", "point_a", "body_b", "point_b")
    axis = None

    def __init_subclass__(cls):
        if cls.axis is not None:          # its axis option after point_a
            cls.options = ("body_a", "point_a", cls.axis[0], "body_b", "point_b")

    def _configure(self, model, opts):
        for key in ("body_a", "body_b"):
            if key not in opts:
                raise ModelError(f"{self.what}: missing {key}=")
        self.body_a = model.body(opts["body_a"], self.what).name
        self.body_b = model.body(opts["body_b"], self.what).name
        if self.body_a == self.body_b:
            raise ModelError(f"{self.what}: body_a and body_b are the same body '{self.body_a}'")
        self.point_a = as_vector3(opts.get("point_a", (0, 0, 0)), f"{self.what} point_a")
        self.point_b = as_vector3(opts.get("point_b", (0, 0, 0)), f"{self.what} point_b")
        if self.axis is not None:
            key, default = self.axis
            setattr(self, key, unit_axis(opts.get(key, default), f"{self.what} {key}"))

    def points_in_nodes(self, cm):
        """((node a, point a), (node b, point b)) in node coordinates."""
        return cm.body_point_in_node(self.body_a, self.point_a), cm.body_point_in_node(self.body_b, self.point_b)

    def directions(self):
        """The directions fixed in body_a along which point b keeps point a's coordinate: its axis."""
        return (getattr(self, self.axis[0]),)

    def constraint_rows(self, rows):
        (na, PA), (nb, PB) = self.points_in_nodes(rows.cm)
        for k, d in enumerate(self.directions()):
            rows.point_on_direction(na, nb, self.owner(k), PA, PB, rows.cm.body_direction_in_node(self.body_a, d))


def single_coordinate_joint(model, name, what):
    """The joint ``name``, which must have one coordinate (q and v)."""
    joint = model.joint(name, what)
    if joint.nv != 1 or joint.nq != 1:
        raise ModelError(f"{what}: joint '{joint.name}' ({joint.kind}) must have exactly one coordinate")
    return joint


def finite(value, what):
    """``value`` as a finite float; ModelError naming ``what`` otherwise."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"{what} must be a number, got {value!r}") from None
    if not np.isfinite(x):
        raise ModelError(f"{what} must be finite")
    return x
