"""The tree's branches (multipliers.tree_branches), on which aba_solve restricts a constraint row's M^-1 solve:
their tables, and one set per compiled model shared by every Data (a hybrid run makes a Data per mode)."""
from pathlib import Path

import numpy as np

import mechsim as ms
from mechsim.dynamics.layout import PARENT
from mechsim.dynamics.multipliers import tree_branches

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_branches_of_the_five_bar_are_its_three_cranks():
    # three cranks hinged to the ground, the coupler on the first: three branches, the coupler in crank 1's
    cm = ms.load(EXAMPLES / "five_bar.yaml").compile()
    tree_order, branch_span, v_branch = tree_branches(cm.node_i, cm.nv)
    roots = [i for i in range(cm.n_nodes) if cm.node_i[i, PARENT] < 0]
    assert len(roots) == 3
    sizes = sorted(int(branch_span[b, 1] - branch_span[b, 0]) for b in roots)
    assert sizes == [1, 1, 2] and sorted(tree_order.tolist()) == list(range(cm.n_nodes))
    assert sorted(np.unique(v_branch).tolist()) == sorted(roots)


def test_every_data_of_a_model_shares_its_branch_tables():
    cm = ms.load(EXAMPLES / "five_bar.yaml").compile()
    first, second = cm.new_data(), cm.new_data(drift="stabilization")
    for a, b, made in zip((first.cw.tree_order, first.cw.branch_span, first.cw.v_branch),
                          (second.cw.tree_order, second.cw.branch_span, second.cw.v_branch),
                          tree_branches(cm.node_i, cm.nv)):
        assert a is b and np.array_equal(a, made)
    assert first.cw.touched is not second.cw.touched           # aba_solve's scratch stays per Data
