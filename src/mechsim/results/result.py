"""ms.Result: time series of every signal of a simulated model, computed lazily from (t, q, v); the records
of its events."""
import csv
import io
from collections import namedtuple

import numpy as np

from .._jit_cache import Aside, compile_aside
from ..dynamics.constraints import contact_samples
from ..dynamics.cut_joints import cut_joint_motion
from ..dynamics.forces import compliant_contact, row_effects
from ..dynamics.multipliers import Samples, Trajectory, constrained_trajectory
from ..errors import MechsimError
from ..spatial.rotations import matrix_to_quat
from ..status import OK


def save_columns(path, columns):
    """Write {name: (N,) array} to .csv (a header row of names) or .npz."""
    path = str(path)
    if path.endswith(".npz"):
        np.savez_compressed(path, **columns)
    elif path.endswith(".csv"):
        names, header = list(columns), io.StringIO()
        csv.writer(header, lineterminator="").writerow(names)       # a name with a comma is quoted
        np.savetxt(path, np.column_stack([columns[n] for n in names]), delimiter=",",
                   header=header.getvalue(), comments="", fmt="%.12g")
    else:
        raise MechsimError(f"cannot save to {path!r}: use a .csv or .npz file name")


EventRecord = namedtuple("EventRecord", "time kind name detail")
EventRecord.__doc__ = """One event of a run: time, kind ("user", "lock", "unlock", "impact", "contact",
"separate", "slide", "stick", "limit", "repartition"), the name of the event or element, and a detail."""

Mode = namedtuple("Mode", "active targets slide friction penalty", defaults=(None,) * 5)
Mode.__doc__ = """The mode of the run its samples' signals are computed in: the constraint rows it kept (None: the
model's latest analysis), the targets it set {row: (f, f', f'')} (a stuck joint's position), its sliding contacts and
slipping load frictions (dynamics/multipliers.py: ConstraintWorkspace.slide, .friction) and the penalty formulation's
Penalty (simulation/formulations.py) or None."""

Outcome = namedtuple("Outcome", "success message events stats", defaults=(True, "", (), None))
Outcome.__doc__ = """How a run ended: whether it did all it was asked, the message saying so, its EventRecords and its
statistics (res.stats)."""


