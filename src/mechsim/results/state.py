"""ms.State: a configuration q and velocity v of a model, addressable by coordinate name."""
import numpy as np

from ..errors import MechsimError


class State:
    """Positions ``q`` and velocities ``v`` in ``m.coordinates()`` order; ``state["j1.q"]`` by name
    (a joint's whole coordinate block for "j.q"/"j.v", one entry for "j.q[i]"); ``state[i]`` is entry
    i of [q; v] (solve_ivp's y)."""

    def __init__(self, compiled, q, v, t=0.0, inputs=None, residual=None):
        self._cm = compiled
        self.q = np.array(q, dtype=float)
        self.v = np.array(v, dtype=float)
        self.t = float(t)
        self.inputs = inputs          # {input: value} at an operating point (m.trim), else None
        self.residual = residual      # m.trim: the largest |acceleration| or |g| left
        self.analysis = None          # m.assemble: the redundancy analysis at this configuration

    def _locate(self, name):
        cm = self._cm
        if name in cm.q_names:
            return self.q, cm.q_names.index(name)
        if name in cm.v_names:
            return self.v, cm.v_names.index(name)
        joint, _, kind = name.rpartition(".")
        if joint in cm.joint_q and kind in ("q", "v"):
            return (self.q, cm.joint_q[joint]) if kind == "q" else (self.v, cm.joint_v[joint])
        raise MechsimError(f"unknown coordinate {name!r}; coordinates are {', '.join(cm.q_names + cm.v_names)}")

    def __getitem__(self, name):
        if isinstance(name, (int, np.integer, slice)):           # entry i of [q; v], as solve_ivp's y
            return np.concatenate([self.q, self.v])[name]
        array, index = self._locate(name)
        value = array[index]
        return value.copy() if isinstance(value, np.ndarray) else float(value)

    def __setitem__(self, name, value):
        array, index = self._locate(name)
        array[index] = value

    def to_dict(self):
        """{coordinate name: value} for q and v."""
        return {**dict(zip(self._cm.q_names, self.q.tolist())), **dict(zip(self._cm.v_names, self.v.tolist()))}

    def operating_point(self):
        """{"model", "t", "coordinates": {name: value}, "inputs": {name: value}[, "residual"]}: the state as
        ``mechsim trim -o`` writes it and ``load_state`` reads it back."""
        point = {"model": self._cm.model.name, "t": self.t, "coordinates": self.to_dict(),
                 "inputs": {name: float(value) for name, value in (self.inputs or {}).items()}}
        if self.residual is not None:
            point["residual"] = float(self.residual)
        return point

    def __repr__(self):
        inputs = "".join(f", {k}={v:.6g}" for k, v in (self.inputs or {}).items())
        return "State(" + ", ".join(f"{k}={v:.6g}" for k, v in self.to_dict().items()) + inputs + ")"
