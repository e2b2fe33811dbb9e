"""A weld: no motion (joint kind ``weld``), a node that carries its body rigidly."""
from .base import Primitive


class Weld(Primitive):
    letter = "W"
