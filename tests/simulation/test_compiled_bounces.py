"""Bounces resolved inside the compiled loop (dynamics/impacts.py; integrators/explicit.py ``jumped``).

The Python path (backend="python") resolves every impact in simulation/hybrid; the compiled loop resolves
a contact point's bounce itself while every contact is open. Both must give the same events, impulses and
states, and both the closed forms: a ball dropped from z0 (centre; radius r) first lands at
t1 = sqrt(2 (z0 - r) / g) at v1 = g t1, and the k-th bounce sends it up at e^k v1, back after 2 e^k v1 / g.
"""
import numpy as np
import pytest

import mechsim as ms
from mechsim.simulation.hybrid.contacts import ContactSwitches

G = 9.81
TIGHT = dict(solver="DOP853", rtol=1e-10, atol=1e-10)


def ball(restitution=0.8, mu=0.0, v0=(0, 0, 0), w0=(0, 0, 0), z0=1.0, r=0.1, m=1.0, **contact):
    model = ms.Model("ball", gravity=(0, 0, -G))
    model.add_body("ball", mass=m, inertia=(0.4 * m * r * r,) * 3)
    model.add_joint("free", "free", "ground", "ball", q0=[0, 0, z0, 1, 0, 0, 0], v0=[*v0, *w0])
    model.add_contact("c", body="ball", shape="sphere", radius=r, restitution=restitution, static=mu, kinetic=mu,
                      **contact)
    return model


@pytest.fixture
def python_touches(monkeypatch):
    """The number of impacts simulation/hybrid resolved (ContactSwitches.touch calls) in the test so far."""
    calls = []
    touch = ContactSwitches.touch
    monkeypatch.setattr(ContactSwitches, "touch",
                        lambda self, plant, sim, c: calls.append(sim.t) or touch(self, plant, sim, c))
    return calls


def impacts(res):
    return [e for e in res.events if e.kind == "impact"]


def states(res):
    return np.hstack([res.q, res.v])


def after(res, t):
    """The index of the sample just after the event at t (the run records the state before and after)."""
    return int(np.searchsorted(res.t, t, side="right")) - 1


def test_bounces_run_compiled_as_the_python_path_and_at_the_closed_form_times(python_touches):
    r, z0, e = 0.1, 1.0, 0.8
    model = ball(restitution=e, z0=z0, r=r)
    res = model.simulate(t_end=3.0, **TIGHT)
    assert res.success and res.stats["backend"] == "compiled"
    assert python_touches == []                              # every bounce resolved in the compiled loop
    ref = model.simulate(t_end=3.0, backend="python", **TIGHT)
    assert len(python_touches) == len(impacts(ref)) > 5
    assert [(e.kind, e.name, e.detail) for e in res.events] == [(e.kind, e.name, e.detail) for e in ref.events]
    np.testing.assert_allclose([e.time for e in res.events], [e.time for e in ref.events], rtol=0, atol=1e-13)
    t1 = np.sqrt(2 * (z0 - r) / G)
    v1 = G * t1
    exact = t1 + np.concatenate([[0.0], np.cumsum(2 * v1 * e ** np.arange(1, len(impacts(res))) / G)])
    np.testing.assert_allclose([e.time for e in impacts(res)], exact, rtol=0, atol=1e-12)
    for k, event in enumerate(impacts(res)):                 # rebound e^(k+1) v1, the impulse (1 + e) m e^k v1
        i = after(res, event.time)
        assert res.t[i - 1] == res.t[i] == event.time
        np.testing.assert_allclose(res.v[i - 1, 2], -e ** k * v1, rtol=1e-10)
        np.testing.assert_allclose(res.v[i, 2], e ** (k + 1) * v1, rtol=1e-10)
        np.testing.assert_allclose(res.q[i, 2], r, atol=1e-12)
    assert np.min(res["c.gap"]) > -1e-12
    np.testing.assert_allclose(states(res)[-1], states(ref)[-1], rtol=0, atol=1e-9)


