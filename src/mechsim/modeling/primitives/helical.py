"""H: a screw, a turn by q about the axis with a slide of pitch q along it (joint kind ``screw``: pitch =
lead / 2 pi)."""
from .revolute import Revolute


class Helical(Revolute):
    letter, custom, screw = "H", False, True
    load_friction = None
