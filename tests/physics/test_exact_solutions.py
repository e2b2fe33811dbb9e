"""Simulations against closed-form solutions: pendulums (harmonic and elliptic), mass-spring(-damper)
on a prismatic joint, screw joint kinematics and dynamics, constant joint and body forces."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.special import ellipj, ellipk

import mechsim as ms


def elliptic_pendulum(theta0, omega0, t):
    """Exact large-amplitude pendulum released from rest: 2 asin(k sn(K - w t, k)), k = sin(theta0/2)."""
    k = np.sin(theta0 / 2)
    sn, _, _, _ = ellipj(ellipk(k * k) - omega0 * t, k * k)     # scipy takes the parameter m = k^2
    return 2 * np.arcsin(k * sn)


# ----------------------------------------------------------------------------- pendulums
def test_small_amplitude_pendulum_is_harmonic(phys):
    g, L, th0 = 9.81, 0.8, 1e-3
    m = phys.point_pendulum(th0, length=L, g=g)
    t = np.linspace(0, 10, 501)
    res = m.simulate(t_end=10.0, t_eval=t, **phys.TIGHT)
    w = np.sqrt(g / L)
    # the amplitude correction to the frequency is th0^2/16 ~ 6e-8: a phase error < 3e-6 rad*th0 over 10 s
    np.testing.assert_allclose(res["j.q"], th0 * np.cos(w * t), rtol=0, atol=1e-5 * th0)
    np.testing.assert_allclose(res["j.v"], -th0 * w * np.sin(w * t), rtol=0, atol=1e-5 * th0 * w)


def test_large_amplitude_point_pendulum_matches_elliptic_solution(phys):
    g, L, th0 = 9.81, 0.8, 2.5
    m = phys.point_pendulum(th0, length=L, g=g)
    t = np.linspace(0, 6, 601)
    res = m.simulate(t_end=6.0, t_eval=t, **phys.TIGHT)
    exact = elliptic_pendulum(th0, np.sqrt(g / L), t)
    assert np.max(np.abs(res["j.q"] - exact)) < 1e-7
    # and the harmonic solution is far from it (the comparison can tell)
    assert np.max(np.abs(th0 * np.cos(np.sqrt(g / L) * t) - exact)) > 0.5


def test_pendulum_bob_position(phys):
    """The bob moves on the circle of radius L: x = L sin(theta), y = -L cos(theta)."""
    L = 0.8
    m = phys.point_pendulum(1.0, length=L)
    res = m.simulate(t_end=1.0, t_eval=np.linspace(0, 1, 21), **phys.TIGHT)
    th = res["j.q"]
    bob = res.point("bob", (0, -L, 0))
    np.testing.assert_allclose(bob, np.column_stack([L * np.sin(th), -L * np.cos(th), 0 * th]), atol=1e-12)


def _upward_zero_crossings(t, x):
    i = np.nonzero((x[:-1] < 0) & (x[1:] >= 0))[0]
    return t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])


def test_compound_pendulum_period(phys):
    """Rod with COM offset and inertia: small-oscillation frequency w0^2 = m g d / I_hinge and the exact
    period 4 K(k)/w0 at finite amplitude; the whole motion equals the elliptic solution."""
    g, th0 = 9.81, 1.0
    m, mass, d, I_hinge = phys.compound_pendulum(th0, g=g)
    w0 = np.sqrt(mass * g * d / I_hinge)
    t = np.linspace(0, 6, 6001)
    res = m.simulate(t_end=6.0, t_eval=t, **phys.TIGHT)
    crossings = _upward_zero_crossings(t, res["j.q"])
    assert len(crossings) >= 2
    period = np.mean(np.diff(crossings))
    k = np.sin(th0 / 2)
    assert period == pytest.approx(4 * ellipk(k * k) / w0, rel=1e-7)
    # the small-amplitude formula 2 pi sqrt(I/(m g d)) differs by ~6 %: the check resolves it
    assert abs(period - 2 * np.pi / w0) > 1e-2 * period
    assert np.max(np.abs(res["j.q"] - elliptic_pendulum(th0, w0, t))) < 1e-7


def test_compound_pendulum_hangs_down_at_zero(phys):
    """The child frame's rotation turns the rod so that at q = 0 its COM is straight below the hinge."""
    m, mass, d, _ = phys.compound_pendulum(0.0)
    res = m.simulate(t_end=0.5, t_eval=[0.0, 0.5], **phys.TIGHT)
    hinge = np.array([0.2, 0.3, -0.1])
    np.testing.assert_allclose(res.point("rod", m.bodies["rod"].com)[0], hinge + (0, -d, 0), atol=1e-12)
    np.testing.assert_allclose(res["j.q"], 0.0, atol=1e-12)   # equilibrium: it stays


