"""Public entry points to the kernels: ms.forward_dynamics, ms.inverse_dynamics, ms.mass_matrix."""
import numpy as np

from ..errors import MechsimError, SimulationError
from .kernels import ABA_PACKED_SIGNATURE, OK, WRONG_SIZE, aba_packed, crba, rnea
from .multipliers import CHOLESKY, SINGULAR, constrained_dynamics


def _state_vector(x, n, what, model, batch=False):
    """x as a C-contiguous, writable float array of shape (n,), or (N, n) if batch; a MechsimError
    naming the coordinates otherwise."""
    x = np.require(x, dtype=float, requirements="CW")
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


def _fd_kernel(*args):
    """The first call compiles aba_packed (or loads it from numba's cache: not at import, which stays
    fast) for ABA_PACKED_SIGNATURE only, so that other argument types raise TypeError rather than
    compile a specialization; the compiled kernel then takes this function's place."""
    global _fd_kernel
    aba_packed.compile(ABA_PACKED_SIGNATURE)
    aba_packed.disable_compile()
    _fd_kernel = aba_packed
    return aba_packed(*args)


def forward_dynamics(m, q, v, tau=None, t=0.0, inputs=None):
    """Generalized accelerations (nv,) of model m at (q, v) with extra generalized forces tau,
    force elements evaluated at time t (inputs: name -> value, default the inputs' defaults);
    loop constraints and drivers are enforced by their multipliers."""
    cm = m._compiled or m.compile()
    if cm.timed_sources:
        cm.force_values(t, inputs, out=cm.fd_u)
    if cm.n_rows:
        return _constrained_forward_dynamics(cm, q, v, tau, t)
    try:                     # float64 vectors go straight in (SPEC §6: call overhead); the kernel checks sizes
        qdd = np.zeros(cm.nv) if tau is None else tau.copy()    # tau, turned into qdd in place
        status = _fd_kernel(cm.model_i, cm.model_f, cm.workspace, q, v, qdd)
    except (AttributeError, TypeError):    # lists, other dtypes, non-contiguous or read-only arrays
        status = WRONG_SIZE
    if status == OK:
        return qdd
    if status == WRONG_SIZE:                # convert them, or name the expected coordinates
        q, v = _state_vector(q, cm.nq, "q", m), _state_vector(v, cm.nv, "v", m)
        qdd = _state_vector(cm.zero_tau if tau is None else tau, cm.nv, "tau", m).copy()
        status = _fd_kernel(cm.model_i, cm.model_f, cm.workspace, q, v, qdd)
        if status == OK:
            return qdd
    raise singular_node_error(cm, status)


def _constrained_forward_dynamics(cm, q, v, tau, t):
    m = cm.model
    q, v = _state_vector(q, cm.nq, "q", m), _state_vector(v, cm.nv, "v", m)
    tau = cm.zero_tau if tau is None else _state_vector(tau, cm.nv, "tau", m)
    rows = cm.rows
    rows.set_targets(t)
    qdd = np.empty(cm.nv)
    status = constrained_dynamics(cm.node_i, cm.node_f, cm.force_i, cm.force_f, cm.gravity, cm.fd_u, tau, q, v,
                                  cm.workspace, rows.con_i, rows.con_f, rows.con_t, cm.every_row, cm.active,
                                  cm.constraint_workspace, CHOLESKY, 0.0, 0.0, qdd)
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
        cm = res.model._compiled or res.model.compile()
        refuse_closed_loops(cm, "inverse_dynamics")
        return _rnea_samples(cm, res.q, res.v, res._node_dynamics()[0], res.u_force)
    cm = m._compiled or m.compile()
    refuse_closed_loops(cm, "inverse_dynamics")
    if q is None or v is None or a is None:
        raise MechsimError("inverse_dynamics(m, q, v, a): give q, v and a (or a Result alone)")
    q, v, a = (_state_vector(x, n, w, m, batch=True) for x, n, w in ((q, cm.nq, "q"), (v, cm.nv, "v"), (a, cm.nv, "a")))
    if q.ndim == 1:
        return _rnea_samples(cm, q[None], v[None], a[None], cm.force_values(t, inputs)[None])[0]
    times = np.broadcast_to(np.asarray(t, dtype=float), (q.shape[0],))
    return _rnea_samples(cm, q, v, a, np.array([cm.force_values(tk, inputs) for tk in times]))


def _rnea_samples(cm, Q, V, A, U):
    tau = np.empty((Q.shape[0], cm.nv))
    for k in range(Q.shape[0]):
        rnea(cm.node_i, cm.node_f, cm.force_i, cm.force_f, cm.gravity, U[k], Q[k], V[k], A[k], cm.workspace, tau[k])
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
    cm = m._compiled or m.compile()
    M = np.empty((cm.nv, cm.nv))
    crba(cm.node_i, cm.node_f, _state_vector(q, cm.nq, "q", m), cm.workspace, M)
    return M


def constraint_values(cm, q, v, t=0.0):
    """(g, G v - f', G) of every constraint row of a compiled model at (q, v, t), as new arrays."""
    from .projection import constraint_state
    rows, cw = cm.rows, cm.constraint_workspace
    rows.set_targets(t)
    constraint_state(cm.node_i, cm.node_f, np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(v, dtype=float),
                     cm.workspace, rows.con_i, rows.con_f, rows.con_t, cm.every_row, cw)
    return cw.h.copy(), cw.hd.copy(), cw.G.copy()