class Result:
    """Samples ``t`` (N,) with states ``q`` (N, nq), ``v`` (N, nv); ``res[name]`` for any name in
    ``m.signals()``; ``res.point(body, p)``; ``to_dataframe()``, ``save(path)``."""

    def __init__(self, compiled, t, q, v, u_force, tau=None, mode=Mode(), outcome=Outcome()):
        self._cm = compiled
        self.active, targets, self._slide, self._load_friction, self._penalty = mode
        self._targets = dict(targets or {})
        self.stats = dict(outcome.stats or {})
        self.model = compiled.model
        self.t = np.asarray(t, dtype=float)
        self.q = np.asarray(q, dtype=float).reshape(len(self.t), compiled.nq)
        self.v = np.asarray(v, dtype=float).reshape(len(self.t), compiled.nv)
        self.u_force = np.asarray(u_force, dtype=float).reshape(len(self.t), compiled.n_slots)
        self.tau = np.zeros_like(self.v) if tau is None else np.asarray(tau, dtype=float)
        self.events = list(outcome.events)          # ms.EventRecord(time, kind, name, detail)
        self.t_events, self.y_events = [], []      # per event, as solve_ivp
        self.message, self.success = outcome.message, outcome.success
        self._dynamics = None
        self._cut_motion = None       # the cut joints' (Q, V, A) (dynamics/cut_joints.py)
        self._cache = {}
        self._compiling = Aside()       # the kernel of _node_dynamics compiling aside (_compile_aside)

    @classmethod
    def at(cls, compiled, t, y, u_force, active=None):
        """A one-sample Result of the state y = [q; v] at t with force values u_force: the signals
        at an instant (controller outputs, event conditions)."""
        nq = compiled.nq
        return cls(compiled, [t], y[None, :nq], y[None, nq:], np.array(u_force, dtype=float)[None], mode=Mode(active))

    @property
    def mode(self):
        """The Mode of the run its signals are computed in."""
        return Mode(self.active, self._targets, self._slide, self._load_friction, self._penalty)

    def __len__(self):
        return len(self.t)

    @property
    def signals(self):
        return self._cm.signal_names()

    def _node_dynamics(self):
        """(qdd, node R, p, vel, acc, multipliers, unit wrenches, residuals, joint wrenches) at every
        sample, by one compiled pass of the constrained forward dynamics. The spatial quantities are
        the kernels': referred to their reference point, which varies with the sample; the last row of
        p, the ground's, is the world origin relative to it (dynamics/kernels.py reference_point)."""
        if self._dynamics is None:
            self._compiling.wait()
            args = self._trajectory_arguments()
            out, nc = args[-1], self._cm.n_rows
            status = constrained_trajectory(*args)
            if status != OK:             # the accelerations of the failing sample are partly written
                out[0][np.isnan(out[7]).any(axis=1) if nc else np.isnan(out[2]).any(axis=(1, 2))] = np.nan
            self._dynamics = out
        return self._dynamics

    def _compile_aside(self):
        """Start compiling the kernels of _node_dynamics and _cut_joints for this kind of result in another process
        (_jit_cache.compile_aside), for a run to do while it compiles its integrator; this result's
        signals wait for it. Returns the Aside."""
        trajectory = self._trajectory_arguments()
        kernels = [(constrained_trajectory, trajectory)]
        cut, out = self._cm.cut_coordinates, trajectory[-1]
        if cut.cut_i.shape[0]:                      # the cut joints' coordinates, measured from its nodes
            kernels.append((cut_joint_motion, cut.arguments(self.t, out.R, out.p, out.vel, out.acc)))
        self._compiling = compile_aside(kernels)
        return self._compiling

    def _trajectory_arguments(self):
        """The arguments of constrained_trajectory (dynamics/multipliers.py) for the samples, with its
        Trajectory last: NaN where the pass stops (a state the dynamics cannot take, the end of a failed run)."""
        cm, N, n, nc = self._cm, len(self.t), self._cm.n_nodes + 1, self._cm.n_rows
        if cm.rows.timed or (cm.arrays.row_span[:, 0] >= 0).any():
            targets = np.array([cm.targets(t) for t in self.t]).reshape(N, nc, 3)
        else:                                       # no row moves with time
            targets = np.repeat(cm.targets(0.0)[None], N, axis=0)
        for row, target in self._targets.items():
            targets[:, row] = target
        out = Trajectory(*(np.full(shape, np.nan) for shape in ((N, cm.nv), (N, n, 3, 3), (N, n, 3), (N, n, 6),
                                                              (N, n, 6), (N, nc), (N, nc, 6), (N, nc), (N, n, 6))))
        data = cm.new_data(active=self.active, formulation="lagrange" if self._penalty is None else "penalty",
                           penalty=self._penalty)
        if self._slide is not None:
            data.cw.slide[:] = self._slide
        if self._load_friction is not None:
            data.cw.friction[:] = self._load_friction
        # C-contiguous, as the integrators' states: another layout would compile the kernels again for it
        samples = Samples(*(np.ascontiguousarray(x) for x in (self.u_force, self.tau, self.q, self.v)), targets)
        return (cm.arrays, data.arrays, None if cm.is_tree else data.cw, *data.optional_tables(cm.arrays, cm.is_tree),
                samples, out)

    def relative(self, x):
        """World points x (N, 3) relative to the kernels' reference point of each sample."""
        return x + self._node_dynamics()[2][:, -1]

    @property
    def constraint_error(self):
        """(N,) max ``|g(q, t)|`` over the loop, constraint and driver equations at every sample."""
        H = self._node_dynamics()[7]
        return np.max(np.abs(H), axis=1) if H.shape[1] else np.zeros(len(self.t))

    def _body_frame(self, body):
        """World rotation (N, 3, 3) and origin (N, 3) of a body's frame."""
        cm = self._cm
        node, R_nb, p_nb = cm._body_lookup[body]
        if node < 0:
            N = len(self.t)
            return np.broadcast_to(R_nb, (N, 3, 3)), np.broadcast_to(p_nb, (N, 3))
        R, p = self._node_dynamics()[1:3]
        return R[:, node] @ R_nb, p[:, node] - p[:, -1] + R[:, node] @ p_nb

    def _point_motion(self, body, x):
        """World velocity and classical acceleration of world points x (N, 3) fixed in a body."""
        node = self._cm._body_lookup[body][0]
        if node < 0:
            return np.zeros_like(x), np.zeros_like(x)
        vel, acc = self._node_dynamics()[3:5]
        w, v0 = vel[:, node, :3], vel[:, node, 3:]
        wdot, a0 = acc[:, node, :3], acc[:, node, 3:] + self._cm.gravity   # the kernels' a_0 = -g
        x = self.relative(x)
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
        section, owner, kind = self._cm.signals[name]
        return getattr(self, f"_{section}_signal")(owner, kind)

    def _joints_signal(self, joint, kind):
        cm = self._cm
        squeeze = lambda a: a[:, 0] if a.shape[1] == 1 else a
        if kind == "reaction":
            return self._reaction("joints", joint)
        cut = cm.cut_coordinates
        if joint in cut.q:
            Q, V, A = self._cut_joints()
            return squeeze({"q": Q[:, cut.q[joint]], "v": V[:, cut.v[joint]], "a": A[:, cut.v[joint]]}[kind])
        if kind == "q":
            return squeeze(self.q[:, cm.joint_q[joint]])
        if kind == "v":
            return squeeze(self.v[:, cm.joint_v[joint]])
        if kind == "a":
            return squeeze(self._node_dynamics()[0][:, cm.joint_v[joint]])
        force = self.tau[:, cm.joint_v[joint]].copy()
        for k, slot in cm.actuated.get(joint, []):
            force[:, k] += self.u_force[:, slot]
        for row, (what, name, driven) in enumerate(cm.rows.owner):      # what the drivers apply
            if what == "driver" and driven == joint:
                force[:, self.model.drivers[name].coordinate] += self._node_dynamics()[5][:, row]
        return squeeze(force)

    def _constraints_signal(self, constraint, kind):
        return self._reaction("constraints", constraint)

    def _forces_signal(self, force, kind):
        return self.model.forces[force].signal(self, kind)

    def _contacts_signal(self, contact, kind):
        return self._contact(self.model.contacts[contact], kind)

    def _bodies_signal(self, body, kind):
        R, p = self._body_frame(body)
        if kind == "position":
            return p
        if kind == "rotation":
            return R
        if kind == "quat":
            return matrix_to_quat(R).reshape(-1, 4)
        node = self._cm._body_lookup[body][0]
        if kind == "omega":
            return self._node_dynamics()[3][:, node, :3].copy()
        xdot, xddot = self._point_motion(body, p)
        if kind == "velocity":
            return xdot
        return np.hstack([self._node_dynamics()[4][:, node, :3], xddot])      # acceleration

    def _cut_joints(self):
        """(Q, V, A) of the cut joints at every sample, measured from their frames' relative motion by one compiled
        pass (dynamics/cut_joints.py)."""
        if self._cut_motion is None:
            _, R, p, vel, acc = self._node_dynamics()[:5]
            self._cut_motion = self._cm.cut_coordinates.motion(self.t, R, p, vel, acc, self._cm.gravity)
        return self._cut_motion

    # ---------------------------------------------------------------- for the elements' signals
    @property
    def compiled(self):
        """The CompiledModel the samples belong to."""
        return self._cm

    def multipliers(self, owner):
        """(N, k) multipliers of the k constraint rows whose owner starts with ``owner`` (e.g. ("limit", name))."""
        rows = [k for k, o in enumerate(self._cm.rows.owner) if o[:len(owner)] == owner]
        return self._node_dynamics()[5][:, rows]

    def holds(self, owner):
        """Whether the constraint row of ``owner`` (name, kind, label) took part in the run's last mode."""
        return self.active is not None and self._cm.rows.owner.index(owner) in self.active

    def element_forces(self, element):
        """(pA (N, n + 1, 6), tau (N, nv)): the wrenches a force element's rows take off the nodes' bias forces
        and the generalized forces they add, at every sample, by their kernel cases (dynamics/forces.py)."""
        cm, N = self._cm, len(self.t)
        _, R, p, vel = self._node_dynamics()[:4]
        pA, tau = np.zeros((N, cm.n_nodes + 1, 6)), np.zeros((N, cm.nv))
        for e in cm.force_rows_of.get(element.name, ()):
            row_effects(cm.force_i[e], cm.force_f[e], self.u_force, self.q, self.v, R, p, vel, pA, tau)
        return pA, tau

    def frame(self, body, pose):
        """World rotation (N, 3, 3) and origin (N, 3) of a frame (position, rotation) fixed in a body."""
        R, p = self._body_frame(body)
        position, rotation = pose
        return R @ rotation, p + R @ position

    def _contact(self, contact, kind):
        """A contact's signals (SPEC §3), summed over its points (a box's corners): normal force (N,) >= 0
        pressing, friction force (N, 3) on the body, world axes; at the point nearest the surface, the gap
        (N,) and the slip velocity (N, 3) relative to the surface material; mode (N,) 0 open / 1 sliding /
        2 sticking or rolling."""
        cm = self._cm
        if contact.model == "compliant":
            return self._compliant_contact(contact, kind)
        rows = [cm.rows.owner.index(("contact", contact.name, labels[0])) for labels in contact.labels()]
        lam = self._node_dynamics()[5]
        if kind == "normal_force":
            return lam[:, rows].sum(axis=1)
        if kind == "mode":
            active = cm.every_row if self.active is None else self.active
            sliding = self._slide is not None and (self._slide[rows, 0] >= 0).any()
            sticking = np.isin(np.add.outer(rows, [1, 2]), active).any()
            return np.full(len(self.t), 2 if sticking else 1 if sliding else 0)
        if kind == "friction_force":
            return sum(self._contact_row(row + k)[2] * lam[:, row + k, None] for row in rows for k in (1, 2))
        gaps, points, normals = (np.array(x) for x in zip(*(self._contact_row(row) for row in rows)))
        if kind == "gap":
            return gaps.min(axis=0)
        nearest, samples = gaps.argmin(axis=0), np.arange(len(self.t))
        c, n = points[nearest, samples], normals[nearest, samples]
        slip = self._point_motion(contact.body, c)[0] - self._point_motion(contact.surface, c)[0] \
            - self._body_frame(contact.surface)[0] @ contact.surface_velocity
        return slip - np.einsum("ni,ni->n", slip, n)[:, None] * n

    def _contact_row(self, row):
        """(h (N,), c (N, 3), d (N, 3)) of a contact row at every sample: its gap (0 for a slip), contact
        point (world) and direction (normal or tangent), from the kernels' geometry (dynamics/constraints.py)."""
        rows, N = self._cm.rows, len(self.t)
        R, p, vel = self._node_dynamics()[1:4]
        h, c, d = np.empty(N), np.empty((N, 3)), np.empty((N, 3))
        contact_samples(rows.con_i[row, 0], rows.con_f[row], rows.con_i[row, 1], rows.con_i[row, 2], R, p, vel, h, c, d)
        return h, c - p[:, -1], d

    def _compliant_contact(self, contact, kind):
        """A compliant contact's signals from its force law at every sample (dynamics/forces.py
        compliant_contact): normal and friction force summed over its points; gap, slip at the point
        nearest the surface; mode 1 while it presses, else 0."""
        cm = self._cm
        _, R, p, vel = self._node_dynamics()[:4]
        rows = cm.force_rows_of[contact.name]
        values = [[compliant_contact(cm.force_f[e], cm.force_i[e, 1], cm.force_i[e, 2], R[k], p[k], vel[k])
                   for e in rows] for k in range(len(self.t))]
        force = np.array([[v[0] for v in sample] for sample in values])               # (N, points, 3)
        gap = np.array([[v[2] for v in sample] for sample in values])
        normal = np.array([[v[4] for v in sample] for sample in values])              # (N, points, 3)
        pressing = np.einsum("nki,nki->nk", force, normal)
        if kind == "normal_force":
            return pressing.sum(axis=1)
        if kind == "friction_force":
            return (force - pressing[:, :, None] * normal).sum(axis=1)
        if kind == "mode":
            return (pressing.sum(axis=1) > 0).astype(int)
        if kind == "gap":
            return gap.min(axis=1)
        return np.array([sample[np.argmin(g)][3] for sample, g in zip(values, gap)])

    def _reaction(self, section, owner):
        """(N, 6) wrench [torque; force] in world axes that a joint's parent exerts on its child at M's
        origin (a tree joint: all it transmits; a cut joint: its constraint rows), or a constraint exerts
        on body_b at point_b; (N,) generalized force on a gear's first joint (a polynomial coupling's: on y per unit
        coefficient). ``section``: "joints" or "constraints", the name space of ``owner``."""
        cm, model = self._cm, self.model
        lam, unit, joint_f = (self._node_dynamics()[k] for k in (5, 6, 8))
        if section == "joints" and owner in cm.joint_nodes:
            wrench = joint_f[:, cm.joint_nodes[owner][-1]]                # at the reference point
        else:
            what = section[:-1]                                            # the rows' owner: ("joint", name, label)
            rows = [k for k, o in enumerate(cm.rows.owner) if o[:2] == (what, owner)]
            if section == "constraints" and model.constraints[owner].kind in ("gear", "polynomial_coupling"):
                return lam[:, rows[0]].copy()
            wrench = np.einsum("nk,nkj->nj", lam[:, rows], unit[:, rows])
        if section == "joints":
            joint = model.joints[owner]
            x = self.point(joint.child, joint.child_pose[0])
        else:
            x = self.point(model.constraints[owner].body_b, model.constraints[owner].point_b)
        return np.hstack([wrench[:, :3] - np.cross(self.relative(x), wrench[:, 3:]), wrench[:, 3:]])

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
        save_columns(path, self.flat_columns(signals))

    def plot(self, signals=None, path=None, max_panels=None):
        """Plot signals (default: every joint's .q) against time, one unit per axis and named in its
        label, ``max_panels`` axes at most (default 8; the rest drawn together; viz/plot.py); written
        to ``path`` when given; returns the matplotlib Figure."""
        from ..viz.plot import plot
        return plot(self, signals, path, max_panels)

    def __repr__(self):
        span = f"t = {self.t[0]:g} … {self.t[-1]:g}" if len(self.t) else "empty"
        return f"Result({self.model.name!r}, {len(self.t)} samples, {span}{'' if self.success else ', FAILED'})"

    def _repr_html_(self):
        """What a notebook shows: a summary and a quick plot of the coordinates (viz/notebook.py)."""
        from ..viz.notebook import result_html
        return result_html(self)


