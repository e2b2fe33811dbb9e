"""Where the constraint rows and the tree's solves are nonzero: the tables that keep the multiplier kernels
(multipliers.py) linear in the number of loops. Built once per compiled model (CompiledModel.sparsity) and only read by
the kernels, so every Data of the model shares them.

The tree's branches are the subtrees of the nodes on the base. Under a fixed base they do not couple: M is block
diagonal over them, and M^-1 tau is 0 off the branches tau loads. A geometric row's Jacobian is w^T (J_b - J_a)
(constraints.py add_path_jacobian): nonzero only on the joints of its two nodes' paths to the root, each path inside
one branch, so a row loads two branches at most. A coordinate row loads its coordinates' branches; a polynomial
coupling its terms'. With a spanning tree that keeps loops apart (the N four-bar's cranks each on the ground) a row
touches a few columns of G and a few rows of X = M^-1 G^T, however many loops the machine has.
"""
from collections import namedtuple

import numpy as np

from .layout import KA, KB, NODE_A, NODE_B, PARENT, POLY_NX, POLY_NY, POLY_TERMS, ROW_COORD, ROW_POLY, ROW_TYPE, VI

# tree_order: the nodes grouped by branch, parents first; branch_span (nodes, 2): each branch's [start, end) in it,
# by the branch's first node; v_branch (nv): the branch of each velocity coordinate; branch_cols: the velocity
# coordinates grouped by branch, branch_col_span (nodes, 2) each branch's [start, end) in it.
# row_cols (rows, 1 + width): per constraint row its count of columns where G may be nonzero, then those columns;
# row_branches (rows, 1 + width): its count of branches, then those branches (the branches of its columns).
Sparsity = namedtuple("Sparsity", "tree_order branch_span v_branch branch_cols branch_col_span row_cols row_branches")


def sparsity_of(node_i, nv, con_i, con_f):
    """The Sparsity of the tree ``node_i`` (layout.py, nodes in the order of their velocity coordinates) with ``nv``
    velocity coordinates and the constraint rows con_i, con_f."""
    n = node_i.shape[0]
    branch = np.arange(n, dtype=np.int64)
    for i in range(n):                                    # parents come first
        if node_i[i, PARENT] >= 0:
            branch[i] = branch[node_i[i, PARENT]]
    tree_order = np.argsort(branch, kind="stable").astype(np.int64)
    columns = [range(node_i[i, VI], end) for i, end in enumerate(np.append(node_i[1:, VI], nv).astype(int))]
    v_branch = np.zeros(nv, dtype=np.int64)
    for i in range(n):
        v_branch[columns[i]] = branch[i]
    branch_cols = np.argsort(v_branch, kind="stable").astype(np.int64)
    row_columns = [_row_columns(node_i, columns, con_i[r], con_f[r]) for r in range(con_i.shape[0])]
    return Sparsity(tree_order, _spans(branch[tree_order], n), v_branch, branch_cols, _spans(v_branch[branch_cols], n),
                    _counted(row_columns), _counted([np.unique(v_branch[c]) for c in row_columns]))


def _row_columns(node_i, columns, con_i, con_f):
    """The columns of a constraint row's G that may be nonzero (constraints.py evaluate_row), sorted."""
    kind, na, nb = con_i[ROW_TYPE], con_i[NODE_A], con_i[NODE_B]
    if kind == ROW_COORD:
        cols = [node_i[na, VI] + int(con_f[KA])] + ([node_i[nb, VI] + int(con_f[KB])] if nb >= 0 else [])
    elif kind == ROW_POLY:
        terms = int(con_f[POLY_NY]) + int(con_f[POLY_NX])
        cols = [int(con_f[POLY_TERMS + 3 * k + 1]) for k in range(terms)]
    else:
        cols = [c for node in (na, nb) for c in _path_columns(node_i, columns, node)]
    return np.unique(np.array(cols, dtype=np.int64))


def _path_columns(node_i, columns, node):
    """The velocity coordinates of the joints on ``node``'s path to the root (none for the ground, -1)."""
    while node >= 0:
        yield from columns[node]
        node = node_i[node, PARENT]


def _spans(sorted_keys, n):
    """(n, 2): for each key 0 .. n - 1 its [start, end) in ``sorted_keys`` (empty where it does not occur)."""
    keys = np.arange(n)
    return np.stack([np.searchsorted(sorted_keys, keys, "left"), np.searchsorted(sorted_keys, keys, "right")],
                    axis=1).astype(np.int64)


def _counted(lists):
    """The lists as one table, a row each: its length, then its entries."""
    table = np.zeros((len(lists), 1 + max((len(e) for e in lists), default=0)), dtype=np.int64)
    for k, entries in enumerate(lists):
        table[k, 0] = len(entries)
        table[k, 1:1 + len(entries)] = entries
    return table
