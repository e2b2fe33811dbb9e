"""Force elements (SPEC §2, §3), one module per kind (base.py: the contract). FORCE_KINDS is the registry:
Model.add_force, the model file, the compile step, the kernels' dispatch and the Result's signals loop over
it; a new kind is a module and a line here."""
from ...errors import ModelError
from .base import MIN_BOUNCE_SPEED, ForceElement, ForceRow, Source, finite_number, number_returned, vector_sources
from .body_force import BodyForce
from .bushing import Bushing
from .fixed_tendon import FixedTendon
from .fluid_drag import FluidDrag
from .joint_force import JointForce
from .joint_friction import JointFriction
from .joint_limit import JointLimit
from .joint_spring_damper import JointSpringDamper
from .spring_damper import SpringDamper

FORCE_KINDS = (JointSpringDamper, SpringDamper, JointForce, BodyForce, JointLimit, JointFriction, Bushing, FluidDrag,
               FixedTendon)
FORCE_CLASSES = {cls.kind: cls for cls in FORCE_KINDS}


def make_force(model, name, kind, opts):
    """Validate a force element against the model and return it with parsed parameters."""
    if kind not in FORCE_CLASSES:
        raise ModelError(f"force '{name}': unknown kind {kind!r}; use one of {', '.join(FORCE_CLASSES)}")
    force = FORCE_CLASSES[kind](name, **opts)
    force._configure(model, opts)
    return force


__all__ = ["FORCE_KINDS", "FORCE_CLASSES", "MIN_BOUNCE_SPEED", "ForceElement", "ForceRow", "Source", "finite_number",
           "make_force", "number_returned", "vector_sources"]
