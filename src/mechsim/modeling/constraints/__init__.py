"""Constraints (SPEC §1 C1, §3), one module per kind (base.py: the contract), and motion drivers.
CONSTRAINT_KINDS is the registry: Model.add_constraint, the model file and the compile step loop over it; a
new kind is a module and a line here (and, for an equation the kernels lack, a row type in dynamics/)."""
from ...errors import ModelError
from ..joints import primitive_of_coordinate
from .base import Constraint, single_coordinate_joint
from .distance import Distance
from .driver import Driver
from .gear import Gear
from .motion import Motion
from .point_coincident import PointCoincident
from .point_on_line import PointOnLine
from .point_on_plane import PointOnPlane
from .polynomial_coupling import PolynomialCoupling

CONSTRAINT_KINDS = (Gear, Distance, PointCoincident, PointOnLine, PointOnPlane, PolynomialCoupling)
CONSTRAINT_CLASSES = {cls.kind: cls for cls in CONSTRAINT_KINDS}
CONSTRAINT_OPTIONS = {cls.kind: cls.options for cls in CONSTRAINT_KINDS}


def make_constraint(model, name, kind, opts):
    """Validate a constraint against the model and return it with parsed parameters."""
    if kind not in CONSTRAINT_CLASSES:
        raise ModelError(f"constraint '{name}': unknown kind {kind!r}; use one of {', '.join(CONSTRAINT_CLASSES)}")
    return CONSTRAINT_CLASSES[kind](model, name, opts)


__all__ = ["CONSTRAINT_KINDS", "CONSTRAINT_CLASSES", "CONSTRAINT_OPTIONS", "Constraint", "Driver", "Motion",
           "make_constraint", "primitive_of_coordinate", "single_coordinate_joint"]
