"""Joint stiction (SPEC §3 joint_friction; simulation/hybrid) against closed forms.

Blocks of mass m on prismatic joints along x, friction as force levels F_s (static) and F_k
(kinetic). Derivations in each test; the mode iteration of Wood & Kennedy 2003 §6 is checked on two
stacked blocks, whose regimes follow from the free-body diagrams of the two blocks.
"""
import numpy as np
import pytest

import mechsim as ms

TOL = dict(rtol=1e-10, atol=1e-10)


def block(m=2.0, static=3.0, kinetic=2.0, v0=0.0, push="0"):
    model = ms.Model(gravity=(0, 0, -9.81))
    model.add_body("block", mass=m, inertia=(0.1, 0.1, 0.1))
    model.add_joint("x", "prismatic", parent="ground", child="block", axis=(1, 0, 0), v0=v0)
    model.add_force("friction", "joint_friction", joint="x", static=static, kinetic=kinetic)
    model.add_force("push", "joint_force", joint="x", value=push)
    return model


def records(res, kind):
    return [e for e in res.events if e.kind == kind]


def test_sliding_block_stops_and_stays():
    """Thrown at v0 = 3 m/s: m x'' = -F_k until v = 0 at t1 = m v0 / F_k = 3 s, x1 = m v0^2 / (2 F_k) =
    4.5 m; then stuck (no load), and held: no creep over 100 s."""
    res = block(v0=3.0).simulate(t_end=103.0, **TOL)
    locks = records(res, "lock")
    assert len(locks) == 1 and locks[0].time == pytest.approx(3.0, abs=1e-9)
    after = res.t > 3.0 + 1e-9
    assert np.max(np.abs(res["x.q"][after] - 4.5)) < 1e-9
    assert np.ptp(res["x.q"][after]) < 1e-12
    assert np.all(res["x.v"][after] == 0.0)
    slip = res.t < 3.0 - 1e-9
    assert np.all(res["friction.mode"][after] == 2) and np.all(res["friction.mode"][slip] == 1)
    np.testing.assert_allclose(res["friction.force"][slip], -2.0)
    np.testing.assert_allclose(res["x.a"][slip], -1.0, atol=1e-9)


def test_ramp_force_breaks_stiction_at_the_static_level():
    """At rest, pushed by P = 2 t: stuck while P <= F_s = 3 (the friction force holds -P), slips from
    t1 = 1.5 s with m x'' = 2 t - F_k, so v(t) = ((t^2 - t1^2) - F_k (t - t1)) / m."""
    res = block(push="2*t").simulate(t_end=3.0, **TOL)
    unlocks = records(res, "unlock")
    assert len(unlocks) == 1 and unlocks[0].time == pytest.approx(1.5, abs=1e-9)
    stuck = res.t < 1.5
    np.testing.assert_allclose(res["friction.force"][stuck], -2 * res.t[stuck], atol=1e-9)
    assert np.max(np.abs(res["x.q"][stuck])) < 1e-12
    t = res.t[res.t > 1.5]
    np.testing.assert_allclose(res["x.v"][res.t > 1.5], ((t ** 2 - 1.5 ** 2) - 2.0 * (t - 1.5)) / 2.0, atol=1e-8)


def test_load_within_static_friction_never_moves():
    res = block(push="2.9").simulate(t_end=100.0, **TOL)
    assert not records(res, "unlock")
    assert np.all(res["x.q"] == 0.0)
    np.testing.assert_allclose(res["friction.force"], -2.9, atol=1e-10)


def stacked(push_top, mu=(4.0, 3.0, 6.0, 5.0)):
    """Bottom block (m1 = 1 kg) on the ground, top block (m2 = 1 kg) on it; friction levels F1s, F1k
    between bottom and ground (joint x1), F2s, F2k between top and bottom (the relative joint x2), a
    world force P along x on the top block."""
    f1s, f1k, f2s, f2k = mu
    m = ms.Model(gravity=(0, 0, -9.81))
    m.add_body("bottom", mass=1.0, inertia=(0.1, 0.1, 0.1))
    m.add_body("top", mass=1.0, inertia=(0.1, 0.1, 0.1))
    m.add_joint("x1", "prismatic", parent="ground", child="bottom", axis=(1, 0, 0))
    m.add_joint("x2", "prismatic", parent="bottom", child="top", axis=(1, 0, 0))
    m.add_force("f1", "joint_friction", joint="x1", static=f1s, kinetic=f1k)
    m.add_force("f2", "joint_friction", joint="x2", static=f2s, kinetic=f2k)
    m.add_force("push", "body_force", body="top", force=(push_top, 0.0, 0.0))
    return m


