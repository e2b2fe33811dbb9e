"""Public entry points to the kernels: ms.forward_dynamics, ms.inverse_dynamics, ms.mass_matrix."""
import threading
import weakref

import numpy as np

from ..errors import MechsimError, SimulationError
from ..status import OK, SINGULAR
from .kernels import ABA_PACKED_SIGNATURE, aba_packed, crba, rnea
from .layout import FORCE_VALUES
from .multipliers import constrained_dynamics
from .projection import constraint_state


def _state_vector(x, n, what, model, batch=False):
    """x as a C-contiguous, writable float array of shape (n,), or (N, n) if batch; a MechsimError
    naming the coordinates otherwise."""
    try:
        x = np.require(x, dtype=float, requirements="CW")
    except (TypeError, ValueError, OverflowError):
        raise MechsimError(f"{what} must be {n} numbers, got {x!r:.80}") from None
    if x.shape[-1:] != (n,) or x.ndim > (2 if batch else 1):
        q_names, v_names = model.coordinates()
        names = q_names if what == "q" else v_names
        raise MechsimError(f"{what} must have {n} entries ({', '.join(names)}), got shape {x.shape}")
    return x


def singular_node_error(cm, node):
    joint = cm.node_joint[node]
    child = cm.model.joints[joint].child
    return SimulationError(f"singular mass matrix at joint '{joint}': body '{child}' (with everything it carries) "
                           "has no inertia along the joint's motion; give it mass or inertia about that axis")


_empty = np.empty        # one lookup instead of two on forward_dynamics' path (~20 ns of its ~0.6 us at N = 1)


def _fd_kernel(*args):
    """The first call compiles aba_packed (or loads it from numba's cache: not at import, which stays
    fast) for ABA_PACKED_SIGNATURE only, so that other argument types raise TypeError rather than
    compile a specialization; the compiled kernel then takes this function's place."""
    global _fd_kernel
    aba_packed.compile(ABA_PACKED_SIGNATURE)
    aba_packed.disable_compile()
    _fd_kernel = aba_packed
    return aba_packed(*args)


_THREADS = weakref.WeakKeyDictionary()     # compiled model -> threading.local: each thread's scratch for it


def thread_scratch(cm):
    """This thread's scratch for the public functions on compiled model cm, kept beside it, not on it (the model is
    read-only and serves every run and thread): .tables of a tree whose force values vary, .data for the other
    evaluations."""
    found = _THREADS.get(cm)
    return _THREADS.setdefault(cm, threading.local()) if found is None else found


def _thread_tables(cm):
    """This thread's CompiledModel.tree_tables, for a tree whose force values vary: each thread writes its own into
    its model_f; and the view of them there."""
    local = thread_scratch(cm)
    if not hasattr(local, "tables"):
        local.tables = cm.tree_tables()
        local.u = local.tables[1][-1, FORCE_VALUES:FORCE_VALUES + cm.n_slots]
    return local.tables, local.u


def local_data(cm):
    """This thread's Data for the one-off evaluations of the public functions (not for runs), every row that
    always holds taking part (where some are redundant, the multipliers fall back on the truncated QR)."""
    local = thread_scratch(cm)
    data = getattr(local, "data", None)
    if data is None:
        data = local.data = cm.new_data()
    return data


def forward_dynamics(m, q, v, tau=None, t=0.0, inputs=None):
    """Generalized accelerations (nv,) of model m at (q, v) with extra generalized forces tau,
    force elements evaluated at time t (inputs: name -> value, default the inputs' defaults);
    loop constraints and drivers are enforced by their multipliers; joint stops are open and joint
    friction left out (they are hybrid elements of a run: simulation/hybrid)."""
    try:                  # two attribute reads, not m.compile(): SPEC §6's call overhead (a try costs nothing)
        model_i, model_f, ws, no_tau, nv = m._compiled_model.fd_tables
    except (AttributeError, TypeError):   # not compiled since a change (None), or not a tree of constant forces
        return _forward_dynamics(m, q, v, tau, t, inputs)
    qdd = _empty(nv)
    try:                     # float64 vectors go straight in (SPEC §6: call overhead); the kernel checks sizes
        if _fd_kernel(model_i, model_f, ws, q, v, no_tau if tau is None else tau, qdd) == OK:
            return qdd
    except (TypeError, ValueError):     # lists, other dtypes, non-contiguous or read-only arrays
        pass
    cm = m.compile()
    return _tree_forward_dynamics(cm, cm.fd_tables, q, v, tau)


def _forward_dynamics(m, q, v, tau, t, inputs):
    """forward_dynamics other than on a tree's constant tables (CompiledModel.fd_tables): with loops or drivers,
    or a tree whose force values vary, written into its thread's own tables."""
    cm = m.compile()
    if cm.every_row.size:
        return _constrained_forward_dynamics(cm, q, v, tau, t, inputs)
    if cm.fd_tables is not None:
        return _tree_forward_dynamics(cm, cm.fd_tables, q, v, tau)
    tables, u = _thread_tables(cm)
    cm.force_values(t, inputs, out=u)
    return _tree_forward_dynamics(cm, tables, q, v, tau)


