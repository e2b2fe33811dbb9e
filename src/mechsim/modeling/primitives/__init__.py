"""Joint primitives, one module per kind (base.py: the contract). PRIMITIVES is the registry: a kind's code in
the compiled nodes is its index here (Revolute.code), Joint reads its coordinates and q0 through it, and
dynamics/kernels.py dispatches the kinematics over its kernel cases; a new primitive is a module and a line
here."""
from .base import Case, Primitive
from .helical import Helical
from .prismatic import Prismatic
from .revolute import Revolute
from .spherical import Spherical
from .translation import Translation
from .weld import Weld

PRIMITIVES = (Revolute, Prismatic, Helical, Spherical, Weld, Translation)
for _code, _kind in enumerate(PRIMITIVES):
    _kind.code = _code
CUSTOM_PRIMITIVES = {kind.letter: kind for kind in PRIMITIVES if kind.custom}

__all__ = ["PRIMITIVES", "CUSTOM_PRIMITIVES", "Case", "Primitive", "Revolute", "Prismatic", "Helical", "Spherical",
           "Weld", "Translation"]
