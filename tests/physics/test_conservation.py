"""Conservation laws: energy of conservative chains (gravity and joint springs), momentum of a
torque-free body, the intermediate-axis (Dzhanibekov) flip, unit quaternions."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mechsim as ms


@pytest.fixture
def energy_of(phys):
    def check(m, res, springs=None, tol=1e-6):
        T, E = phys.total_energy(m, res, springs)
        scale = np.max(T)
        assert scale > 0.1, "the run hardly moves: the check would be empty"
        drift = np.max(np.abs(E - E[0])) / scale
        assert drift < tol, f"energy drifted by {drift:.3g} of the peak kinetic energy"
        return T, E
    return check


def test_energy_five_link_chain_mixed_axes(phys, energy_of):
    m = phys.chain_mixed_revolute(5)
    res = m.simulate(t_end=2.0, t_eval=np.linspace(0, 2, 81), **phys.TIGHT)
    T, E = energy_of(m, res)
    # the potential energy does change a lot: the check is not trivially satisfied by T alone
    V = E - T
    assert np.ptp(V) > 0.2 * np.max(T)


def test_energy_chain_with_spherical_and_universal_joints(phys, energy_of):
    m = phys.chain_spherical_universal()
    res = m.simulate(t_end=2.0, t_eval=np.linspace(0, 2, 81), **phys.TIGHT)
    energy_of(m, res)


def test_energy_gimbal_and_bushing_with_springs(phys, energy_of):
    m, springs = phys.gimbal_bushing_springs()
    res = m.simulate(t_end=2.0, t_eval=np.linspace(0, 2, 81), **phys.TIGHT)
    T, E = energy_of(m, res, springs)
    # the springs store a real share of the energy: leaving them out breaks conservation
    Vs = phys.spring_potential(res, springs)
    assert np.ptp(Vs) > 0.05 * np.max(T)


def test_energy_point_to_point_springs_between_moving_bodies(phys, energy_of):
    """spring_damper elements between two moving bodies and from ground: their potential
    1/2 k (l - l0)^2 from the two attachment points completes the energy balance."""
    m = phys.chain_mixed_revolute(3)
    springs = [("s1", "l0", (0.1, 0.05, 0.0), "l2", (0.2, 0.0, 0.03), 30.0, 0.25),
               ("s2", "ground", (0.3, -0.2, 0.4), "l1", (0.25, 0.0, 0.0), 20.0, 0.4)]
    for name, a, pa, b, pb, k, l0 in springs:
        m.add_force(name, "spring_damper", body_a=a, point_a=pa, body_b=b, point_b=pb, stiffness=k, rest_length=l0)
    res = m.simulate(t_end=2.0, t_eval=np.linspace(0, 2, 81), **phys.TIGHT)
    T, E = phys.total_energy(m, res)
    Vs = sum(0.5 * k * (np.linalg.norm(res.point(b, pb) - res.point(a, pa), axis=1) - l0) ** 2
             for _, a, pa, b, pb, k, l0 in springs)
    E = E + Vs
    assert np.ptp(Vs) > 0.05 * np.max(T)
    assert np.max(np.abs(E - E[0])) < 1e-6 * np.max(T)


def test_spring_damper_dissipates(phys):
    """With damping the energy only goes down."""
    m, springs = phys.gimbal_bushing_springs()
    m.add_force("c", "joint_spring_damper", joint="bush", stiffness=0.0, damping=0.5)
    res = m.simulate(t_end=1.0, t_eval=np.linspace(0, 1, 41), **phys.TIGHT)
    _, E = phys.total_energy(m, res, springs)
    assert np.all(np.diff(E) < 1e-9)
    assert E[-1] < E[0] - 1e-3


# ----------------------------------------------------------------------------- free rigid body
INERTIA_PRINCIPAL = np.array([1.0, 2.0, 3.0])          # intermediate axis: the second
R0 = Rotation.from_euler("xyz", [0.3, -0.5, 0.8]).as_matrix()     # principal axes in the body frame
J_BODY = R0 @ np.diag(INERTIA_PRINCIPAL) @ R0.T
MASS, COM = 2.5, np.array([0.2, -0.1, 0.15])


def free_body(omega_principal, t_end, n=301):
    """A torque-free body (free joint, no gravity, parent/child frames offset and turned) spinning
    about its principal axes with omega_principal, its COM drifting."""
    m = ms.Model("dzhanibekov", gravity=(0, 0, 0))
    Ixx, Iyy, Izz = np.diag(J_BODY)
    m.add_body("b", mass=MASS, com=COM, inertia=(Ixx, Iyy, Izz, J_BODY[0, 1], J_BODY[0, 2], J_BODY[1, 2]))
    RM = Rotation.from_euler("xyz", [0.1, 0.2, -0.3]).as_matrix()
    # angular velocity in M: the body's omega R0 w_p expressed in M axes
    w_M = RM.T @ (R0 @ omega_principal)
    m.add_joint("f", "free", parent="ground", child="b",
                parent_frame=((0.5, -0.2, 1.0), Rotation.from_euler("xyz", [0.4, 0.0, 0.7]).as_matrix()),
                child_frame=((0.05, 0.1, -0.02), RM), q0=[0.1, 0.2, 0.3, 1.0, 0.0, 0.0, 0.0],
                v0=[0.3, -0.2, 0.1, *w_M])
    res = m.simulate(t_end=t_end, t_eval=np.linspace(0, t_end, n), solver="DOP853", rtol=1e-10, atol=1e-12)
    return m, res


def momenta(res):
    R, w = res["b.rotation"], res["b.omega"]
    c = res["b.position"] + np.einsum("nij,j->ni", R, COM)
    cdot = res["b.velocity"] + np.cross(w, c - res["b.position"])
    J_world = R @ J_BODY @ np.transpose(R, (0, 2, 1))
    L = np.einsum("nij,nj->ni", J_world, w) + MASS * np.cross(c, cdot)
    return L, MASS * cdot, c


@pytest.fixture(scope="module")
def tumbling():
    return free_body(np.array([0.01, 2.0, 0.01]), t_end=12.0)


def test_torque_free_body_conserves_angular_momentum(tumbling):
    m, res = tumbling
    L, p, _ = momenta(res)
    assert np.linalg.norm(L[0]) > 1.0
    np.testing.assert_allclose(L, np.broadcast_to(L[0], L.shape), rtol=0, atol=1e-8 * np.linalg.norm(L[0]))


def test_torque_free_body_conserves_linear_momentum(tumbling):
    m, res = tumbling
    L, p, c = momenta(res)
    np.testing.assert_allclose(p, np.broadcast_to(p[0], p.shape), rtol=0, atol=1e-8 * np.linalg.norm(p[0]))
    # and the COM moves in a straight line at that speed
    np.testing.assert_allclose(c, c[0] + np.outer(res.t, p[0] / MASS), atol=1e-8)


def test_torque_free_body_conserves_energy(tumbling):
    m, res = tumbling
    T = np.array([0.5 * v @ ms.mass_matrix(m, q) @ v for q, v in zip(res.q, res.v)])
    np.testing.assert_allclose(T, T[0], rtol=1e-8)


def test_intermediate_axis_flip_happens(tumbling):
    """Spin about the intermediate principal axis is unstable: its body-axis component changes sign,
    while the components about the major and minor axes stay small if spun about them."""
    m, res = tumbling
    R, w = res["b.rotation"], res["b.omega"]
    w_principal = np.einsum("ji,nj->ni", R0, np.einsum("nji,nj->ni", R, w))   # R0^T R^T w
    w2 = w_principal[:, 1]
    assert w2[0] == pytest.approx(2.0, rel=1e-9)
    assert np.min(w2) < -1.5, "the spin about the intermediate axis never flipped"
    assert np.any(np.diff(np.sign(w2)) != 0)


@pytest.mark.parametrize("axis", [0, 2])
def test_major_and_minor_axis_spin_is_stable(axis):
    w = np.full(3, 0.01)
    w[axis] = 2.0
    _, res = free_body(w, t_end=12.0, n=121)
    R = res["b.rotation"]
    w_principal = np.einsum("ji,nj->ni", R0, np.einsum("nji,nj->ni", R, res["b.omega"]))
    assert np.min(w_principal[:, axis]) > 1.9


# ----------------------------------------------------------------------------- quaternions
def test_spherical_pendulum_quaternion_stays_unit(phys, energy_of):
    m = ms.Model("sph", gravity=(0, 0, -9.81))
    m.add_body("bob", mass=1.0, com=(0.0, 0.0, -0.5), inertia=(0.02, 0.015, 0.01))
    m.add_joint("ball", "spherical", parent="ground", child="bob", q0={"euler": [1.0, 0.4, 0.0], "seq": "xyz"},
                v0=(0.0, 0.5, 6.0))
    res = m.simulate(t_end=3.0, t_eval=np.linspace(0, 3, 151), **phys.TIGHT)
    q = res["ball.q"]
    assert q.shape == (151, 4)
    np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1.0, rtol=0, atol=1e-12)
    # the rotation reported for the body is the one of the (scalar-first) quaternion
    Rq = Rotation.from_quat(q[:, [1, 2, 3, 0]]).as_matrix()
    np.testing.assert_allclose(res["bob.rotation"], Rq, atol=1e-12)
    energy_of(m, res)
    # gravity exerts no torque about the vertical through the pivot: L_z is conserved
    R, w = res["bob.rotation"], res["bob.omega"]
    J = np.diag([0.02, 0.015, 0.01])
    c = res.point("bob", (0, 0, -0.5))
    cdot = np.cross(w, c)
    Lz = np.einsum("nij,jk,nlk,nl->ni", R, J, R, w)[:, 2] + np.cross(c, cdot)[:, 2]
    np.testing.assert_allclose(Lz, Lz[0], rtol=0, atol=1e-8 * abs(Lz[0]) + 1e-12)
    assert abs(Lz[0]) > 0.01
