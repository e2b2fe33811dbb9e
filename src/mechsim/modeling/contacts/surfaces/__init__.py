"""Contact surfaces, one module per kind (base.py: the contract). SURFACE_KINDS is the registry: Contact checks
and takes a surface's options through it, a kind's code in the compiled rows is its index here, and
dynamics/motion.py dispatches the kernels' contact geometry over it; a new surface is a module and a line here."""
from .base import RoundSurface, Surface
from .cylinder import Cylinder
from .plane import Plane
from .sphere import Sphere

SURFACE_KINDS = (Plane, Sphere, Cylinder)
SURFACE_CLASSES = {cls.kind: cls for cls in SURFACE_KINDS}
SURFACE_CODE = {cls.kind: code for code, cls in enumerate(SURFACE_KINDS)}
SURFACE_OPTIONS = tuple(dict.fromkeys(option for cls in SURFACE_KINDS for option in cls.options))

__all__ = ["SURFACE_KINDS", "SURFACE_CLASSES", "SURFACE_CODE", "SURFACE_OPTIONS", "RoundSurface", "Surface"]
