"""Compile a Model once into flat arrays (SPEC §6): the only model the kernels see."""
from functools import cached_property

import numpy as np

from ..errors import ModelError
from ..expressions.evaluator import max_stack_depth
from ..expressions.language import Expression, compile_programs
from ..modeling.body import Body
from ..modeling.contacts import CONTACT_SIGNALS
from ..modeling.forces.joint_force import JointForce
from ..modeling.forces.joint_friction import JointFriction
from ..modeling.names import Signal, SignalNames
from ..modeling.primitives import PRIM_H, PRIM_P, PRIM_R, PRIMITIVES
from ..spatial.algebra import body_inertia_world, python
from . import layout as L
from .layout import SWITCHED_ROWS, ModelArrays
from .closure import ConstraintRows
from .cut_joints import CutJointCoordinates
from .data import Settings, new_data
from .forces import FORCE_CODE
from .kernels import new_workspace
from .multipliers import F_KINETIC, F_MU, F_NODE, F_PRISMATIC, F_VI, FRICTION_COLS
from .sparsity import sparsity_of
from .system import update_time_functions
from .topology import spanning_tree


def read_only(*arrays):
    """Mark the arrays the kernels only read: writing one raises."""
    for array in arrays:
        array.setflags(write=False)


def node_axes_columns(f, ptype):
    """Node row f's constant columns (layout.py): its body's spatial inertia about the node's origin in node axes
    (body_inertia_world, R = 1), whether its tree rotation is the identity and its axis a coordinate axis."""
    python(body_inertia_world)(f[L.MASS], f[L.COM:L.COM + 3], f[L.ICOM:L.ICOM + 9], np.eye(3),
                               f[L.INERTIA:L.INERTIA + 36].reshape(6, 6))
    axis = f[L.AXIS:L.AXIS + 3]
    f[L.UNTURNED] = np.array_equal(f[L.ROT_TREE:L.ROT_TREE + 9], np.eye(3).ravel())
    coordinate_axis = ptype in (PRIM_P, PRIM_R, PRIM_H) and np.count_nonzero(axis) == 1
    f[L.AXIS_K] = 1 + np.argmax(np.abs(axis)) if coordinate_axis else 0


