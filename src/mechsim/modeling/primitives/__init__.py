"""Joint primitives, one module per kind (base.py: the contract). PRIMITIVES is the registry: a kind's code in
the compiled nodes is its index here (Revolute.code; the kernels read the codes as the PRIM_ constants), and
Joint, the compile step, cut joints, frictions, linearization, events and plots read its coordinates through
it."""
from .base import Primitive
from .helical import Helical
from .prismatic import Prismatic
from .revolute import Revolute
from .spherical import Spherical
from .translation import Translation
from .weld import Weld

PRIMITIVES = (Revolute, Prismatic, Helical, Spherical, Weld, Translation)   # R, P, H before S: kernels.py dof
for _code, _kind in enumerate(PRIMITIVES):
    _kind.code = _code
PRIM_R, PRIM_P, PRIM_H, PRIM_S, PRIM_WELD, PRIM_T = (kind.code for kind in PRIMITIVES)
CUSTOM_PRIMITIVES = {kind.letter: kind for kind in PRIMITIVES if kind.custom}

__all__ = ["PRIMITIVES", "CUSTOM_PRIMITIVES", "Primitive", "Revolute", "Prismatic", "Helical", "Spherical", "Weld",
           "Translation", "PRIM_R", "PRIM_P", "PRIM_H", "PRIM_S", "PRIM_WELD", "PRIM_T"]
