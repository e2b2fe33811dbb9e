"""What the kernels take, after Pinocchio's split of Model and Data:

- ``ModelArrays`` (layout.py): the compiled model as flat read-only arrays, made once by CompiledModel
  and never written — one model serves any number of runs and threads;
- ``Data``: what one run, analysis or forward-dynamics call writes, made by ``CompiledModel.new_data``; a run
  makes one for each compiled model it runs on, and a mode switch of its stops, frictions and contacts rewrites
  the mode's entries in it (``write_rows``; simulation/hybrid Modes.write).

Kernels are ``kernel(model, data, cw, ..., q, v, ...)``: the ModelArrays, the run's ``DataArrays``, then the
workspaces they use, each on its own, then what varies per call. Every array a compiled call is handed is
copied into the call (a struct of ~10 words: ~4 ns, measured), whether in a tuple or not, so a kernel takes
the groups it reads and no others; the optional ones are None where a run has none (numba drops the code
behind ``x is None`` of an argument before typing it: dynamics/system.py). The groups' types do not depend
on the run, so that a run, its Results and the public functions share their compiled kernels.

A Data holds:
- ``arrays``: the DataArrays — the kernels' workspace ws, the force values u and extra generalized forces tau,
  the constraint targets con_t (f, f', f'' per row), the rows that hold (``held``: every row but the switched
  rows of stops, frictions and contacts that are open) and, of those, the rows taking part (``active``: the
  redundancy analysis of the mode), each with room for every row and its count in ``counts``
  (dynamics/constraints.py active_rows, held_rows: a kernel reads 120 of 200 rows from them as fast as from an
  array of those rows alone, and ~0.5 us faster than by collecting them from a mask, measured), scratch (dz: a velocity correction; ydot: a state
  derivative an event signal needs; stack: the time functions' — kernels never allocate) and the run's settings (multiplier solver, drift control,
  Baumgarte's alpha and beta or the null-space formulation's sigma in alpha, atol);
- ``cw``, ``ns``: the constraint and null-space workspaces (multipliers.py, nullspace.py; ns an empty one but for
  the null-space formulation);
- ``impacts``: the contacts' bounces resolved compiled (impacts.py: Impacts, None without rigid contacts);
- ``signal_i``, ``signal_f``: the compiled event signals (system.py);
- ``formulation``: LAGRANGE, NULLSPACE or PENALTY.
"""
from collections import namedtuple

import numpy as np

from .constraints import ACTIVE, HELD
from .kernels import new_workspace
from .layout import ROW_CONTACT_SLIP, ROW_TYPE
from .multipliers import CHOLESKY, COMPLIANCE, DAMPING, QR, STIFFNESS, new_constraint_workspace
from .nullspace import new_nullspace_workspace
from .projection import PROJECTION, STABILIZATION

DataArrays = namedtuple("DataArrays", "ws u tau con_t active held counts dz ydot stack solver drift alpha beta atol")


class Data(namedtuple("Data", "arrays cw ns impacts signal_i signal_f formulation")):
    """A run's (or an evaluation's) record: module docstring."""

    def active_rows(self):
        """A copy of the rows taking part in the current mode."""
        return self.arrays.active[:self.arrays.counts[ACTIVE]].copy()

    def optional_tables(self, model, tree=False):
        """The tables of cw only some runs use, each None where this run on ModelArrays ``model`` (an open ``tree``:
        all three) has no use for it,
        so that the kernels compile none of its code (a closed loop's first run compiles ~13 % less without the
        penalty formulation's and the sliding contacts'): the load frictions (cw.friction), the penalty
        formulation's rows (cw.penalized) and the sliding contacts' directions (cw.slide, for a model with
        contact rows that can slide)."""
        if tree:
            return None, None, None
        cw = self.cw
        slides = (model.con_i[:, ROW_TYPE] == ROW_CONTACT_SLIP).any()
        return (cw.friction if cw.friction.shape[0] else None, cw.penalized if cw.penalized.shape[0] else None,
                cw.slide if slides else None)


# A run's settings by name (new_data): drift control and multiplier solver, Baumgarte's (alpha, beta), the
# absolute tolerance (projection drives the constraint residual below 1e-3 atol; its metric is M^-1,
# projection.py), the formulation, the penalty formulation's Penalty (simulation/formulations.py) and the
# null-space formulation's Baumgarte rate sigma.
Settings = namedtuple("Settings", "drift constraint_solver baumgarte atol formulation penalty sigma",
                      defaults=("projection", "cholesky", (10.0, 10.0), 1e-8, "lagrange", None, 20.0))

