"""Where the constraint rows and the tree's solves are nonzero (dynamics/sparsity.py), on which the multiplier kernels
stay linear in the number of loops: the tables against the model's own Jacobian, one set per compiled model shared by
every Data (a hybrid run makes a Data per mode), and the sparse kernels against dense linear algebra."""
from pathlib import Path

import numpy as np

import mechsim as ms
from mechsim.bench.loops import N_FOUR_BAR
from mechsim.bench.models import n_four_bar
from mechsim.dynamics.kernels import aba
from mechsim.dynamics.layout import PARENT
from mechsim.dynamics.projection import constraint_state

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_branches_of_the_five_bar_are_its_three_cranks():
    # three cranks hinged to the ground, the coupler on the first: three branches, the coupler in crank 1's
    cm = ms.load(EXAMPLES / "five_bar.yaml").compile()
    s = cm.sparsity
    roots = [i for i in range(cm.n_nodes) if cm.node_i[i, PARENT] < 0]
    assert len(roots) == 3
    sizes = sorted(int(s.branch_span[b, 1] - s.branch_span[b, 0]) for b in roots)
    assert sizes == [1, 1, 2] and sorted(s.tree_order.tolist()) == list(range(cm.n_nodes))
    assert sorted(np.unique(s.v_branch).tolist()) == sorted(roots)
    for b in roots:                                       # each branch's velocity coordinates
        columns = s.branch_cols[s.branch_col_span[b, 0]:s.branch_col_span[b, 1]]
        assert sorted(columns.tolist()) == np.flatnonzero(s.v_branch == b).tolist()


def evaluated(m, q, v):
    """The compiled model of m and a Data with every constraint row evaluated at (q, v): cw.G, cw.gamma."""
    cm = m.compile()
    data = cm.new_data()
    constraint_state(cm.arrays, data.arrays, data.cw, q, v, np.arange(cm.n_rows, dtype=np.int64))
    return cm, data


def test_every_row_is_zero_off_its_columns_and_loads_only_its_branches():
    for m in (ms.load(EXAMPLES / "five_bar.yaml"), n_four_bar(dict(N_FOUR_BAR, n=6))):
        rng = np.random.default_rng(1)
        cm = m.compile()
        cm, data = evaluated(m, rng.uniform(-1, 1, cm.nq), rng.uniform(-1, 1, cm.nv))
        s, G = cm.sparsity, data.cw.G
        for row in range(cm.n_rows):
            cols = s.row_cols[row, 1:1 + s.row_cols[row, 0]]
            assert not np.any(np.delete(G[row], cols)), row
            branches = s.row_branches[row, 1:1 + s.row_branches[row, 0]]
            assert branches.tolist() == sorted(set(s.v_branch[cols].tolist()))
            assert len(branches) <= 2                     # two nodes' paths to the root, one branch each


def test_the_accelerations_of_the_n_four_bar_equal_dense_linear_algebra():
    # qdd = qdd_free + M^-1 G^T lambda, G M^-1 G^T lambda = gamma - G qdd_free (Wood & Kennedy 2003, eqs. 11-14) in
    # numpy on the mass matrix, at a state off the motion (every row and the bias count) of 12 loops, twice: the
    # second call reuses the columns of X the first wrote (constraint_jacobian_solves clears only their branches)
    m = n_four_bar(dict(N_FOUR_BAR, n=12))
    state = m.assemble()
    rng = np.random.default_rng(2)
    q, v = state.q + 0.01 * rng.standard_normal(state.q.size), rng.standard_normal(state.v.size)
    cm, data = evaluated(m, q, v)
    G, gamma = data.cw.G.copy(), data.cw.gamma.copy()
    free = np.zeros(cm.nv)
    aba(cm.arrays, data.arrays, q, v, np.zeros(cm.nv), free)
    live = np.flatnonzero(np.any(G != 0.0, axis=1))       # the planar loops' in-plane rows
    assert live.size == 2 * 12
    X = np.linalg.solve(ms.mass_matrix(m, q), G[live].T)
    expected = free + X @ np.linalg.solve(G[live] @ X, gamma[live] - G[live] @ free)
    for _ in range(2):
        qdd = ms.forward_dynamics(m, q, v)
        assert np.allclose(qdd, expected, rtol=0, atol=1e-10 * np.abs(expected).max())


def test_every_data_of_a_model_shares_its_sparsity_tables():
    cm = ms.load(EXAMPLES / "five_bar.yaml").compile()
    first, second = cm.new_data(), cm.new_data(drift="stabilization")
    for name, table in cm.sparsity._asdict().items():
        assert getattr(first.cw, name) is table and getattr(second.cw, name) is table, name
    assert first.cw.x_row is not second.cw.x_row and first.cw.envelope is not second.cw.envelope   # scratch per Data