class JoinedResult(Result):
    """A run whose model changed at events (an action added or removed a constraint or a driver, or
    set a parameter): the Results of its stretches, one model each, joined in time. A signal a
    stretch's model does not have (the reaction of a constraint added later) is NaN there."""

    def __init__(self, parts, outcome=Outcome()):
        last = parts[-1]
        super().__init__(last._cm, np.concatenate([p.t for p in parts]), np.concatenate([p.q for p in parts]),
                         np.concatenate([p.v for p in parts]), np.concatenate([p.u_force for p in parts]),
                         mode=Mode(last.active), outcome=outcome)
        self.parts = parts

    @property
    def signals(self):
        return list(dict.fromkeys(name for p in self.parts for name in p.signals))

    def _joined(self, values):
        """Concatenate per-stretch arrays; None (a stretch without the signal) becomes NaN."""
        like = next(v for v in values if v is not None)
        return np.concatenate([np.full((len(p.t),) + like.shape[1:], np.nan) if v is None else v
                               for p, v in zip(self.parts, values)])

    def _compute(self, name):
        if name not in self.signals:
            raise MechsimError(f"unknown signal {name!r}; m.signals() lists the available names")
        return self._joined([p[name] if name in p.signals else None for p in self.parts])

    def point(self, body, point):
        return self._joined([p.point(body, point) for p in self.parts])

    @property
    def constraint_error(self):
        return self._joined([p.constraint_error for p in self.parts])

    def _node_dynamics(self):
        raise MechsimError("this result joins stretches of different models (an event action changed the "
                           "model): take the quantities from its parts (res.parts)")


