"""The two things every kernel takes, after Pinocchio's split of Model and Data:

- ``ModelArrays``: the compiled model as flat arrays (layout.py), made once by CompiledModel and
  never written afterwards — one model serves any number of runs and threads;
- ``Data``: what one run, analysis or forward-dynamics call writes — the kernels' workspaces, the
  force values u and extra generalized forces tau, the constraint targets con_t (f, f', f'' per
  row), the rows that hold (``held``: every row but those of open stops) and, of those, the rows
  taking part (``active``: the redundancy analysis of the current configuration), the compiled
  event signals, scratch (dz: a velocity correction; ydot: a state derivative an event signal needs —
  kernels never allocate), the run's settings (multiplier solver, drift control and its tolerances) and
  the contacts' bounces resolved compiled (impacts.py: Impacts, None without rigid contacts).

Kernels are ``kernel(model, data, ...)``; Python code makes a Data with ``CompiledModel.new_data``.
"""
from collections import namedtuple

import numpy as np

from .kernels import new_workspace
from .multipliers import CHOLESKY, COMPLIANCE, DAMPING, QR, STIFFNESS, new_constraint_workspace
from .nullspace import new_nullspace_workspace
from .projection import PROJECTION, STABILIZATION

ModelArrays = namedtuple("ModelArrays", "node_i node_f force_i force_f gravity quat_q con_i con_f "
                                        "time_ops time_consts slot_span row_span nq")
Data = namedtuple("Data", "ws cw u tau con_t active held dz ydot stack signal_i signal_f solver drift alpha beta rtol "
                         "atol formulation ns impacts")

BAUMGARTE, NO_DRIFT_CONTROL = 2, 3
DRIFT_CODES = {"projection": PROJECTION, "stabilization": STABILIZATION, "baumgarte": BAUMGARTE,
               "none": NO_DRIFT_CONTROL}
SOLVER_CODES = {"cholesky": CHOLESKY, "qr": QR}
LAGRANGE, NULLSPACE, PENALTY = 0, 1, 2
FORMULATION_CODES = {"lagrange": LAGRANGE, "nullspace": NULLSPACE, "penalty": PENALTY}
SIGNAL_I_COLS, SIGNAL_F_COLS = 4, 4     # compiled event signals (simulation/events.py)
NO_NULLSPACE = new_nullspace_workspace(0, 0)     # the other formulations' ns: empty, never written, shared


def new_data(cm, u=None, tau=None, active=None, drift="projection", constraint_solver="cholesky",
             baumgarte=(10.0, 10.0), rtol=1e-6, atol=1e-8, signal_i=None, signal_f=None, formulation="lagrange",
             penalty=None, sigma=20.0, impacts=None):
    """A fresh Data for the compiled model ``cm``: force values u (default: the constant ones), the
    rows ``active`` (default: the model's redundancy analysis, else every row), drift control and
    multiplier solver by name, Baumgarte's (alpha, beta), the tolerances rtol, atol (projection drives
    the constraint residual below 1e-3 atol; its metric is M^-1, projection.py), the compiled event
    signals (simulation/events.py) and the formulation: "penalty" with ``penalty`` a Penalty
    (simulation/formulations.py), the rows turned into spring-dampers or held by the augmented Lagrangian
    (they leave the active and held rows: no events; the augmented Lagrangian's are projected, projection.py);
    "nullspace" with drift "baumgarte" holds the positions by method B at rate ``sigma`` (nullspace.py);
    ``impacts`` the run's Impacts (impacts.py)."""
    code, form = DRIFT_CODES[drift], FORMULATION_CODES[formulation]
    alpha, beta = (float(baumgarte[0]), float(baumgarte[1])) if code == BAUMGARTE else (0.0, 0.0)
    if form == NULLSPACE:
        alpha, beta = (float(sigma), 0.0) if code == BAUMGARTE else (0.0, 0.0)
    if active is None:
        active = cm.every_row if cm.analysis is None else cm.analysis.active
    active = np.ascontiguousarray(active, dtype=np.int64)
    holds = ~cm.switched                       # the rows that always hold, and the switched ones active
    holds[active] = True
    held = np.flatnonzero(holds).astype(np.int64)
    penalized, iterations = np.zeros(0, dtype=np.int64), 0
    if form == PENALTY and penalty is not None:
        penalized, iterations = np.asarray(penalty.rows, dtype=np.int64), penalty.iterations
        active, held = np.setdiff1d(active, penalized), np.setdiff1d(held, penalized)
    cw = new_constraint_workspace(cm.node_i, cm.n_rows, cm.nv, cm.branches, len(cm.load_frictions), penalized,
                                  iterations)
    cw.friction[:] = cm.friction_table()
    if penalized.size:
        cw.penalty[penalized, STIFFNESS], cw.penalty[penalized, DAMPING] = penalty.stiffness, penalty.damping
        cw.penalty[penalized, COMPLIANCE] = penalty.compliance
    ns = new_nullspace_workspace(cm.n_rows, cm.nv) if form == NULLSPACE else NO_NULLSPACE
    return Data(new_workspace(cm.n_nodes), cw,
                cm.u_const.copy() if u is None else np.array(u, dtype=float),
                np.zeros(cm.nv) if tau is None else np.array(tau, dtype=float),
                cm.rows.constant_targets.copy(), active, held, np.zeros(cm.nv), np.zeros(cm.nq + cm.nv),
                np.zeros((cm.stack_depth, 3)),
                np.zeros((0, SIGNAL_I_COLS), dtype=np.int64) if signal_i is None else signal_i,
                np.zeros((0, SIGNAL_F_COLS)) if signal_f is None else signal_f,
                SOLVER_CODES[constraint_solver], code, alpha, beta, float(rtol), float(atol), form, ns, impacts)