# ----------------------------------------------------------------------------- mass-spring
AXIS = np.array([1.0, 2.0, 2.0]) / 3.0


def _slider(phys, k, c, x0, gravity=(0, 0, 0), element="joint"):
    """A 2 kg slider on a prismatic joint along AXIS (in F, F turned), spring to the origin of F."""
    mass, L0 = 2.0, 2.0          # long enough that the spring never passes through zero length
    RF = phys.rot((0.3, 1.0, -0.2), 0.7)
    pF = np.array([0.1, -0.2, 0.3])
    m = ms.Model("slider", gravity=gravity)
    m.add_body("s", mass=mass, com=(0.05, 0.0, -0.02), inertia=(0.01, 0.02, 0.015))
    m.add_joint("j", "prismatic", parent="ground", child="s", parent_frame=(pF, RF),
                child_frame=((0.05, 0.0, -0.02), phys.rot((1, 0, 0), 0.3)), axis=AXIS, q0=x0)
    if element == "joint":
        m.add_force("k", "joint_spring_damper", joint="j", stiffness=k, damping=c, rest=0.0)
    else:
        # point to point, along the slide line: from a ground point L0 behind F's origin to M's origin
        m.add_force("k", "spring_damper", body_a="ground", point_a=pF - L0 * (RF @ AXIS),
                    body_b="s", point_b=(0.05, 0.0, -0.02), stiffness=k, damping=c, rest_length=L0)
    return m, mass, RF @ AXIS


@pytest.mark.parametrize("element", ["joint", "point"])
def test_undamped_mass_spring(phys, element):
    k, A = 50.0, 0.12
    m, mass, _ = _slider(phys, k, 0.0, A, element=element)
    t = np.linspace(0, 3, 301)
    res = m.simulate(t_end=3.0, t_eval=t, **phys.TIGHT)
    w = np.sqrt(k / mass)
    np.testing.assert_allclose(res["j.q"], A * np.cos(w * t), rtol=0, atol=1e-8)


def test_mass_spring_with_gravity_along_axis(phys):
    """Gravity along the slide shifts the equilibrium to -m g / k; the motion about it is harmonic."""
    k, A, g = 50.0, 0.12, 9.81
    m, mass, axis_w = _slider(phys, k, 0.0, A, element="point", gravity=tuple(-g * (phys.rot((0.3, 1.0, -0.2), 0.7) @ AXIS)))
    t = np.linspace(0, 3, 301)
    res = m.simulate(t_end=3.0, t_eval=t, **phys.TIGHT)
    w, x_eq = np.sqrt(k / mass), -mass * g / k
    np.testing.assert_allclose(res["j.q"], x_eq + (A - x_eq) * np.cos(w * t), rtol=0, atol=1e-8)


@pytest.mark.parametrize("element", ["joint", "point"])
def test_damped_mass_spring(phys, element):
    k, c, A = 50.0, 1.5, 0.12
    m, mass, _ = _slider(phys, k, c, A, element=element)
    t = np.linspace(0, 3, 301)
    res = m.simulate(t_end=3.0, t_eval=t, **phys.TIGHT)
    wn = np.sqrt(k / mass)
    zeta = c / (2 * np.sqrt(k * mass))
    wd = wn * np.sqrt(1 - zeta ** 2)
    exact = A * np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta * wn / wd * np.sin(wd * t))
    np.testing.assert_allclose(res["j.q"], exact, rtol=0, atol=1e-8)
    assert abs(res["j.q"][-1]) < 0.6 * A      # it does decay


# ----------------------------------------------------------------------------- screw joint
def _screw(phys, lead, g=0.0, q0=0.0, r=0.0):
    RF, pF = phys.rot((1.0, -1.0, 0.5), 0.8), np.array([0.3, 0.1, -0.2])
    axis_w = RF @ np.array([0.0, 0.0, 1.0])
    m = ms.Model("screw", gravity=tuple(-g * axis_w))
    m.add_body("nut", mass=2.0, com=(r, 0.0, 0.0), inertia=(0.03, 0.025, 0.01, 0.002, 0.0, 0.0))
    m.add_joint("j", "screw", parent="ground", child="nut", parent_frame=(pF, RF), axis=(0, 0, 1),
                lead=lead, q0=q0)
    return m, pF, RF, axis_w


