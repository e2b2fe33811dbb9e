"""R: a turn by q about the axis through F's origin."""
from .base import ANGULAR, Primitive


class Revolute(Primitive):
    letter, custom, nq, nv, units = "R", True, 1, 1, ANGULAR
    axial = turns = True
    load_friction = "pin"