@pytest.mark.parametrize("P, regime", [(3.0, "stuck"), (6.0, "together"), (12.0, "apart")])
def test_stacked_blocks_mode_iteration_picks_the_regime(P, regime):
    """From rest, F1s = 4, F1k = 3, F2s = 6, F2k = 5. Stuck: the top's lock carries -P, the bottom's -P,
    both within static while P <= 4. Sliding together: a = (P - F1k) / (m1 + m2); the top's lock then
    carries m2 a - P, within F2s while P <= 9 (P = 6: a = 1.5, lock -4.5). Apart (P = 12: together would
    need a lock of 4.5 - 12 = -7.5): the top m2 a_top = P - F2k = 7, the bottom, dragged by F2k = 5 >
    F1s, m1 a1 = F2k - F1k = 2, so x2'' = 5. The iteration from "all stuck" unlocks the most overloaded
    lock first (x1: 12/4 against x2: 12/6), then x2."""
    res = stacked(P).simulate(t_end=1.0, **TOL)
    a1, a2 = res["x1.a"][-1], res["x2.a"][-1]
    if regime == "stuck":
        assert np.all(res["x1.q"] == 0.0) and np.all(res["x2.q"] == 0.0)
        np.testing.assert_allclose([res["f1.force"][-1], res["f2.force"][-1]], [-P, -P], atol=1e-10)
        assert not res.events
    elif regime == "together":
        np.testing.assert_allclose([a1, a2], [(P - 3.0) / 2, 0.0], atol=1e-9)
        assert np.all(res["x2.q"] == 0.0)
        np.testing.assert_allclose(res["f2.force"][-1], (P - 3.0) / 2 - P, atol=1e-9)
        assert [(e.kind, e.name) for e in res.events] == [("unlock", "f1")]
    else:
        np.testing.assert_allclose([a1, a2], [2.0, 5.0], atol=1e-9)
        assert [(e.kind, e.name) for e in res.events] == [("unlock", "f1"), ("unlock", "f2")]
        assert all(e.time == 0.0 for e in res.events)


@pytest.mark.parametrize("options, message", [
    (dict(static=1.0, kinetic=2.0), "kinetic <= static"),
    (dict(static=-1.0, kinetic=-2.0), "kinetic <= static"),
])
def test_bad_friction_is_refused(options, message):
    with pytest.raises(ms.ModelError, match=message):
        block(**options)


def regularized(push, v0=0.0, m=2.0, kinetic=2.0, slip=1e-3):
    model = ms.Model(gravity=(0, 0, -9.81))
    model.add_body("block", mass=m, inertia=(0.1, 0.1, 0.1))
    model.add_joint("x", "prismatic", parent="ground", child="block", axis=(1, 0, 0), v0=v0)
    model.add_force("friction", "joint_friction", joint="x", static=3.0, kinetic=kinetic, model="regularized",
                    slip_tolerance=slip)
    model.add_force("push", "joint_force", joint="x", value=push)
    return model


def test_regularized_friction_creeps_at_its_closed_form_speed_and_slides_at_the_kinetic_level():
    """The smooth model f = -F_k v / sqrt(v^2 + v_s^2) has no stiction: a steady load P < F_k makes the
    block creep where f balances it, v = v_s r / sqrt(1 - r^2), r = P / F_k (the exact model holds it:
    test_load_within_static_friction_never_moves). Fast, it decelerates at F_k / m like Coulomb's."""
    P, F_k, v_s = 1.0, 2.0, 1e-3
    res = regularized(push=str(P), kinetic=F_k, slip=v_s).simulate(t_end=1.0, t_eval=[1.0], **TOL)
    r = P / F_k
    np.testing.assert_allclose(res["x.v"], v_s * r / np.sqrt(1 - r * r), rtol=0, atol=1e-9)     # atol 1e-10 run
    np.testing.assert_allclose(res["friction.force"], -P, rtol=1e-6)
    assert res["friction.mode"][-1] == 2 and not res.events
    res = regularized(push="0", v0=3.0, kinetic=F_k, slip=v_s).simulate(t_end=1.0, t_eval=[0.0, 0.5, 1.0], **TOL)
    np.testing.assert_allclose(res["x.v"], 3.0 - F_k / 2.0 * res.t, atol=1e-6)      # |v| >> v_s: -F_k (1 - 1e-7)
    assert set(res["friction.mode"]) == {1}
    with pytest.raises(ms.ModelError, match="slip_tolerance"):
        block().add_force("bad", "joint_friction", joint="x", static=1.0, slip_tolerance=1e-3)