def test_screw_kinematics(phys):
    """A positive angle moves the child along +axis by lead*theta/2pi while turning it about the axis."""
    lead, th = 0.05, 1.3
    m, pF, RF, axis_w = _screw(phys, lead, q0=th)
    res = m.simulate(t_end=1e-3, t_eval=[0.0], **phys.TIGHT)
    np.testing.assert_allclose(res["nut.position"][0], pF + lead * th / (2 * np.pi) * axis_w, atol=1e-12)
    np.testing.assert_allclose(res["nut.rotation"][0], RF @ phys.rot((0, 0, 1), th), atol=1e-12)


def test_screw_dynamics_under_gravity_along_axis(phys):
    """Lagrangian: T = 1/2 (I + m p^2) w^2, V = m g p theta, p = lead/2pi: alpha = -m g p / (I + m p^2)."""
    lead, g, r = 0.05, 9.81, 0.1
    m, *_ = _screw(phys, lead, g=g, q0=0.2, r=r)
    mass, Izz = 2.0, 0.01
    p = lead / (2 * np.pi)
    I_axis = Izz + mass * r ** 2                 # COM off the axis by r
    alpha = -mass * g * p / (I_axis + mass * p ** 2)
    assert ms.forward_dynamics(m, [0.2], [0.0])[0] == pytest.approx(alpha, rel=1e-12)
    # without the m p^2 term the answer differs by ~0.1 %: resolvable at this tolerance
    assert abs(alpha - (-mass * g * p / I_axis)) > 1e-4 * abs(alpha)
    t = np.linspace(0, 1, 11)
    res = m.simulate(t_end=1.0, t_eval=t, **phys.TIGHT)
    np.testing.assert_allclose(res["j.q"], 0.2 + 0.5 * alpha * t ** 2, rtol=0, atol=1e-10)
    np.testing.assert_allclose(res["j.a"], alpha, rtol=1e-9)


# ----------------------------------------------------------------------------- applied forces
VALUE_KINDS = ["constant", "callable"]


def _value(kind, x):
    if kind == "constant":
        return x
    if np.ndim(x) == 0:
        return lambda t: x
    return [(lambda t, c=c: c) for c in x]


def test_joint_force_accelerates_rotor(phys):
    """Forward dynamics: alpha = tau / I about the (unaligned, offset) axis."""
    m, I, tau = _rotor(phys, "constant")
    assert ms.forward_dynamics(m, [0.3], [1.0])[0] == pytest.approx(tau / I, rel=1e-12)


def _rotor(phys, kind):
    axis = np.array([0.2, -0.4, 0.9])
    axis /= np.linalg.norm(axis)
    RF = phys.rot((1, 1, 0), 0.5)
    J = np.array([[0.05, 0.004, -0.002], [0.004, 0.03, 0.001], [-0.002, 0.001, 0.04]])
    mass, com, pivot = 1.5, np.array([0.1, -0.05, 0.02]), np.array([-0.03, 0.02, 0.01])
    tau = 0.7
    m = ms.Model("rotor", gravity=tuple(9.81 * (RF @ axis)))
    m.add_body("r", mass=mass, com=com, inertia=J)
    m.add_joint("j", "revolute", parent="ground", child="r", parent_frame=((0.0, 0.5, 0.0), RF),
                child_frame=pivot, axis=axis)
    m.add_force("motor", "joint_force", joint="j", value=_value(kind, tau))
    d = com - pivot
    return m, axis @ J @ axis + mass * (d @ d - (d @ axis) ** 2), tau


@pytest.mark.parametrize("kind", VALUE_KINDS)
def test_constant_joint_force_spins_rotor_up(phys, kind):
    """theta = tau t^2 / (2 I) with I about the (unaligned, offset) axis; gravity along the axis."""
    m, I, tau = _rotor(phys, kind)
    t = np.linspace(0, 2, 21)
    res = m.simulate(t_end=2.0, t_eval=t, **phys.TIGHT)
    np.testing.assert_allclose(res["j.q"], tau * t ** 2 / (2 * I), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res["j.v"], tau * t / I, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res["j.force"], tau)


