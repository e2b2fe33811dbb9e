"""S: a free turn, its q the unit quaternion (scalar first) of M's rotation in F, its v M's angular velocity
in its own axes (SPEC §2)."""
import numpy as np

from ...spatial.rotations import as_rotation, matrix_to_quat
from .base import Primitive


class Spherical(Primitive):
    letter, custom, nq, nv = "S", True, 4, 3
    units = {"q": [""] * 4, "v": ["rad/s"] * 3, "a": ["rad/s²"] * 3, "force": ["N·m"] * 3}
    turns = quaternion = True

    @classmethod
    def initial(cls, item, what):
        """Any rotation (SPEC §2: a quaternion, matrix, euler dict...), as a unit quaternion."""
        return np.array([1.0, 0, 0, 0]) if item is None else matrix_to_quat(as_rotation(item, what))
