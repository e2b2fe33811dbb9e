"""Rigid and compliant joint stops (SPEC §3 joint_limit; simulation/hybrid) against closed forms.

The model: a uniform rod of mass m = 1 kg and length L = 1 m on a hinge about z, gravity -y, released
horizontal (q = 0). Its angle q obeys I q'' = -m g c cos q with c = L/2 and I = m L^2 / 3, so energy
gives the angular speed at q:  q'^2 = 2 m g c (sin 0 - sin q) / I = 6 g sin(-q) / L... in general
w(q) = sqrt(2 m g c (-sin q) / I), and the time to fall from 0 to the stop q_s < 0 is
T = integral_{q_s}^{0} dq / w(q)  (an elliptic integral; here by scipy's quad, with the 1/sqrt
singularity at q = 0 removed by q = -u^2).
"""
import numpy as np
import pytest
from scipy.integrate import quad

import mechsim as ms

M, L, G = 1.0, 1.0, 9.81
C, I = L / 2, M * L ** 2 / 3
STOP = -1.0


def rod(**limit):
    m = ms.Model(gravity=(0, -G, 0))
    m.add_body("rod", mass=M, com=(C, 0, 0), inertia=(1e-3, M * L ** 2 / 12, M * L ** 2 / 12))
    m.add_joint("j1", "revolute", parent="ground", child="rod", axis=(0, 0, 1), q0=limit.pop("q0", 0.0))
    m.add_input("u", 0.0)
    m.add_force("motor", "joint_force", joint="j1", value="u")
    m.add_force("stop", "joint_limit", joint="j1", **limit)
    return m


def speed(q):
    return np.sqrt(2 * M * G * C * -np.sin(q) / I)


def fall_time(q_stop):
    # q = -u^2, dq = -2u du: T = int_0^sqrt(-q_stop) 2u / w(-u^2) du, finite at u = 0
    return quad(lambda u: 2 * u / speed(-u * u) if u > 0 else 2 / np.sqrt(2 * M * G * C / I),
                0, np.sqrt(-q_stop), epsabs=1e-14, epsrel=1e-14)[0]


def energy(res):
    q, v = res["j1.q"], res["j1.v"]
    return 0.5 * I * v ** 2 + M * G * C * np.sin(q)


def impacts(res):
    return [e for e in res.events if e.kind == "limit" and "reached" in e.detail]


@pytest.mark.parametrize("solver", ["RK45", "DOP853"])
def test_impact_time_and_restitution(solver):
    res = rod(lower=STOP, restitution=0.75).simulate(t_end=1.0, solver=solver, rtol=1e-11, atol=1e-11)
    hits = impacts(res)
    assert hits, res.events
    assert hits[0].time == pytest.approx(fall_time(STOP), abs=1e-8)
    k = int(np.searchsorted(res.t, hits[0].time))      # the samples before and after the impact
    assert res.t[k] == res.t[k + 1] == hits[0].time
    v_before, v_after = res["j1.v"][k], res["j1.v"][k + 1]
    assert v_before == pytest.approx(-speed(STOP), rel=1e-8)
    assert v_after / v_before == pytest.approx(-0.75, abs=1e-12)          # exactly the restitution
    assert res["j1.q"][k + 1] == pytest.approx(STOP, abs=1e-12)
    assert res["j1.q"].min() >= STOP - 1e-9


def test_elastic_stop_keeps_energy_and_period():
    """e = 1: every bounce returns to the horizontal; bounces every 2 T exactly."""
    res = rod(lower=STOP, restitution=1.0).simulate(t_end=5.0, solver="DOP853", rtol=1e-11, atol=1e-11)
    hits = impacts(res)
    T = fall_time(STOP)
    expected = T * np.arange(1, 100, 2)
    expected = expected[expected < 5.0]
    assert len(hits) == len(expected) == 7
    np.testing.assert_allclose([h.time for h in hits], expected, atol=1e-8)
    np.testing.assert_allclose(energy(res), 0.0, atol=1e-9)


