"""Contact shapes, one module per kind (base.py: the contract). SHAPE_KINDS is the registry: Contact checks and
takes a shape's options through it; a new shape is a module and a line here."""
from .base import Shape
from .box import Box
from .disk import Disk
from .point import Point
from .sphere import Sphere

SHAPE_KINDS = (Point, Sphere, Disk, Box)
SHAPE_CLASSES = {cls.kind: cls for cls in SHAPE_KINDS}
SHAPE_OPTIONS = tuple(dict.fromkeys(option for cls in SHAPE_KINDS for option in cls.options))

__all__ = ["SHAPE_KINDS", "SHAPE_CLASSES", "SHAPE_OPTIONS", "Shape"]
