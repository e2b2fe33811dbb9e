"""The linear algebra of the loop constraints against dense references: the branch-restricted ABA
solves X = M^-1 G^T (numpy's solve with the CRBA mass matrix), the envelope Cholesky (numpy), the
truncated QR without the all-zero rows (with them), and the projection over the independent rows
(over every held row by truncated QR)."""
import sys
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms
from mechsim.dynamics.api import constraint_values
from mechsim.dynamics.constraints import HELD
from mechsim.dynamics.kernels import aba
from mechsim.dynamics.multipliers import cholesky_solve, constraint_jacobian_solves, form_lambda
from mechsim.dynamics.projection import constraint_state, integrate_coordinates, project
from mechsim.status import OK

from test_constraints import random_state, three_d_tree

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def n_four_bar(n):
    sys.path.insert(0, str(EXAMPLES))
    try:
        import n_four_bar as script
    finally:
        sys.path.remove(str(EXAMPLES))
    return script.build_model(n)


def test_default_spanning_tree_keeps_the_loops_of_the_n_four_bar_apart():
    """No joint of the N four-bar is marked cut. Each b_k is added after h_k and a_k, so its addition closes loop k
    and it is cut (SPEC C2): every crank hangs on its ground pivot and every coupler on the crank to its left, and
    each loop runs through two neighbouring cranks and one coupler, its rows loading two branches of the tree
    (crank k − 1 with coupler k, and crank k), so Λ = G M⁻¹ Gᵀ is block tridiagonal. (Built with b_k before a_k,
    the tree would run a0, h1, b1, h2, … through every bar, and each loop's rows load the whole chain.)"""
    n = 6
    m = n_four_bar(n)
    cm = m.compile()
    assert cm.topology.cut == [f"b{k}" for k in range(1, n + 1)]
    assert cm.topology.loops == [[f"a{k - 1}", f"h{k}", f"b{k}", f"a{k}"] for k in range(1, n + 1)]
    q, v = cm.q0.copy(), cm.v0.copy()
    X, G, _ = jacobian_solves(m, q, v)
    Lam = lambda_by_kernel(cm, G, X)
    np.testing.assert_allclose(Lam, G @ X, atol=1e-13 * np.abs(Lam).max())
    rows_per_loop = cm.n_rows // n
    loop_of_row = np.arange(cm.n_rows) // rows_per_loop
    coupled = Lam != 0.0
    assert np.abs(loop_of_row[:, None] - loop_of_row[None, :])[coupled].max() == 1   # neighbours only


def lambda_by_kernel(cm, G, X):
    """Λ = G X over every row by form_lambda, dense; its envelope form (NaN where it leaves entries as they were)
    equal to it on every entry it writes."""
    rows = np.asarray(cm.every_row, dtype=np.int64)
    n = len(rows)
    forms = {}
    for dense in (True, False):
        cw = cm.new_data().cw
        cw.G[:], cw.X[:, :n] = G, X
        cw.Lam[:] = np.nan
        form_lambda(cw, rows, dense)
        forms[dense] = np.tril(cw.Lam[:n, :n]) if not dense else cw.Lam[:n, :n].copy()
        first = cw.envelope[:n, 0].copy()
    inside = np.arange(n)[None, :] >= first[:, None]
    lower = np.tril(np.ones((n, n), dtype=bool))
    assert np.isnan(forms[False][lower & ~inside]).all() and not np.isnan(forms[False][lower & inside]).any()
    np.testing.assert_array_equal(forms[False][lower & inside], forms[True][lower & inside])
    assert not np.any(forms[True][lower & ~inside])          # nothing outside the envelope but zeros
    return forms[True]


def loops_on_two_branches():
    """The 3D tree of test_constraints (a spherical-universal-revolute chain and a free body, two branches
    off the ground) with a cut revolute joining them and a rope on the first branch only."""
    m, pose = three_d_tree(np.random.default_rng(7))
    m.add_joint("cut", "revolute", "c", "d", parent_frame=pose(), child_frame=pose(), cut=True)
    m.add_constraint("rope", "distance", body_a="ground", point_a=(0, 1, 0), body_b="b", point_b=(0.1, 0, 0),
                     length=1.3)
    return m