def test_outputs_at_requested_times_are_the_python_paths(python_touches):
    model = ball(restitution=0.7)
    t_eval = np.linspace(0.0, 2.5, 101)
    res = model.simulate(t_end=2.5, t_eval=t_eval, **TIGHT)
    assert python_touches == [impacts(res)[-1].time]         # bounces ever smaller; closing is the modes' work
    assert "closes" in impacts(res)[-1].detail and len(impacts(res)) > 20
    ref = model.simulate(t_end=2.5, t_eval=t_eval, backend="python", **TIGHT)
    np.testing.assert_array_equal(res.t, t_eval)
    np.testing.assert_allclose(states(res), states(ref), rtol=0, atol=1e-9)
    exact = 1.0 - 0.5 * G * t_eval ** 2                      # free fall until the first impact
    first = t_eval < np.sqrt(2 * 0.9 / G)
    np.testing.assert_allclose(res.q[first, 2], exact[first], atol=1e-12)


def test_elastic_bounces_keep_the_energy_and_reach_the_same_height():
    res = ball(restitution=1.0).simulate(t_end=4.0, t_eval=np.linspace(0, 4, 401), **TIGHT)
    assert res.success and len(impacts(res)) == 5
    energy = 0.5 * np.sum(res.v[:, :3] ** 2, axis=1) + G * res.q[:, 2]
    np.testing.assert_allclose(energy, energy[0], rtol=1e-11)
    apex = [2 * k * np.sqrt(2 * 0.9 / G) for k in (1, 2)]     # landing at t1, then flights of 2 t1
    full = ball(restitution=1.0).simulate(t_end=4.0, t_eval=apex, **TIGHT)
    np.testing.assert_allclose(full.q[:, 2], 1.0, atol=1e-11)


def test_a_sticking_impulse_within_the_cone_runs_compiled_and_leaves_the_ball_rolling(python_touches):
    """An oblique strike with ample friction: the sticking impulse takes the slip u = v_x - r w_y to zero.
    Tangentially m dv_x = P_t and I dw_y = -r P_t (the contact point is -r z from the centre), I = 2/5 m r^2,
    so du = P_t (1/m + r^2 / I) = 7 P_t / (2 m): P_t = -2 m u / 7 against (1 + e) m v_n normally."""
    r, vx, wy, e = 0.1, 0.5, 2.0, 0.5
    model = ball(restitution=e, mu=0.8, v0=(vx, 0, 0), w0=(0, wy, 0), r=r)
    res = model.simulate(t_end=0.6, **TIGHT)
    assert python_touches == [] and len(impacts(res)) == 1
    i = after(res, impacts(res)[0].time)
    u = vx - r * wy
    np.testing.assert_allclose(res.v[i, 0], vx - 2 * u / 7, rtol=1e-12)
    np.testing.assert_allclose(res.v[i, 4], wy + 5 * u / (7 * r), rtol=1e-12)
    np.testing.assert_allclose(res["c.slip_velocity"][i], 0.0, atol=1e-12)
    ref = model.simulate(t_end=0.6, backend="python", **TIGHT)
    np.testing.assert_allclose(states(res)[i], states(ref)[after(ref, impacts(ref)[0].time)], rtol=0, atol=1e-12)


def test_a_sliding_impulse_and_a_closing_contact_are_left_to_the_mode_logic(python_touches):
    """Little friction against much slip: the sticking impulse leaves the cone, so the Python path resolves
    that strike; a rebound below min_bounce_speed closes the contact, which the Python path does too."""
    model = ball(restitution=0.5, mu=0.05, v0=(3.0, 0, 0), w0=(0, -20.0, 0))
    res = model.simulate(t_end=0.6, **TIGHT)
    assert len(python_touches) == 1 and len(impacts(res)) == 1
    ref = model.simulate(t_end=0.6, backend="python", **TIGHT)
    np.testing.assert_allclose(states(res)[-1], states(ref)[-1], rtol=0, atol=1e-9)
    python_touches.clear()
    model = ball(restitution=0.5, min_bounce_speed=2.0)      # the second rebound (1.05 m/s) closes it
    res = model.simulate(t_end=2.0, **TIGHT)
    kinds = [e.kind for e in res.events]
    assert kinds[:2] == ["impact", "impact"] and len(python_touches) == 1
    assert "closes" in res.events[1].detail
    np.testing.assert_allclose(res.q[-1, 2], 0.1, atol=1e-10)
