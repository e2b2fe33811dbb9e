"""ms.Result: time series of every signal of a simulated model, computed lazily from (t, q, v)."""
from collections import namedtuple

import numpy as np

from ..dynamics.kernels import OK, trajectory
from ..errors import MechsimError
from ..spatial.rotations import matrix_to_quat

EventRecord = namedtuple("EventRecord", "time kind detail")


class Result:
    """Samples ``t`` (N,) with states ``q`` (N, nq), ``v`` (N, nv); ``res[name]`` for any name in
    ``m.signals()``; ``res.point(body, p)``; ``to_dataframe()``, ``save(path)``."""

    def __init__(self, compiled, t, q, v, u_force, tau=None, events=None, message="", success=True):
        self._cm = compiled
        self.model = compiled.model
        self.t = np.asarray(t, dtype=float)
        self.q = np.asarray(q, dtype=float).reshape(len(self.t), compiled.nq)
        self.v = np.asarray(v, dtype=float).reshape(len(self.t), compiled.nv)
        self.u_force = np.asarray(u_force, dtype=float).reshape(len(self.t), compiled.n_slots)
        self.tau = np.zeros_like(self.v) if tau is None else np.asarray(tau, dtype=float)
        self.events = list(events or [])
        self.message, self.success = message, success
        self.constraint_error = np.zeros(len(self.t))
        self._dynamics = None
        self._cache = {}

    def __len__(self):
        return len(self.t)

    @property
    def signals(self):
        return self._cm.signal_names()

    def _node_dynamics(self):
        """(qdd, node R, p, vel, acc) at every sample, by the compiled forward-dynamics pass."""
        if self._dynamics is None:
            cm, N, n = self._cm, len(self.t), self._cm.n_nodes
            out = (np.empty((N, cm.nv)), np.empty((N, n, 3, 3)), np.empty((N, n, 3)),
                   np.empty((N, n, 6)), np.empty((N, n, 6)))
            status = trajectory(cm.node_i, cm.node_f, cm.force_i, cm.force_f, cm.gravity, self.u_force,
                                self.tau, self.q, self.v, cm.workspace, *out)
            if status != OK:
                out[0][:] = np.nan
            self._dynamics = out
        return self._dynamics

    def _body_frame(self, body):
        """World rotation (N, 3, 3) and origin (N, 3) of a body's frame."""
        cm = self._cm
        node, R_nb, p_nb = cm._body_lookup[body]
        if node < 0:
            N = len(self.t)
            return np.broadcast_to(R_nb, (N, 3, 3)), np.broadcast_to(p_nb, (N, 3))
        _, R, p, _, _ = self._node_dynamics()
        return R[:, node] @ R_nb, p[:, node] + R[:, node] @ p_nb

    def _point_motion(self, body, x):
        """World velocity and classical acceleration of world points x (N, 3) fixed in a body."""
        node = self._cm._body_lookup[body][0]
        if node < 0:
            return np.zeros_like(x), np.zeros_like(x)
        _, _, _, vel, acc = self._node_dynamics()
        w, v0 = vel[:, node, :3], vel[:, node, 3:]
        wdot, a0 = acc[:, node, :3], acc[:, node, 3:] + self._cm.gravity   # the kernels' a_0 = -g
        xdot = v0 + np.cross(w, x)
        return xdot, a0 + np.cross(wdot, x) + np.cross(w, xdot)   # spatial -> classical acceleration

    def point(self, body, point):
        """(N, 3) world position of a point given in body coordinates."""
        if body not in self.model.bodies:
            raise MechsimError(f"unknown body {body!r}; bodies: {', '.join(self.model.bodies)}")
        R, p = self._body_frame(body)
        return p + R @ np.asarray(point, dtype=float)

    def __getitem__(self, name):
        if name not in self._cache:
            self._cache[name] = self._compute(name)
        return self._cache[name]

    def __contains__(self, name):
        return name in self.signals

    def _compute(self, name):
        owner, _, kind = name.rpartition(".")
        cm = self._cm
        squeeze = lambda a: a[:, 0] if a.shape[1] == 1 else a
        if owner in cm.joint_q and kind in ("q", "v", "a", "force") and cm.joint_v[owner].stop > cm.joint_v[owner].start:
            if kind == "q":
                return squeeze(self.q[:, cm.joint_q[owner]])
            if kind == "v":
                return squeeze(self.v[:, cm.joint_v[owner]])
            if kind == "a":
                return squeeze(self._node_dynamics()[0][:, cm.joint_v[owner]])
            force = self.tau[:, cm.joint_v[owner]].copy()
            for k, slot in cm.actuated.get(owner, []):
                force[:, k] += self.u_force[:, slot]
            return squeeze(force)
        if owner in cm.body_names:
            R, p = self._body_frame(owner)
            if kind == "position":
                return p
            if kind == "rotation":
                return R
            if kind == "quat":
                return matrix_to_quat(R).reshape(-1, 4)
            xdot, xddot = self._point_motion(owner, p)
            node = cm._body_lookup[owner][0]
            if kind == "velocity":
                return xdot
            if kind == "omega":
                return self._node_dynamics()[3][:, node, :3].copy()
            if kind == "acceleration":
                return np.hstack([self._node_dynamics()[4][:, node, :3], xddot])
        raise MechsimError(f"unknown signal {name!r}; m.signals() lists the available names")

    def to_dataframe(self, signals=None):
        """A pandas DataFrame indexed by t; vector signals flattened as name[i] (SPEC §2)."""
        import pandas as pd
        frame = pd.DataFrame(self.flat_columns(signals))
        return frame.set_index("t")

    def flat_columns(self, signals=None):
        """{column name: (N,) array}, first column t; vector signals flattened row-major as name[i]."""
        columns = {"t": self.t}
        for name in signals or self.signals:
            value = self[name]
            if value.ndim == 1:
                columns[name] = value
            else:
                flat = value.reshape(len(self.t), -1)
                for i in range(flat.shape[1]):
                    columns[f"{name}[{i}]"] = flat[:, i]
        return columns

    def save(self, path, signals=None):
        """Write the signals to .csv (first column t) or .npz."""
        path = str(path)
        columns = self.flat_columns(signals)
        if path.endswith(".npz"):
            np.savez_compressed(path, **columns)
        elif path.endswith(".csv"):
            names = list(columns)
            np.savetxt(path, np.column_stack([columns[n] for n in names]), delimiter=",",
                       header=",".join(names), comments="", fmt="%.12g")
        else:
            raise MechsimError(f"cannot save to {path!r}: use a .csv or .npz file name")

    def __repr__(self):
        span = f"t = {self.t[0]:g} … {self.t[-1]:g}" if len(self.t) else "empty"
        return f"Result({self.model.name!r}, {len(self.t)} samples, {span}{'' if self.success else ', FAILED'})"