def _tree_forward_dynamics(cm, tables, q, v, tau):
    """aba_packed on ``tables`` (CompiledModel.tree_tables) with q, v, tau converted where they are not float64 vectors; a
    MechsimError naming the coordinates when their sizes are wrong, a SimulationError at a singular node."""
    m = cm.model
    q, v = _state_vector(q, cm.nq, "q", m), _state_vector(v, cm.nv, "v", m)
    tau = tables[3] if tau is None else _state_vector(tau, cm.nv, "tau", m)
    qdd = np.empty(cm.nv)
    status = _fd_kernel(*tables[:3], q, v, tau, qdd)
    if status == OK:
        return qdd
    raise singular_node_error(cm, status)


def _constrained_forward_dynamics(cm, q, v, tau, t, inputs):
    m, data = cm.model, local_data(cm)
    q, v = _state_vector(q, cm.nq, "q", m), _state_vector(v, cm.nv, "v", m)
    tau = np.zeros(cm.nv) if tau is None else _state_vector(tau, cm.nv, "tau", m)
    cm.force_values(t, inputs, out=data.arrays.u)
    cm.targets(t, out=data.arrays.con_t)
    qdd = np.empty(cm.nv)
    status = constrained_dynamics(cm.arrays, data.arrays, data.cw, q, v, tau, qdd)
    if status == SINGULAR:
        raise SimulationError(f"the constraint equations of '{m.name}' cannot be solved at this state")
    if status != OK:
        raise singular_node_error(cm, status)
    return qdd


def inverse_dynamics(m, q=None, v=None, a=None, t=0.0, inputs=None):
    """Generalized forces (nv,) that give accelerations a at (q, v), with the force elements acting
    (so that forward_dynamics(m, q, v, tau) == a), by recursive Newton-Euler. q, v, a may be
    (N, nq)/(N, nv) arrays with t (N,); ``inverse_dynamics(res)`` takes them from a Result (with its
    force values): the generalized forces, drivers' included, that reproduce its motion."""
    if hasattr(m, "u_force"):                                   # a Result
        res = m
        cm = res._cm
        refuse_closed_loops(cm, "inverse_dynamics")
        return _rnea_samples(cm, res.q, res.v, res._node_dynamics()[0], res.u_force)
    cm = m.compile()
    refuse_closed_loops(cm, "inverse_dynamics")
    if q is None or v is None or a is None:
        raise MechsimError("inverse_dynamics(m, q, v, a): give q, v and a (or a Result alone)")
    q, v, a = (_state_vector(x, n, w, m, batch=True) for x, n, w in ((q, cm.nq, "q"), (v, cm.nv, "v"), (a, cm.nv, "a")))
    if q.ndim == 1:
        return _rnea_samples(cm, q[None], v[None], a[None], cm.force_values(t, inputs)[None])[0]
    times = np.broadcast_to(np.asarray(t, dtype=float), (q.shape[0],))
    return _rnea_samples(cm, q, v, a, np.array([cm.force_values(tk, inputs) for tk in times]))


def _rnea_samples(cm, Q, V, A, U):
    tau, data = np.empty((Q.shape[0], cm.nv)), cm.new_data().arrays
    for k in range(Q.shape[0]):
        data.u[:] = U[k]
        rnea(cm.arrays, data, Q[k], V[k], A[k], tau[k])
    return tau


def refuse_closed_loops(cm, what):
    """MechsimError for a model with cut joints or constraints: its forces need m.kinematics."""
    closing = [f"cut joint '{j}'" for j in cm.topology.cut] + [f"constraint '{c}'" for c in cm.model.constraints]
    if closing:
        raise MechsimError(f"{what}: '{cm.model.name}' is not an open tree ({', '.join(closing)}): the forces of a "
                           "closed mechanism do not follow from q, v and a alone; drive its degrees of freedom with "
                           "m.add_driver and use m.kinematics(t_eval), whose joint forces and reactions are signals")


def mass_matrix(m, q):
    """Joint-space mass matrix (nv, nv) by the composite-rigid-body algorithm."""
    cm = m.compile()
    M = np.empty((cm.nv, cm.nv))
    crba(cm.arrays, local_data(cm).arrays, _state_vector(q, cm.nq, "q", m), M)
    return M


def constraint_values(cm, q, v, t=0.0, rows=None, targets=None):
    """(g, G v - f', G) of the constraint rows ``rows`` (default: every row that always holds, not the
    switched ones of stops and frictions) of a compiled model at (q, v, t), as new arrays over all
    rows, zero in the others; ``targets`` {row: (f, f', f'')} replaces the model's targets of rows."""
    cw = _evaluate_rows(cm, q, v, t, rows, targets)
    return cw.h.copy(), cw.hd.copy(), cw.G.copy()


def constraint_accelerations(cm, q, v, t=0.0, rows=None, targets=None):
    """(G, gamma) of the rows at (q, v, t), as constraint_values: the rows' accelerations are G qdd - gamma
    (Wood & Kennedy 2003, eq. 10)."""
    cw = _evaluate_rows(cm, q, v, t, rows, targets)
    return cw.G.copy(), cw.gamma.copy()


def _evaluate_rows(cm, q, v, t, rows, targets):
    data = local_data(cm)
    rows = cm.every_row if rows is None else np.asarray(rows, dtype=np.int64)
    cm.targets(t, out=data.arrays.con_t)
    for row, target in (targets or {}).items():
        data.arrays.con_t[row] = target
    cw = data.cw
    cw.h[:], cw.hd[:], cw.gamma[:], cw.G[:] = 0.0, 0.0, 0.0, 0.0
    constraint_state(cm.arrays, data.arrays, cw, np.ascontiguousarray(q, dtype=float),
                     np.ascontiguousarray(v, dtype=float), rows)
    return cw
