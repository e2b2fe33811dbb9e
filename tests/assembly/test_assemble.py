"""Assembly (src/mechsim/assembly/assemble.py): from a perturbed guess onto the constraints, checked
by hand-written loop geometry rather than by mechsim's own residuals; velocities tangent to the
constraints; the documented ModelError when a mechanism cannot close. (The crank held while the rest
assembles is tests/dynamics/test_constraints.py.)"""
import re

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mechsim as ms
from mechsim.assembly.assemble import assemble
from mechsim.dynamics.api import constraint_values

# Khan, Tang & Krovi's four-bar: ground A = (0, 0), D = (L0, 0); crank AB, coupler BC, rocker DC
L0, L1, L2, L3 = 3.0, 1.0, 4.0, 2.5
THETA, ALPHA, PHI = 1.5708, 0.35328124609377530, 1.2648595635335869     # a closed configuration


def four_bar(lengths=(L0, L1, L2, L3), q=(THETA, ALPHA - THETA, PHI), v=(0.0, 0.0, 0.0)):
    l0, l1, l2, l3 = lengths
    m = ms.Model("four-bar", gravity=(0, -9.81, 0))
    for name, length in (("crank", l1), ("coupler", l2), ("rocker", l3)):
        m.add_body(name, mass=1.0, com=(length / 2, 0, 0), inertia=(0, length ** 2 / 12, length ** 2 / 12),
                   frames={"tip": (length, 0, 0)})
    m.add_joint("j1", "revolute", "ground", "crank", q0=q[0], v0=v[0])
    m.add_joint("j2", "revolute", "crank", "coupler", parent_frame="tip", q0=q[1], v0=v[1])
    m.add_joint("j4", "revolute", "ground", "rocker", parent_frame=(l0, 0, 0), q0=q[2], v0=v[2])
    m.add_joint("j3", "revolute", "coupler", "rocker", parent_frame="tip", child_frame="tip", cut=True)
    return m


def loop_gap(state):
    """C reached through crank and coupler minus C reached through the rocker (planar, by hand)."""
    theta, alpha, phi = state["j1.q"], state["j1.q"] + state["j2.q"], state["j4.q"]
    c_left = L1 * np.array([np.cos(theta), np.sin(theta)]) + L2 * np.array([np.cos(alpha), np.sin(alpha)])
    return c_left - (np.array([L0, 0.0]) + L3 * np.array([np.cos(phi), np.sin(phi)]))


def loop_gap_rate(state):
    """d/dt of loop_gap: each link tip moves at its absolute angular rate times its length, normal to it."""
    theta, alpha, phi = state["j1.q"], state["j1.q"] + state["j2.q"], state["j4.q"]
    wt, wa, wp = state["j1.v"], state["j1.v"] + state["j2.v"], state["j4.v"]
    normal = lambda a: np.array([-np.sin(a), np.cos(a)])
    return L1 * wt * normal(theta) + L2 * wa * normal(alpha) - L3 * wp * normal(phi)


def test_four_bar_assembles_from_a_perturbed_guess_near_the_guess():
    guess = np.array([THETA, ALPHA - THETA, PHI]) + np.array([0.04, -0.05, 0.03])
    m = four_bar(q=guess)
    assert np.abs(loop_gap(m.initial_state())).max() > 0.05           # really open before
    state = m.assemble()
    assert np.abs(loop_gap(state)).max() < 1e-12
    # every assembled joint angle is also closed out of plane: the 3D residuals of the cut joint vanish
    h, _, _ = constraint_values(m.compile(), state.q, state.v)
    assert np.abs(h).max() < 1e-12
    # minimum-norm steps: the move from the guess is (to first order) normal to the manifold, i.e.
    # orthogonal to the loop's one free motion, whose direction is the null vector of the planar
    # closure Jacobian d(gap)/d(j1, j2, j4)
    q = np.array([state["j1.q"], state["j2.q"], state["j4.q"]])
    step = q - guess
    J = np.empty((2, 3))
    for k in range(3):                 # the Jacobian by central differences of the hand geometry
        e = np.zeros(3)
        e[k] = 1e-6
        up, down = four_bar(q=q + e).initial_state(), four_bar(q=q - e).initial_state()
        J[:, k] = (loop_gap(up) - loop_gap(down)) / 2e-6
    tangent = np.linalg.svd(J)[2][-1]
    assert abs(tangent @ step) < 0.05 * np.linalg.norm(step)
    # and no branch jump: no farther than the known closed configuration
    assert np.linalg.norm(step) <= np.linalg.norm(np.array([THETA, ALPHA - THETA, PHI]) - guess)


