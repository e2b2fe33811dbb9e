"""Redundancy analysis (src/mechsim/assembly/redundancy.py, Wood & Kennedy 2003 §3.6): the numerical
rank and its tolerance on matrices of known rank, and the rank, redundant rows and DOF of mechanisms
whose mobility is known independently: a single loop of revolute joints by the rank of its joint
screws, two-loop planar linkages by Grübler's count and the parallelogram exception to it. (The
seed four-bar's count through check() and the Bricard example file are tests/dynamics and
tests/examples.)"""
import numpy as np
import pytest

import mechsim as ms
from mechsim.assembly.redundancy import RANK_TOL, analyse, numerical_rank
from mechsim.dynamics.api import constraint_values

RNG = np.random.default_rng(3)


# ----------------------------------------------------------------------------- numerical rank
@pytest.mark.parametrize("shape, rank", [((7, 5), 3), ((4, 9), 4), ((6, 6), 1), ((5, 5), 5)])
def test_numerical_rank_of_products_of_known_rank(shape, rank):
    A = RNG.normal(size=(shape[0], rank)) @ RNG.normal(size=(rank, shape[1]))     # rank exactly ``rank``
    found, perm = numerical_rank(A)
    assert found == rank
    assert sorted(perm) == list(range(shape[1]))                                    # a column permutation
    assert np.linalg.matrix_rank(A[:, perm[:rank]]) == rank                          # pivots independent


def test_numerical_rank_tolerance_is_relative_to_the_largest_pivot():
    # a column that differs from another by 1e-12 of the matrix's scale is the same column to the
    # analysis (below RANK_TOL = 1e-9); by 1e-6 it is a new one. Scaling the matrix changes nothing.
    a, b = RNG.normal(size=(2, 6))
    for scale in (1e-6, 1.0, 1e6):
        assert numerical_rank(scale * np.c_[a, b, a + 1e-12 * b])[0] == 2
        assert numerical_rank(scale * np.c_[a, b, a + 1e-6 * RNG.normal(size=6)])[0] == 3
    assert RANK_TOL == 1e-9
    assert numerical_rank(np.zeros((0, 3)))[0] == 0
    assert numerical_rank(np.zeros((3, 2)))[0] == 0


# ----------------------------------------------------------------------------- single loops
def analysis(m):
    """The analysis at q0 (the models below are built closed): (Analysis, G)."""
    cm = m.compile()
    h, _, G = constraint_values(cm, cm.q0, cm.v0)
    assert np.abs(h).max() < 1e-12                          # really closed at q0
    return analyse(cm, G), G


def rod(m, name, tip):
    m.add_body(name, mass=1.0, com=tuple(0.5 * np.asarray(tip)), inertia=(0.1, 0.1, 0.1), frames={"tip": tip})


def revolute_loop(points, axes):
    """A loop of len(points) revolute joints at the world points with the world axes: rods from each
    point to the next, all body frames aligned with world at q = 0; the last joint (back to ground)
    is the cut joint."""
    m = ms.Model("loop", gravity=(0, -9.81, 0))
    n = len(points)
    for k in range(n - 1):
        rod(m, f"r{k + 1}", tuple(np.subtract(points[k + 1], points[k])))
    m.add_joint("j1", "revolute", "ground", "r1", parent_frame=tuple(points[0]), axis=tuple(axes[0]))
    for k in range(1, n - 1):
        m.add_joint(f"j{k + 1}", "revolute", f"r{k}", f"r{k + 1}", parent_frame="tip", axis=tuple(axes[k]))
    m.add_joint(f"j{n}", "revolute", "ground", f"r{n - 1}", parent_frame=tuple(points[-1]), child_frame="tip",
                axis=tuple(axes[-1]), cut=True)
    return m


def screw_rank(points, axes):
    """Rank of the joint screws [a; p x a] (Plücker lines of the axes): the loop's velocity closure is
    sum qdot_k S_k = 0, so its mobility is n - rank."""
    S = np.array([np.r_[a, np.cross(p, a)] for p, a in zip(np.asarray(points, float), np.asarray(axes, float))]).T
    return np.linalg.matrix_rank(S, tol=1e-9)


X, Y, Z = (1, 0, 0), (0, 1, 0), (0, 0, 1)
FOUR_BAR = ([(0, 0, 0), (0, 1, 0), (3.2, 1.5, 0), (3, 0, 0)], [Z, Z, Z, Z])
# Bricard's line-symmetric 6R loop (IFToMM benchmark A04, examples/bricard.yaml): Grübler says 0 DOF
BRICARD = ([(0, 0, 0), (1, 0, 0), (1, -1, 0), (1, -1, 1), (0, -1, 1), (0, 0, 1)], [Y, Z, X, Y, Z, X])
# the same loop with the third axis tilted: a generic 6R loop, rigid
TILTED = (BRICARD[0], [Y, Z, tuple(np.array([1, 0.3, 0.2]) / np.linalg.norm([1, 0.3, 0.2])), Y, Z, X])