class CoupledResult(Result):
    """Subsystems run side by side and coupled (ms.cosimulate): their Results in ``parts`` ({name:
    Result}, sampled at the same times), their signals as "<subsystem>/<signal>", and the couplings'
    signals ("<coupling>.violation", "<coupling>.force": ``coupling`` maps each name to its values or to a
    function that computes them when first asked for). Events are named "<subsystem>/<name>"."""

    def __init__(self, parts, t, coupling, message="", success=True):
        self.parts, self._coupling = dict(parts), dict(coupling)
        self.t = np.asarray(t, dtype=float)
        self.model = None
        self.events = sorted((record._replace(name=f"{s}/{record.name}") for s, part in self.parts.items()
                              for record in part.events), key=lambda record: record.time)
        self.t_events, self.y_events = [], []
        self.message, self.success = message, success
        self.stats = {s: part.stats for s, part in self.parts.items()}
        self._cache = {}

    @property
    def signals(self):
        return [f"{s}/{name}" for s, part in self.parts.items() for name in part.signals] + list(self._coupling)

    def _compute(self, name):
        if name in self._coupling:
            value = self._coupling[name]
            return value() if callable(value) else value
        subsystem, _, signal = name.partition("/")
        if subsystem not in self.parts or signal not in self.parts[subsystem].signals:
            raise MechsimError(f"unknown signal {name!r}; res.signals lists the available names")
        return self.parts[subsystem][signal][:len(self.t)]

    def point(self, body, point):
        """(N, 3) world position of a point of "<subsystem>/<body>"."""
        subsystem, _, name = body.partition("/")
        if subsystem not in self.parts:
            raise MechsimError(f"unknown body {body!r}; name it '<subsystem>/<body>' with a subsystem of "
                               f"{', '.join(self.parts)}")
        return self.parts[subsystem].point(name, point)[:len(self.t)]

    @property
    def constraint_error(self):
        """(N,) the largest coupling violation at every sample."""
        values = [np.abs(self[k]).reshape(len(self.t), -1).max(axis=1) for k in self._coupling
                  if k.endswith(".violation")]
        return np.max(values, axis=0) if values else np.zeros(len(self.t))

    def _node_dynamics(self):
        raise MechsimError("this result couples subsystems: take the quantities from its parts (res.parts)")

    def __repr__(self):
        span = f"t = {self.t[0]:g} … {self.t[-1]:g}" if len(self.t) else "empty"
        return (f"CoupledResult({', '.join(self.parts)}, {len(self.t)} samples, {span}"
                f"{'' if self.success else ', FAILED'})")