BAUMGARTE, NO_DRIFT_CONTROL = 2, 3
DRIFT_CODES = {"projection": PROJECTION, "stabilization": STABILIZATION, "baumgarte": BAUMGARTE,
               "none": NO_DRIFT_CONTROL}
SOLVER_CODES = {"cholesky": CHOLESKY, "qr": QR}
LAGRANGE, NULLSPACE, PENALTY = 0, 1, 2
FORMULATION_CODES = {"lagrange": LAGRANGE, "nullspace": NULLSPACE, "penalty": PENALTY}
SIGNAL_I_COLS, SIGNAL_F_COLS = 4, 4     # compiled event signals (simulation/events.py)
NO_NULLSPACE = new_nullspace_workspace(0, 0)     # the other formulations' ns: empty, never written, shared


def new_data(cm, active=None, settings=Settings(), signals=None, impacts=None):
    """A fresh Data for the compiled model ``cm``: the force values its constant ones, the rows ``active``
    (write_rows; default every row that always holds), the run's Settings, the compiled event signals (signal_i,
    signal_f: simulation/events.py; None: none) and the run's Impacts (impacts.py).
    The penalty formulation with a Penalty turns its rows into spring-dampers or holds them by the augmented
    Lagrangian (they leave the active and held rows: no events; the augmented Lagrangian's are projected,
    projection.py); "nullspace" with drift "baumgarte" holds the positions by method B at rate sigma
    (nullspace.py)."""
    code, form = DRIFT_CODES[settings.drift], FORMULATION_CODES[settings.formulation]
    alpha, beta = (float(settings.baumgarte[0]), float(settings.baumgarte[1])) if code == BAUMGARTE else (0.0, 0.0)
    if form == NULLSPACE:
        alpha, beta = (float(settings.sigma), 0.0) if code == BAUMGARTE else (0.0, 0.0)
    penalized, iterations, penalty = np.zeros(0, dtype=np.int64), 0, settings.penalty
    if form == PENALTY and penalty is not None:
        penalized, iterations = np.asarray(penalty.rows, dtype=np.int64), penalty.iterations
    cw = new_constraint_workspace(cm.n_rows, cm.nv, cm.sparsity, len(cm.load_frictions), penalized, iterations)
    cw.friction[:] = cm.friction_table()
    if penalized.size:
        cw.penalty[penalized, STIFFNESS], cw.penalty[penalized, DAMPING] = penalty.stiffness, penalty.damping
        cw.penalty[penalized, COMPLIANCE] = penalty.compliance
    ns = new_nullspace_workspace(cm.n_rows, cm.nv) if form == NULLSPACE else NO_NULLSPACE
    signal_i, signal_f = (np.zeros((0, SIGNAL_I_COLS), dtype=np.int64), np.zeros((0, SIGNAL_F_COLS))) \
        if signals is None else signals
    rows = np.zeros(cm.n_rows, dtype=np.int64)
    arrays = DataArrays(new_workspace(cm.n_nodes), cm.u_const.copy(), np.zeros(cm.nv), cm.rows.constant_targets.copy(),
                        rows, rows.copy(), np.zeros(2, dtype=np.int64), np.zeros(cm.nv), np.zeros(cm.nq + cm.nv),
                        np.zeros((cm.stack_depth, 3)), SOLVER_CODES[settings.constraint_solver], code, alpha, beta,
                        float(settings.atol))
    data = Data(arrays, cw, ns, impacts, signal_i, signal_f, form)
    write_rows(cm, data, cm.every_row if active is None else active)
    return data


def write_rows(cm, data, active):
    """The rows of a mode into the Data: ``active``, the independent rows of its redundancy analysis (sorted), and
    the held rows, every row that always holds and the switched rows of ``active``; the penalty formulation's
    penalized rows (cw.penalized) leave both."""
    if not cm.n_rows:
        return
    holds = ~cm.switched
    holds[active] = True
    held = np.flatnonzero(holds)
    penalized = data.cw.penalized
    if penalized.size:
        active, held = np.setdiff1d(active, penalized), np.setdiff1d(held, penalized)
    arrays = data.arrays
    arrays.active[:len(active)], arrays.held[:len(held)] = active, held
    arrays.counts[ACTIVE], arrays.counts[HELD] = len(active), len(held)
