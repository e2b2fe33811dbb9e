"""Motion driver (SPEC §3): one joint coordinate follows a prescribed motion of time, a constraint row."""
import numpy as np

from ...errors import ModelError
from ..element import Element
from ..forces.base import Source
from ..joints import primitive_of_coordinate
from ..primitives import PRIMITIVES
from .motion import Motion


class Driver(Element):
    """Joint coordinate ``coordinate`` of ``joint`` follows a prescribed motion of t."""
    _noun, _section = "driver", "drivers"
    _structural = ("joint", "coordinate")

    def _arguments(self):
        return ("joint", "position", "velocity", "acceleration", "coordinate")

    def __init__(self, model, joint, position=None, velocity=None, acceleration=None, coordinate=0, name=None):
        j = model.joint(joint, "driver")
        self.joint = j.name
        self.name = name or j.name
        what = f"driver '{self.name}'"
        if not isinstance(coordinate, (int, np.integer)) or not 0 <= coordinate < j.nv:
            raise ModelError(f"{what}: coordinate must be an integer in 0..{j.nv - 1} for joint '{j.name}' ({j.kind})")
        self.coordinate = int(coordinate)
        self.primitive = primitive_of_coordinate(j, self.coordinate, what)
        if position is None and velocity is None and acceleration is None:
            raise ModelError(f"{what}: give position=, velocity= or acceleration= (a number, function of t or expression)")
        sources = [None if x is None else Source(x, f"{what} {key}")
                   for x, key in ((position, "position"), (velocity, "velocity"), (acceleration, "acceleration"))]
        self.q0 = float(j.q0[self.q_offset(j)])
        self.v0 = float(j.v0[self.coordinate])
        self.motion = Motion(*sources, what, self.q0, self.v0)

    def q_offset(self, joint):
        """Index in the joint's q block of the driven coordinate (a quaternion before it takes 4)."""
        i = k = 0
        for ptype, _, _ in joint.primitives:
            kind = PRIMITIVES[ptype]
            if k <= self.coordinate < k + kind.nv:
                return i + self.coordinate - k
            i, k = i + kind.nq, k + kind.nv
        raise AssertionError
