"""H: a screw, a turn by q about the axis with a slide of pitch q along it (joint kind ``screw``: pitch =
lead / 2 pi); its kernel cases are the revolute's, whose pitch is 0."""
from .revolute import Revolute


class Helical(Revolute):
    letter, custom = "H", False
    load_friction = None