class CompiledModel:
    """Tree nodes, force tables, constraint rows and name maps of a Model, and ``arrays``, the
    immutable ModelArrays the kernels take; rebuilt when the model changes. A run, analysis or
    forward-dynamics call works on its own Data (``new_data``), never on this object: the tables the kernels
    read are read-only."""

    def __init__(self, model):
        self.model = model
        self.topology = spanning_tree(model)
        self.joint_order = self.topology.tree
        self._build_nodes(model)
        self._build_forces(model)
        self.gravity = np.array(model.gravity, dtype=float)
        self.rows = ConstraintRows(self)
        self.n_rows = len(self.rows.owner)
        self.cut_coordinates = CutJointCoordinates(self)    # the cut joints' .q, .v, .a signals
        # the rows that always hold; a stop's row ("limit") or a friction's ("lock") only in some modes
        self.switched = np.array([o[0] in SWITCHED_ROWS for o in self.rows.owner], dtype=bool)
        self.every_row = np.flatnonzero(~self.switched).astype(np.int64)
        self.unilateral = np.flatnonzero(self.switched).astype(np.int64)
        self.arrays = self._model_arrays()
        read_only(*self.arrays[:-1], self.u_const, self.rows.constant_targets, *self.sparsity,
                  self.cut_coordinates.cut_i, self.cut_coordinates.cut_f)
        # some force value or constraint target depends on t or on an input
        self.varies_in_time = bool(self.input_slots or self.expression_slots or self.python_slots
                                   or self.rows.expressions or self.rows.timed)
        # an open tree: its dynamics are ABA alone; runs compile no constraint machinery (dynamics/system.py)
        self.is_tree = self.n_rows == 0 and not self.load_frictions
        # forward_dynamics' tables for a tree whose force values are constant (dynamics/api.py): made here and never
        # changed, but for their workspace, which every call writes as scratch (one for every thread: aba_packed
        # holds the GIL)
        self.fd_tables = self.tree_tables() if self.every_row.size == 0 and not self.varies_in_time else None
        self.signals = self._signal_names()                 # what each signal name means (modeling/names.py)

    def new_data(self, active=None, signals=None, impacts=None, **settings):
        """A fresh Data for one run or analysis (dynamics/data.py new_data), its settings by name (Settings)."""
        return new_data(self, active, Settings(**settings), signals, impacts)

    def friction_table(self):
        """The joint frictions whose levels grow with the load (ConstraintWorkspace.friction, dynamics/
        multipliers.py), none slipping: a row per element of ``load_frictions``."""
        table = np.zeros((len(self.load_frictions), FRICTION_COLS))
        for k, f in enumerate(self.load_frictions):
            node, _, vi = self.coordinate_slot(f)
            table[k, [F_VI, F_NODE, F_PRISMATIC, F_KINETIC, F_MU]] = \
                vi, node, PRIMITIVES[self.node_i[node, L.PTYPE]].slides, f.kinetic, f.mu_kinetic * f.radius
        return table

    def _model_arrays(self):
        """The ModelArrays, with the expressions of t (force values, constraint targets) as one
        program table (expressions/language.py) and each slot's / row's span in it (-1: none)."""
        expressions = [e for _, e in self.expression_slots] + [e for _, e in self.rows.expressions]
        ops, consts, spans = compile_programs(expressions)
        slot_span = np.full((self.n_slots, 2), -1, dtype=np.int64)
        row_span = np.full((self.n_rows, 2), -1, dtype=np.int64)
        k = len(self.expression_slots)
        for (slot, _), span in zip(self.expression_slots, spans[:k]):
            slot_span[slot] = span
        for (row, _), span in zip(self.rows.expressions, spans[k:]):
            row_span[row] = span
        self.stack_depth = max(1, max_stack_depth(ops, spans))
        self.breakpoints = np.array(sorted({c for e in expressions for c in e.breakpoints}))   # where they may jump
        return ModelArrays(self.node_i, self.node_f, self.force_i, self.force_f, self.gravity, self.quat_q,
                           self.rows.con_i, self.rows.con_f, ops, consts, slot_span, row_span, self.nq)

    # ---------------------------------------------------------------- tree
    def _build_nodes(self, model):
        node_i, node_f, self.node_joint = [], [], []
        body_node = {"ground": -1}
        body_pose = {"ground": (np.eye(3), np.zeros(3))}     # body frame in its node frame (R_nb, p_nb)
        self.joint_q, self.joint_v, self.q0_parts, self.v0_parts = {}, {}, [], []
        self.joint_nodes = {}                                   # joint -> its primitives' nodes
        self.quat_q = []                                        # first q index of every quaternion
        nq = nv = 0
        for jname in self.joint_order:
            joint = model.joints[jname]
            self.joint_q[jname], self.joint_v[jname] = slice(nq, nq + joint.nq), slice(nv, nv + joint.nv)
            self.q0_parts.append(joint.q0)
            self.v0_parts.append(joint.v0)
            # pose of F in the parent's node frame: (parent body in node) o (F in parent body)
            R_nb, p_nb = body_pose[joint.parent]
            p_f, R_f = joint.parent_pose
            rot_tree, pos_tree = R_nb @ R_f, R_nb @ p_f + p_nb
            parent = body_node[joint.parent]
            for k, (ptype, axis, pitch) in enumerate(joint.primitives):
                row_f = np.zeros(L.NODE_F_COLS)
                row_f[L.AXIS:L.AXIS + 3], row_f[L.PITCH] = axis, pitch
                row_f[L.ROT_TREE:L.ROT_TREE + 9] = (rot_tree if k == 0 else np.eye(3)).ravel()
                row_f[L.POS_TREE:L.POS_TREE + 3] = pos_tree if k == 0 else 0.0
                node_i.append([parent, ptype, nq, nv])
                self.node_joint.append(jname)
                self.joint_nodes.setdefault(jname, []).append(len(node_i) - 1)
                node_f.append(row_f)
                if PRIMITIVES[ptype].quaternion:
                    self.quat_q.append(nq)
                nq, nv = nq + PRIMITIVES[ptype].nq, nv + PRIMITIVES[ptype].nv
                parent = len(node_i) - 1
            # the child body hangs on the last node, whose frame is the joint's M frame
            p_c, R_c = joint.child_pose
            R_mb, p_mb = R_c.T, -R_c.T @ p_c
            body = model.bodies[joint.child]
            node_f[-1][L.MASS] = body.mass
            node_f[-1][L.COM:L.COM + 3] = R_mb @ body.com + p_mb
            node_f[-1][L.ICOM:L.ICOM + 9] = (R_mb @ body.inertia @ R_mb.T).ravel()
            body_node[joint.child], body_pose[joint.child] = parent, (R_mb, p_mb)
        self.n_nodes, self.nq, self.nv = len(node_i), nq, nv
        self.node_i = np.array(node_i, dtype=np.int64).reshape(-1, L.NODE_I_COLS)
        self.node_f = np.array(node_f, dtype=float).reshape(-1, L.NODE_F_COLS)
        for f, ptype in zip(self.node_f, self.node_i[:, L.PTYPE]):
            node_axes_columns(f, ptype)
        self.quat_q = np.array(self.quat_q, dtype=np.int64)
        self.q0 = np.concatenate(self.q0_parts) if self.q0_parts else np.zeros(0)
        self.v0 = np.concatenate(self.v0_parts) if self.v0_parts else np.zeros(0)
        self.body_names = [b for b in model.bodies if b != "ground"]
        self.body_node = np.array([body_node[b] for b in self.body_names], dtype=np.int64)
        self.body_rot = np.array([body_pose[b][0] for b in self.body_names]).reshape(-1, 3, 3)
        self.body_pos = np.array([body_pose[b][1] for b in self.body_names]).reshape(-1, 3)
        self._body_lookup = {b: (body_node[b], *body_pose[b]) for b in model.bodies}
        self.q_names, self.v_names = [], []
        for jname in self.joint_order:
            qn, vn = model.joints[jname].coordinate_names()
            self.q_names += qn
            self.v_names += vn
        self._check_leaf_masses(model)

    def _check_leaf_masses(self, model):
        """A massless body that carries no other body and moves on a joint of its own has no defined motion; welded
        to its parent (a URDF's tool or foot frame), it moves with it."""
        has_child = {j.parent for j in model.joints.values()}
        moves = {j.child for j in model.joints.values() if j.nv}
        for name in self.body_names:
            body = model.bodies[name]
            if name in moves and name not in has_child and body.mass <= 0.0:
                touching = [c.name for c in model.contacts.values() if c.body == name]
                raise ModelError(f"body '{name}' has zero mass and carries no other body: its motion is undefined"
                                 + (f" (contact '{touching[0]}' is on it)" if touching else "") +
                                 "; give it a positive mass (and inertia), or weld it to its parent")

    def coordinate_slot(self, element):
        """(node, q index, v index) of the joint coordinate a driver, joint_limit or joint_friction acts on
        (``element.joint``, ``element.coordinate``, ``element.primitive``): a coordinate of a node of one
        coordinate, or one of a translation node's three (qdot = v on both)."""
        node = self.joint_nodes[element.joint][element.primitive]
        vi = self.joint_v[element.joint].start + element.coordinate
        return node, int(self.node_i[node, L.QI] + vi - self.node_i[node, L.VI]), vi

    def body_node_of(self, body):
        """The node a body hangs on (-1: the ground, or a body welded to it)."""
        return self._body_lookup[body][0]

    def body_point_in_node(self, body, point):
        """(node, point in node coordinates) of a point given in body coordinates."""
        node, R_nb, p_nb = self._body_lookup[body]
        return node, R_nb @ np.asarray(point, dtype=float) + p_nb

    def body_direction_in_node(self, body, direction):
        """A direction given in body coordinates, in its node's coordinates."""
        return self._body_lookup[body][1] @ np.asarray(direction, dtype=float)

    # ---------------------------------------------------------------- forces
    def _build_forces(self, model):
        """The force table (layout.py force_i, force_f): the rows of every force element and compliant contact
        (their force_rows) under their kinds' codes (forces.py FORCE_TABLE), with a slot of the force values u
        for each of their time-varying values."""
        rows_i, rows_f = [], []
        self.sources, self.slot_force = [], []         # (slot in u, Source); the element owning each slot
        self.force_rows_of = {}                         # element -> its rows in the table
        for element in (*model.forces.values(), *model.contacts.values()):
            for row in element.force_rows(self):
                self.force_rows_of.setdefault(element.name, []).append(len(rows_i))
                slot = len(self.sources)
                rows_i.append([FORCE_CODE[type(element)], row.a, row.b, slot if row.sources else -1])
                rows_f.append(np.asarray(row.params, dtype=float))
                self.sources += [(slot + k, source) for k, source in enumerate(row.sources)]
                self.slot_force += [element.name] * len(row.sources)
        self.force_i = np.array(rows_i, dtype=np.int64).reshape(-1, L.FORCE_I_COLS)
        self.force_f = np.zeros((len(rows_f), max((len(row) for row in rows_f), default=0)))
        for e, row in enumerate(rows_f):
            self.force_f[e, :len(row)] = row
        self.n_slots = len(self.sources)
        self.actuated = {}                             # joint -> [(coordinate k, slot)] of its joint_force actuators
        for force in model.forces.values():
            if isinstance(force, JointForce):
                self.actuated.setdefault(force.joint, []).extend(
                    (k, self.force_i[e, 3]) for k, e in enumerate(self.force_rows_of[force.name]))
        self.load_frictions = [f for f in model.forces.values() if isinstance(f, JointFriction) and f.exact and f.loaded]
        self.u_const = np.zeros(self.n_slots)
        for slot, source in self.sources:
            if source.is_constant:
                self.u_const[slot] = source.constant
        # slots whose value varies: named inputs, expressions of t (compiled), other callables (from Python)
        self.input_slots = [(s, src.input) for s, src in self.sources if src.input is not None]
        self.expression_slots = [(s, src.function) for s, src in self.sources if isinstance(src.function, Expression)]
        self.python_slots = [(s, src) for s, src in self.sources
                             if src.function is not None and not isinstance(src.function, Expression)]

    @cached_property
    def sparsity(self):
        """Where the constraint rows and the tree's solves are nonzero (sparsity.py), which the kernels only read: one
        set for every Data of the model (runs, their Results, the one-off evaluations)."""
        return sparsity_of(self.node_i, self.nv, self.rows.con_i, self.rows.con_f)

    def packed_tables(self):
        """model_i = [node_i; force_i] and model_f = [node_f; force_f; globals] (layout.py), the two
        tables the public forward_dynamics hands its kernel; model_f's last row holds gravity and the
        force values, so where they vary each thread keeps its own copy (dynamics/api.py)."""
        assert L.NODE_I_COLS == L.FORCE_I_COLS
        n, (n_forces, force_cols) = self.n_nodes, self.force_f.shape
        model_i = np.concatenate([self.node_i, self.force_i])
        model_f = np.zeros((n + n_forces + 1, max(L.NODE_F_COLS, force_cols, L.FORCE_VALUES + self.n_slots)))
        model_f[:n, :L.NODE_F_COLS] = self.node_f
        model_f[n:n + n_forces, :force_cols] = self.force_f
        model_f[-1, L.GRAVITY:L.GRAVITY + 3] = self.gravity
        model_f[-1, L.FORCE_VALUES:L.FORCE_VALUES + self.n_slots] = self.u_const
        return model_i, model_f

    def tree_tables(self):
        """(model_i, model_f, workspace, zero tau, nv) for aba_packed (packed_tables; the generalized forces of a call
        without tau)."""
        model_i, model_f = self.packed_tables()
        return model_i, model_f, new_workspace(self.n_nodes), np.zeros(self.nv), self.nv

    def force_values(self, t, inputs=None, out=None):
        """The force values u at time t (inputs: name -> value, default the inputs' defaults)."""
        u = np.empty(self.n_slots) if out is None else out
        u[:] = self.u_const
        for slot, name in self.input_slots:
            u[slot] = inputs[name] if inputs is not None and name in inputs else self.model.inputs[name]
        for slot, expression in self.expression_slots:
            u[slot] = expression(t)
        for slot, source in self.python_slots:
            u[slot] = source(t)
        return u

    def targets(self, t, out=None):
        """The constraint targets (f, f', f'') of every row at t."""
        con_t = self.rows.constant_targets.copy() if out is None else out
        a = self.arrays
        if a.time_ops.shape[0]:                    # the kernels' own evaluation (u here is scratch)
            update_time_functions(a.time_ops, a.time_consts, a.slot_span, a.row_span, self.u_const.copy(), con_t,
                                  np.empty((self.stack_depth, 3)), float(t))
        self.rows.targets(t, con_t)
        return con_t

    # ---------------------------------------------------------------- names
    def signal_names(self):
        """Every signal name a Result provides (modeling/names.py)."""
        return list(self.signals.names)

    def _signal_names(self):
        """The SignalNames of the model (``signals``): what each signal name means (section, item, quantity)."""
        joints, model = self.model.joints, self.model
        items = [("joints", j, s) for j in self.joint_order if joints[j].nv for s in ("q", "v", "a", "force")]
        items += [("joints", j, s) for j in self.cut_coordinates.q for s in ("q", "v", "a")]
        items += [("joints", j, "reaction") for j in joints]
        items += [("constraints", c, "reaction") for c in model.constraints]
        items += [("forces", f.name, s) for f in model.forces.values() for s in f.signals]
        items += [("contacts", c, s) for c in model.contacts for s in CONTACT_SIGNALS]
        items += [("bodies", b, s) for b in self.body_names for s in Body.signals]
        return SignalNames(Signal(*item) for item in items)