def test_assembled_velocities_are_tangent_with_the_held_rate_kept():
    m = four_bar(v=(0.7, 3.0, -1.0))                    # arbitrary, inconsistent rates
    assert np.abs(loop_gap_rate(m.initial_state())).max() > 1.0
    state = m.assemble(fixed={"j1.v": 2.0})
    assert state["j1.v"] == 2.0
    assert np.abs(loop_gap_rate(state)).max() < 1e-12
    np.testing.assert_allclose([state["j1.q"], state["j4.q"]], [THETA, PHI], atol=1e-9)   # positions untouched


def test_a_loop_too_short_to_close_names_the_loop_and_the_miss():
    # crank 1 + coupler 0.5 reach 1.5 from A, the rocker 1 from D: the nearest they get is stretched
    # out along the ground line, |gap| = 3 - 1.5 - 1 = 0.5. The message gives the largest of the gap's
    # components (two in plane): between 0.5 / sqrt(2) and 0.5 at that best configuration
    m = four_bar(lengths=(3.0, 1.0, 0.5, 1.0), q=(0.3, 0.2, 2.5))
    with pytest.raises(ms.ModelError, match=r"cannot assemble the loop j1 -> j2 -> j3 -> j4 \(closed by cut joint "
                                            r"'j3'\): it misses closing by ([0-9.]+) \(equation j3\[") as error:
        m.assemble()
    miss = float(re.search(r"misses closing by ([0-9.]+)", str(error.value)).group(1))
    assert 0.5 / np.sqrt(2) <= miss <= 0.5 + 1e-3


def test_held_coordinates_that_leave_no_way_to_close_are_reported():
    # one DOF, two angles held at values of different configurations
    with pytest.raises(ms.ModelError, match="cannot assemble the loop j1 -> j2 -> j3 -> j4"):
        four_bar().assemble(fixed={"j1.q": THETA, "j4.q": PHI + 0.5})


def test_an_unreachable_constraint_is_named():
    # a 1 m pendulum's tip is 1 to 3 m from the point (0, 2, 0): a 3.5 m distance misses by 0.5
    m = ms.Model("p", gravity=(0, -9.81, 0))
    m.add_body("rod", mass=1.0, com=(0.5, 0, 0), inertia=(0, 1 / 12, 1 / 12))
    m.add_joint("j", "revolute", "ground", "rod", q0=0.2)
    m.add_constraint("rope", "distance", body_a="ground", point_a=(0, 2, 0), body_b="rod", point_b=(1, 0, 0),
                     length=3.5)
    with pytest.raises(ms.ModelError, match=r"cannot assemble: constraint 'rope' cannot be satisfied \(residual 0\.5\)"):
        m.assemble()


def test_spherical_joint_assembles_with_a_unit_quaternion():
    # a body on a ball joint at the origin, its point (1, 0, 0) held 1.2 m from (0, 0, 1.5): a circle
    # of solutions; from a turned, non-unit quaternion guess the result is on it, with |q| = 1
    m = ms.Model("ball", gravity=(0, 0, -9.81))
    m.add_body("b", mass=1.0, inertia=(0.1, 0.1, 0.1))
    m.add_joint("s", "spherical", "ground", "b", q0=(2.0, 0.2, 0.4, -0.6))
    m.add_constraint("rope", "distance", body_a="ground", point_a=(0, 0, 1.5), body_b="b", point_b=(1, 0, 0),
                     length=1.2)
    state = m.assemble()
    quat = state.q[m.compile().joint_q["s"]]
    assert abs(np.linalg.norm(quat) - 1) < 1e-14
    tip = Rotation.from_quat(np.r_[quat[1:], quat[0]]).apply([1.0, 0.0, 0.0])
    assert abs(np.linalg.norm(tip - [0, 0, 1.5]) - 1.2) < 1e-12


def test_a_model_without_constraints_is_left_as_it_is():
    m = ms.Model("p")
    m.add_body("rod", mass=1.0, com=(0.5, 0, 0), inertia=(0, 1 / 12, 1 / 12))
    m.add_joint("j", "revolute", "ground", "rod", q0=0.3, v0=-2.0)
    state = assemble(m, fixed=["j"])
    assert (state["j.q"], state["j.v"]) == (0.3, -2.0) and state.analysis is None