def test_energy_never_grows_and_rest_ends_the_bounces():
    """e = 0.75: kinetic energy scales by e^2 at each impact; the bounces accumulate (Zeno) and end with
    the stop closed, the rod at rest on it, without a hang. Every impact takes energy away (the samples
    just before and after it, at the same time); between impacts the energy changes only by the integration
    error (RK45 at 1e-10: up to ~1e-9 J at an impact instant, a point of the 4th-order dense output)."""
    res = rod(lower=STOP, restitution=0.75).simulate(t_end=8.0, rtol=1e-10, atol=1e-10)
    change, at_impact = np.diff(energy(res)), np.diff(res.t) == 0
    hits = impacts(res)
    assert at_impact.sum() == len(hits) and np.all(change[at_impact] < 0)
    assert np.all(change[~at_impact] <= 1e-8)
    assert hits[-1].detail.endswith("closed")
    # the approach speeds (the sample at each impact, before it): the flight between impacts keeps energy
    speeds = -res["j1.v"][np.searchsorted(res.t, [h.time for h in hits])]
    assert len(hits) > 20 and speeds[-1] < 1e-3
    np.testing.assert_allclose(speeds[1:] / speeds[:-1], 0.75, rtol=1e-6)
    assert np.ptp(res["j1.q"][res.t > hits[-1].time + 1e-9]) < 1e-12
    assert res["j1.v"][-1] == 0.0 or abs(res["j1.v"][-1]) < 1e-12


def test_resting_on_a_stop_does_not_creep_and_carries_the_load():
    """Started on the stop with gravity pushing into it: held for 100 s with no motion, the stop's force
    the static torque m g c cos(q_s)."""
    res = rod(lower=STOP, q0=STOP).simulate(t_end=100.0, rtol=1e-8, atol=1e-8)
    # what a residual acceleration of ten ulps of gravity's (m g c / I) moves it in 100 s: 1.6e-10 rad; a stop that
    # let go would move it by 1e4 rad
    creep = 10 * np.finfo(float).eps * M * G * C / I * 100.0 ** 2 / 2
    assert np.max(np.abs(res["j1.q"] - STOP)) < creep
    np.testing.assert_allclose(res["stop.force"], M * G * C * np.cos(STOP), rtol=1e-10)
    assert [e.kind for e in res.events] == ["limit"]


def test_leaves_the_stop_when_its_force_would_pull():
    """Resting on the stop, a motor torque 5 t lifts the rod: the stop releases when 5 t equals the
    gravity torque m g c cos(q_s) it was carrying."""
    m = rod(lower=STOP, q0=STOP)
    res = m.simulate(t_end=1.0, inputs={"u": "5*t"}, rtol=1e-10, atol=1e-10)
    release = [e for e in res.events if "leaves" in e.detail]
    assert len(release) == 1
    assert release[0].time == pytest.approx(M * G * C * np.cos(STOP) / 5.0, abs=1e-8)
    assert res["j1.q"][-1] > STOP + 1e-3
    after = res.t > release[0].time
    assert np.all(res["stop.force"][after] == 0.0)


def test_upper_stop_and_both_sides():
    """Thrown upwards from the horizontal at 4 rad/s against an upper stop at 0.5 rad: a symmetric
    bounce with e = 1 off the upper stop, then the lower one."""
    m = rod(lower=STOP, upper=0.5, restitution=1.0)
    m.joints["j1"].v0 = [4.0]
    res = m.simulate(t_end=1.5, solver="DOP853", rtol=1e-11, atol=1e-11)
    sides = [e.detail.split()[0] for e in impacts(res)]
    assert sides[:2] == ["upper", "lower"]
    assert res["j1.q"].max() <= 0.5 + 1e-9 and res["j1.q"].min() >= STOP - 1e-9
    np.testing.assert_allclose(energy(res), 0.5 * I * 16.0, rtol=1e-8)


def test_compliant_stop_static_deflection():
    """A compliant stop of stiffness k with damping settles where k d = m g c cos(q_s - d)."""
    k = 1e4
    res = rod(lower=STOP, q0=STOP, stiffness=k, damping=50.0).simulate(t_end=3.0, rtol=1e-9, atol=1e-9)
    d = STOP - res["j1.q"][-1]
    assert k * d == pytest.approx(M * G * C * np.cos(STOP - d), rel=1e-6)
    assert res["stop.force"][-1] == pytest.approx(k * d, rel=1e-6)
    assert np.all(res["stop.force"] >= 0.0)


@pytest.mark.parametrize("options, message", [
    (dict(lower=1.0, upper=-1.0), "below upper"),
    (dict(lower=-1.0, restitution=-0.1), "restitution"),
    (dict(lower=-1.0, restitution=1.5), "restitution"),
    (dict(lower=-1.0, damping=3.0), "damping"),
    (dict(lower=-1.0, stiffness=-5.0), "stiffness"),
    (dict(), "lower="),
])
def test_bad_stops_are_refused(options, message):
    with pytest.raises(ms.ModelError, match=message):
        rod(**options)