def _arm(F, r, torque=(0, 0, 0), point_z=0.0, kind="constant"):
    I = 0.2
    m = ms.Model("arm", gravity=(0, 0, 0))
    m.add_body("arm", mass=1.0, com=(0, 0, 0), inertia=(0.3, 0.25, I))
    m.add_joint("j", "revolute", parent="ground", child="arm", axis=(0, 0, 1))
    m.add_force("push", "body_force", body="arm", point=(r, 0.0, point_z), force=_value(kind, F),
                torque=_value(kind, torque))
    return m, I


def test_body_force_at_offset_point_gives_torque(phys):
    """A world-fixed force (0, F, 0) at body point (r, 0, 0) gives torque r F cos(theta) about z."""
    F, r = 2.0, 0.3
    m, I = _arm((0.0, F, 0.0), r)
    assert ms.forward_dynamics(m, [0.0], [0.0])[0] == pytest.approx(r * F / I, rel=1e-12)
    assert ms.forward_dynamics(m, [0.5], [0.0])[0] == pytest.approx(r * F * np.cos(0.5) / I, rel=1e-12)


@pytest.mark.parametrize("kind", VALUE_KINDS)
def test_body_force_at_offset_point_drives_motion(phys, kind):
    """The simulated motion under the world-fixed force equals the scalar ODE theta'' = r F cos(theta) / I."""
    F, r = 2.0, 0.3
    m, I = _arm((0.0, F, 0.0), r, kind=kind)
    t = np.linspace(0, 2, 41)
    res = m.simulate(t_end=2.0, t_eval=t, **phys.TIGHT)
    ref = solve_ivp(lambda t, y: [y[1], r * F * np.cos(y[0]) / I], (0, 2), [0.0, 0.0], t_eval=t,
                    method="DOP853", rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(res["j.q"], ref.y[0], atol=1e-8)


def test_body_force_components_that_give_no_joint_torque(phys):
    """Along the axis, or through the axis: no torque about the joint; a body torque adds directly."""
    m, I = _arm((0.0, 0.0, 5.0), 0.3)                 # parallel to the axis
    assert ms.forward_dynamics(m, [0.4], [0.0])[0] == pytest.approx(0.0, abs=1e-14)
    m, I = _arm((3.0, 0.0, 0.0), 0.3)                 # radial at theta = 0
    assert ms.forward_dynamics(m, [0.0], [0.0])[0] == pytest.approx(0.0, abs=1e-14)
    m, I = _arm((0.0, 0.0, 0.0), 0.3, torque=(0.4, 0.7, 1.1), point_z=0.2)
    assert ms.forward_dynamics(m, [0.9], [0.0])[0] == pytest.approx(1.1 / I, rel=1e-12)


def test_body_force_on_free_body_newton_euler(phys):
    """Free body at rest, turned: a_com = F/m, J_world w_dot = (x - c) x F + T."""
    q_rot = phys.rot((1, 2, 3), 0.9)
    from scipy.spatial.transform import Rotation
    w, x, y, z = np.roll(Rotation.from_matrix(q_rot).as_quat(), 1)
    J = np.array([[0.05, 0.004, -0.002], [0.004, 0.03, 0.001], [-0.002, 0.001, 0.04]])
    mass, com, point = 1.5, np.array([0.1, -0.05, 0.02]), np.array([0.3, 0.2, -0.1])
    F, T = np.array([1.0, -2.0, 0.5]), np.array([0.2, 0.0, -0.3])
    m = ms.Model("free", gravity=(0, 0, 0))
    m.add_body("b", mass=mass, com=com, inertia=J)
    m.add_joint("f", "free", parent="ground", child="b")
    m.add_force("push", "body_force", body="b", point=point, force=F, torque=T)
    qv = np.array([0.4, -0.2, 0.1, w, x, y, z])
    a = ms.forward_dynamics(m, qv, np.zeros(6))
    c_w = qv[:3] + q_rot @ com
    x_w = qv[:3] + q_rot @ point
    wdot = np.linalg.solve(q_rot @ J @ q_rot.T, np.cross(x_w - c_w, F) + T)
    a_origin = F / mass - np.cross(wdot, q_rot @ com)        # body at rest: no centripetal term
    np.testing.assert_allclose(a[:3], a_origin, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(a[3:], q_rot.T @ wdot, rtol=1e-12, atol=1e-13)
