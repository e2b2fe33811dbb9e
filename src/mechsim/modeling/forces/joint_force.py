"""Joint force actuator (SPEC §2): a generalized force on every coordinate of a joint, each a number,
a function or expression of t, or a model input."""
import numpy as np

from ...errors import ModelError
from .base import ForceElement, ForceRow, Source


class JointForce(ForceElement):
    """Generalized actuator force on every coordinate of a joint (value per coordinate); one row per
    coordinate, a = its v index, its value in one slot of u."""
    kind = "joint_force"
    options = ("joint", "value")

    def _configure(self, model, opts):
        joint, what = self._joint_with_dof(model, opts), self._what
        value = self._need(opts, "value")
        values = value if (isinstance(value, (list, tuple, np.ndarray)) and joint.nv > 1) else [value] * joint.nv
        if len(values) != joint.nv:
            raise ModelError(f"{what}: value needs {joint.nv} entries for joint '{joint.name}'")
        self.values = [Source(v, f"{what} value", model.inputs) for v in values]

    def force_rows(self, cm):
        vs = cm.joint_v[self.joint]
        for k, source in enumerate(self.values):
            yield ForceRow(vs.start + k, -1, (), (source,))

    @staticmethod
    def kernel(inline, **tools):
        @inline
        def joint_force(index, prm, u, q, v, R, p, vel, pA, tau):
            tau[index[1]] += u[index[3]]
        return joint_force