@pytest.mark.parametrize("loop, dof, redundant", [(FOUR_BAR, 1, 3), (BRICARD, 1, 1), (TILTED, 0, 0)],
                         ids=["planar four-bar", "Bricard", "tilted Bricard"])
def test_single_revolute_loop_mobility_is_joints_minus_screw_rank(loop, dof, redundant):
    # n joints, the cut one gives 5 rows on n - 1 tree coordinates: rank = (n - 1) - dof and the
    # redundant rows 5 - rank; the independent count is dof = n - rank of the screws
    points, axes = loop
    n = len(points)
    assert n - screw_rank(points, axes) == dof                  # the known answer, from the screws
    result, G = analysis(revolute_loop(points, axes))
    assert (result.dof, result.rank, len(result.redundant)) == (dof, n - 1 - dof, redundant)
    assert all(label.startswith(f"j{n}[") for label in result.redundant)    # the cut joint's rows
    # the active rows are independent and span every row: dropping the redundant ones loses nothing
    assert np.linalg.matrix_rank(G[result.active]) == len(result.active) == np.linalg.matrix_rank(G)


# ----------------------------------------------------------------------------- two loops
def three_cranks(third_pivot=4.0, theta=1.1):
    """Three cranks on ground pivots (0, 0), (2, 0), (third_pivot, 0) carrying one rigid coupler at its
    points 0, 2 and 4 m; the first two cranks 1 m long at angle theta (a parallelogram), the third
    reaching from its pivot to the coupler's third point (a parallelogram too if third_pivot = 4)."""
    m = ms.Model("three cranks", gravity=(0, -9.81, 0))
    c = np.array([np.cos(theta), np.sin(theta), 0.0])
    reach = np.array([4.0, 0, 0]) + c - np.array([third_pivot, 0, 0])
    third, angle = np.linalg.norm(reach), np.arctan2(reach[1], reach[0])
    for name, length in (("c1", 1.0), ("c2", 1.0), ("c3", third)):
        rod(m, name, (length, 0, 0))
    m.add_body("coupler", mass=1.0, com=(2, 0, 0), inertia=(0.1, 1, 1), frames={"p2": (2, 0, 0), "p3": (4, 0, 0)})
    m.add_joint("j1", "revolute", "ground", "c1", q0=theta)
    m.add_joint("jc", "revolute", "c1", "coupler", parent_frame="tip", q0=-theta)
    m.add_joint("j2", "revolute", "ground", "c2", parent_frame=(2, 0, 0), q0=theta)
    m.add_joint("j3", "revolute", "ground", "c3", parent_frame=(third_pivot, 0, 0), q0=angle)
    m.add_joint("k2", "revolute", "c2", "coupler", parent_frame="tip", child_frame="p2", cut=True)
    m.add_joint("k3", "revolute", "c3", "coupler", parent_frame="tip", child_frame="p3", cut=True)
    return m


def test_double_parallelogram_moves_although_grubler_says_it_is_rigid():
    # planar Grübler: 3 (5 - 1) - 2 * 6 = 0 DOF; with three equal parallel cranks the coupler still
    # translates on a circle: 1 DOF. Rows: 2 revolute cuts x 5 = 10 on 4 tree coordinates; in plane
    # 4 rows of rank 3, out of plane 6 rows with zero gradient: rank 3, 7 redundant
    result, _ = analysis(three_cranks())
    assert (result.dof, result.rank, len(result.redundant)) == (1, 3, 7)
    assert all(label[:3] in ("k2[", "k3[") for label in result.redundant)


def test_generic_third_crank_makes_the_linkage_rigid():
    # the third crank on another pivot: Grübler's 0 DOF holds; only the 6 out-of-plane rows are redundant
    result, _ = analysis(three_cranks(third_pivot=4.5))
    assert (result.dof, result.rank, len(result.redundant)) == (0, 4, 6)


def test_driver_counts_against_the_mobility():
    # the parallelogram's one DOF can be driven (rank 4, 0 DOF left, the driver row active); the rigid
    # linkage has nothing left to drive: the driver is inconsistent
    m = three_cranks()
    m.add_driver("j1", position="1.1 + t")
    result, _ = analysis(m)
    assert (result.dof, result.rank) == (0, 4)
    assert m.compile().rows.owner[result.active[-1]][0] == "driver"
    rigid = three_cranks(third_pivot=4.5)
    rigid.add_driver("j1", position="1.1 + t", name="crank drive")
    with pytest.raises(ms.ModelError, match="driver 'crank drive' on joint 'j1' is inconsistent"):
        analysis(rigid)