def jacobian_solves(m, q, v):
    """X = M^-1 G^T over every row by the kernels, with G and the CRBA mass matrix."""
    cm = m.compile()
    data = cm.new_data()
    d, cw = data.arrays, data.cw
    aba(cm.arrays, d, q, v, d.tau, np.zeros(cm.nv))
    constraint_state(cm.arrays, d, cw, q, v, cm.every_row)
    constraint_jacobian_solves(cm.node_i, d.ws, cw, cm.every_row, cw.G)
    return cw.X[:, :cm.n_rows].copy(), cw.G.copy(), ms.mass_matrix(m, q)


@pytest.mark.parametrize("build", [loops_on_two_branches, lambda: n_four_bar(3)], ids=["3d-two-branches", "n-four-bar"])
def test_jacobian_solves_on_the_loaded_branches_are_m_inverse_g(rng, build):
    m = build()
    cm = m.compile()
    for _ in range(3):
        q, v = random_state(cm, rng)
        X, G, M = jacobian_solves(m, q, v)
        reference = np.linalg.solve(M, G.T)
        np.testing.assert_allclose(X, reference, atol=1e-12 * np.abs(reference).max())
        if build is loops_on_two_branches:       # the rope loads the first branch only: 0 on the free body's
            rope = cm.every_row[-1]
            assert np.all(X[cm.joint_v["jd"], rope] == 0.0) and np.any(X[cm.joint_v["ja"], rope] != 0.0)
        Lam = lambda_by_kernel(cm, G, X)           # the pairs of rows on no common branch skipped: exact zeros
        np.testing.assert_allclose(Lam, 0.5 * (G @ X + (G @ X).T), atol=1e-13 * np.abs(Lam).max())


def test_envelope_cholesky_solves_banded_dense_and_profile_matrices(rng):
    n = 12
    for band in (0, 1, 3, n):
        B = np.tril(rng.uniform(-1, 1, (n, n)))
        B[np.tril_indices(n, -band - 1)] = 0.0
        B[5, :4] = 0.0                             # an envelope that is not a band
        A = B @ B.T + n * np.eye(n)
        b = rng.uniform(-1, 1, n)
        x = np.zeros(n)
        assert cholesky_solve(A.copy(), b, n, x)
        np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-12)
        envelope = np.zeros((n, 2), dtype=np.int64)       # each row's first nonzero; the rest is never read
        envelope[:, 0] = np.argmax(np.tril(A) != 0.0, axis=1)
        outside = np.arange(n)[None, :] < envelope[:, :1]
        A_envelope = np.where(outside | outside.T, np.nan, A)
        assert cholesky_solve(A_envelope, b, n, x, envelope)
        np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-12)
    singular = np.ones((3, 3))
    assert not cholesky_solve(singular, np.ones(3), 3, np.zeros(3))


def test_qr_and_cholesky_agree_on_the_n_four_bar_and_through_its_flat_position():
    """The truncated QR leaves out the 3 out-of-plane rows of each pivot (all 0): the same accelerations as
    Cholesky over the independent rows, and the same motion through the flat (singular) position."""
    m = n_four_bar(3)
    runs = {solver: m.simulate(t_end=2.0, rtol=1e-10, atol=1e-12, solver="DOP853", constraint_solver=solver,
                               t_eval=np.linspace(0.0, 2.0, 21)) for solver in ("cholesky", "qr")}
    assert np.min(np.abs(np.cos(runs["qr"]["a0.q"]))) < 0.2           # near or through flat
    np.testing.assert_allclose(runs["qr"]["a0.q"], runs["cholesky"]["a0.q"], atol=1e-8)
    assert np.max(runs["qr"].constraint_error) < 1e-9