def test_start_beyond_a_stop_is_refused():
    with pytest.raises(ms.SimulationError, match="beyond its lower stop"):
        rod(lower=STOP, q0=-1.5).simulate(t_end=0.1)


def test_lifted_off_a_stop_and_back_again():
    """Resting on the stop, lifted by a motor torque 6 sin(2 t) (above the 2.65 N m the stop carries for
    a while), then let down as the torque turns: it leaves the stop and lands on it again, never passing
    it (a stop opened while touching must still see the next approach)."""
    res = rod(lower=STOP, q0=STOP).simulate(t_end=3.0, inputs={"u": "6*sin(2*t)"}, rtol=1e-10, atol=1e-10)
    kinds = [("leaves" in e.detail, "reached" in e.detail) for e in res.events]
    assert (True, False) in kinds and kinds.index((True, False)) < len(kinds) - 1
    assert any(reached for _, reached in kinds[kinds.index((True, False)):])
    assert res["j1.q"].min() >= STOP - 1e-12 and res["j1.q"].max() > STOP + 0.1


def test_forward_dynamics_has_every_stop_open():
    """ms.forward_dynamics is the tree's (I q'' = -m g c cos q + tau), also on the stop and beyond it:
    stops are hybrid elements of a run, not constraints of a one-off evaluation."""
    m = rod(lower=STOP, upper=0.5)
    for q in (0.3, STOP, STOP - 0.2):
        qdd = ms.forward_dynamics(m, np.array([q]), np.array([-1.0]), np.array([0.25]))
        assert qdd[0] == pytest.approx((-M * G * C * np.cos(q) + 0.25) / I, rel=1e-13)


def test_elements_on_each_translation_coordinate_of_a_free_joint():
    """A free joint's translation is one node of three coordinates (joints.py PRIM_T); a stop, a driver
    and friction on its x, y and z each act on their own coordinate. A box (m = 2 kg) starts at
    z = h = 0.5 m with x' = 3 m/s under gravity -z: the stop at z = 0 (restitution 0.5) is hit at
    t1 = sqrt(2h/g) with z' = -g t1, and rebounds at 0.5 g t1; the driver holds y = A sin(w t), so its
    force is m y'' = -m A w^2 sin(w t); the exact friction on x (kinetic 4 N) slows x' at F/m = 2 m/s^2
    until it sticks at t = 1.5 s, x = 3^2 / (2 * 2) = 2.25 m, and stays."""
    mass, h, A, w, F = 2.0, 0.5, 0.1, 3.0, 4.0
    m = ms.Model(gravity=(0, 0, -G))
    m.add_body("box", mass=mass, inertia=(0.1, 0.2, 0.3))
    m.add_joint("j", "free", parent="ground", child="box", q0=[0, 0, h, 1, 0, 0, 0], v0=[3.0, A * w, 0, 0, 0, 0])
    m.add_force("floor", "joint_limit", joint="j", coordinate=2, lower=0.0, restitution=0.5)
    m.add_driver("j", coordinate=1, position=f"{A} * sin({w} * t)", name="sway")
    m.add_force("rub", "joint_friction", joint="j", coordinate=0, static=F, kinetic=F)
    t1 = np.sqrt(2 * h / G)
    t = np.array([0.5 * t1, t1 + 0.05, 1.0, 1.5, 2.0])
    res = m.simulate(t_end=2.0, t_eval=t, solver="DOP853", rtol=1e-11, atol=1e-12)
    assert res.success, res.message
    hit = [e.time for e in res.events if e.name == "floor"][0]
    assert abs(hit - t1) < 1e-9
    z_up = 0.5 * G * t1                            # rebound speed; then a free flight from z = 0
    np.testing.assert_allclose(res["j.q"][:2, 2], [h - 0.5 * G * (0.5 * t1) ** 2, z_up * 0.05 - 0.5 * G * 0.05 ** 2],
                               atol=1e-9)
    np.testing.assert_allclose(res["j.q"][:, 1], A * np.sin(w * t), atol=1e-9)
    np.testing.assert_allclose(res["j.force"][:, 1], -mass * A * w ** 2 * np.sin(w * t), atol=1e-7)
    x_expected = np.where(t < 1.5, 3.0 * t - t ** 2, 2.25)
    np.testing.assert_allclose(res["j.q"][:, 0], x_expected, atol=1e-9)
    np.testing.assert_allclose(res["rub.force"][:3], -F, atol=1e-9)
