"""A weld: no motion (joint kind ``weld``), a node that carries its body rigidly."""
from .base import Case, Primitive, fixed_kernels


class Weld(Primitive):
    letter = "W"

    @staticmethod
    def kernel(inline):
        return Case(*fixed_kernels(inline))