def test_forward_dynamics_over_every_row_solves_the_nonzero_ones_by_cholesky(rng):
    """ms.forward_dynamics takes every row (no redundancy analysis): Cholesky over the rows whose G is not 0 (the
    in-plane ones), not the O(n^3) truncated QR over all of them, which it fell back to when the out-of-plane rows'
    zero pivots failed Cholesky. The accelerations are those of the QR and of the analysed independent rows; the
    out-of-plane rows' multipliers are 0."""
    from mechsim.dynamics.multipliers import constrained_dynamics
    m = n_four_bar(5)
    state = m.assemble()
    cm, v = m.compile(), rng.uniform(-1, 1, m.compile().nv)
    q = state.q
    qdd = ms.forward_dynamics(m, q, v)
    for active, solver in ((None, "qr"), (state.analysis.active, "cholesky")):
        data = cm.new_data(active, constraint_solver=solver)
        reference = np.empty(cm.nv)
        assert constrained_dynamics(cm.arrays, data.arrays, data.cw, q, v, np.zeros(cm.nv), reference) == OK
        np.testing.assert_allclose(qdd, reference, rtol=0, atol=1e-10 * np.abs(reference).max())
    data = cm.new_data()
    assert data.arrays.counts[HELD] == 25 and len(state.analysis.active) == 10
    lam = np.empty(cm.nv)
    assert constrained_dynamics(cm.arrays, data.arrays, data.cw, q, v, np.zeros(cm.nv), lam) == OK
    zero_rows = ~np.any(data.cw.G[:25], axis=1)
    assert zero_rows.sum() == 15 and np.all(data.cw.lam[:25][zero_rows] == 0.0)
    assert np.all(data.cw.lam[:25][~zero_rows] != 0.0)
    Lam = data.cw.Lam[:10, :10]                  # Cholesky's factor L on and below the diagonal, Lambda above it
    L, off = np.tril(Lam), ~np.eye(10, dtype=bool)
    assert np.all(np.diag(L) > 0)
    np.testing.assert_allclose((L @ L.T)[off], (np.triu(Lam, 1) + np.triu(Lam, 1).T)[off], rtol=0,
                               atol=1e-12 * np.abs(Lam).max())


def project_state(m, active, q, v, solver):
    cm = m.compile()
    data = cm.new_data(active, constraint_solver=solver, drift="projection", atol=1e-8)
    q, v = q.copy(), v.copy()
    status = project(cm.arrays, data.arrays, data.cw, None, q, v)
    h, hd, _ = constraint_values(cm, q, v)
    return status, q, v, np.abs(h).max(), np.abs(hd).max()


@pytest.mark.parametrize("model", ["n_four_bar", "bricard"])
def test_projection_over_the_independent_rows_lands_where_every_row_does(rng, model):
    """Cholesky over the active rows (the N four-bar's 80 of 200; Bricard's 4 of 5) against the truncated QR
    over every held row: both bring a state 1e-4 off back onto every row. Where the other rows are 0 (the N
    four-bar's out-of-plane ones) they land on the same state; Bricard's fifth row is dependent on the
    others only on the constraint manifold, and off it the QR counts it (rank 5) and moves further: the
    active rows' correction is the smaller in the kinetic-energy metric of the projection."""
    m = n_four_bar(40) if model == "n_four_bar" else ms.load(EXAMPLES / "bricard.yaml")
    cm = m.compile()
    res = m.simulate(t_end=0.3, t_eval=[0.3])
    q0, v0 = res.q[-1], res.v[-1]
    active = m.assemble().analysis.active                # the run's independent rows
    assert len(active) < cm.new_data(active).arrays.counts[HELD]
    for _ in range(6):
        q = q0.copy()
        integrate_coordinates(cm.node_i, q, 1e-4 * rng.standard_normal(cm.nv))
        v = v0 + 1e-4 * rng.standard_normal(cm.nv)
        fast, full = project_state(m, active, q, v, "cholesky"), project_state(m, active, q, v, "qr")
        for status, _, _, h, hd in (fast, full):
            assert status == OK
            assert h < 1e-11 and hd < 1e-9
        if model == "n_four_bar":
            np.testing.assert_allclose(fast[1], full[1], atol=1e-9)
            np.testing.assert_allclose(fast[2], full[2], atol=1e-8)
        M = ms.mass_matrix(m, q)
        step = [np.sqrt((p - q) @ M @ (p - q)) for p in (fast[1], full[1])]
        assert step[0] <= step[1] * (1 + 1e-6)
