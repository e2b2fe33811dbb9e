"""The hybrid-mechanics examples (examples/bouncing_ball.py, stick_slip_belt.py, clutch.py,
billiard_ball.py, disk_on_ramp.py, stacked_blocks.py, box_on_incline.py, pendulum_stop.py,
newtons_cradle.py, disk_fence.py, conveyor_pendulum.py) against their closed forms, derived in the scripts' docstrings."""
import numpy as np
import pytest

import mechsim as ms
from example_helpers import EXAMPLES, cached, script


def bouncing_ball():
    return cached(("hybrid", "bouncing_ball"), lambda: ms.load(EXAMPLES / "bouncing_ball.yaml").simulate())


def stick_slip():
    return cached(("hybrid", "stick_slip_belt"), lambda: ms.load(EXAMPLES / "stick_slip_belt.yaml").simulate())


def test_bouncing_ball_follows_the_geometric_series_and_comes_to_rest():
    bb = script("bouncing_ball")
    res = bouncing_ball()
    hits = np.array([e.time for e in res.events if e.kind == "limit"])
    assert len(hits) > 40
    np.testing.assert_allclose(hits, bb.impact_times(len(hits)), atol=1e-9)
    assert res.events[-1].detail.endswith("closed")
    v1 = np.sqrt(2 * bb.G * (bb.HEIGHT - bb.RADIUS))
    assert hits[-1] < bb.impact_times(1)[0] + 2 * bb.RESTITUTION * v1 / (bb.G * (1 - bb.RESTITUTION))
    rest = res.t > hits[-1] + 1e-9
    np.testing.assert_allclose(res["height.q"][rest], bb.RADIUS, atol=1e-12)
    np.testing.assert_allclose(res["floor.force"][rest], bb.MASS * bb.G, rtol=1e-10)
    assert res["height.q"].min() >= bb.RADIUS - 1e-9


def test_stick_slip_belt_limit_cycle():
    ss = script("stick_slip_belt")
    res = stick_slip()
    switches = [(e.time, e.kind) for e in res.events]
    kinds = [k for _, k in switches]
    assert kinds[0] == "unlock" and kinds == ["unlock", "lock"] * (len(kinds) // 2) + ["unlock"] * (len(kinds) % 2)
    times = np.array([t for t, _ in switches])
    stick, slip = ss.cycle()
    X_s = ss.STATIC / ss.STIFFNESS
    assert times[0] == pytest.approx(X_s / ss.BELT_SPEED, abs=1e-9)          # from X = 0 at the belt's speed
    np.testing.assert_allclose(np.diff(times)[0::2], slip, atol=1e-8)
    np.testing.assert_allclose(np.diff(times)[1::2], stick, atol=1e-8)
    X = res["belt_x.q"] + res["slip.q"]
    at = np.searchsorted(res.t, times)
    np.testing.assert_allclose(X[at[1::2]], (2 * ss.KINETIC - ss.STATIC) / ss.STIFFNESS, atol=1e-9)   # sticks
    np.testing.assert_allclose(X[at[0::2]], X_s, atol=1e-9)                                           # slips
    stuck = res["friction.mode"] == 2
    assert np.all(np.abs(res["friction.force"][stuck]) <= ss.STATIC * (1 + 1e-9))
    np.testing.assert_allclose(res["friction.force"][~stuck], ss.KINETIC)     # the belt drags the block forward


def test_clutch_slips_under_the_brake_and_locks_again():
    """The brake's torque jump at t = 1 s (a breakpoint of the expressions, no crossing) overloads the
    locked clutch: the mode is settled there; the speeds meet again at t = 2 + 25/30 s, at 4 rad/s."""
    res = cached(("hybrid", "clutch"), lambda: ms.load(EXAMPLES / "clutch.yaml").simulate())
    assert [e.kind for e in res.events] == ["unlock", "lock"]
    assert res.events[0].time == pytest.approx(1.0, abs=1e-12)
    assert res.events[1].time == pytest.approx(2 + 25 / 30, abs=1e-8)
    w1, w2 = res["shaft.v"], res["shaft.v"] + res["clutch.v"]
    np.testing.assert_allclose([w1[-1], w2[-1]], 4.0, atol=1e-8)
    locked = res.t < 1.0 - 1e-9
    np.testing.assert_allclose(res["friction.force"][locked], 16.0, atol=1e-9)     # J2 a = 2 * 8
    slipping = (res.t > 1.0) & (res.t < 2 + 25 / 30 - 1e-9)
    np.testing.assert_allclose(res["friction.force"][slipping], 12.0)              # kinetic, dragging the load on
    assert np.all(res["friction.mode"][slipping] == 1) and np.all(res["friction.mode"][res.t > 2.84] == 2)


def test_billiard_ball_rolls_at_five_sevenths_and_the_dropped_one_never_gains_energy():
    bb = script("billiard_ball")
    res = ms.load(EXAMPLES / "billiard_ball.yaml").simulate()
    t_roll, v_roll = bb.rolling()
    assert [e.kind for e in res.events] == ["contact", "stick"]
    assert res.events[1].time == pytest.approx(t_roll, abs=1e-9)
    after = res.t > t_roll
    np.testing.assert_allclose(res["ball.velocity"][after, 0], v_roll, rtol=1e-10)
    np.testing.assert_allclose(res["ball.omega"][after, 1], v_roll / bb.RADIUS, rtol=1e-10)
    np.testing.assert_allclose(res["cloth.normal_force"], bb.MASS * bb.G, rtol=1e-10)
    dropped = bb.simulate(bb.build_model(drop=0.1, backspin=40.0))
    assert sum(e.kind == "impact" for e in dropped.events) > 5 and dropped.events[-1].kind == "stick"
    energy = 0.5 * bb.MASS * np.sum(dropped["ball.velocity"] ** 2, axis=1) + 0.2 * bb.MASS * bb.RADIUS ** 2 * \
        np.sum(dropped["ball.omega"] ** 2, axis=1) + bb.MASS * bb.G * dropped["ball.position"][:, 2]
    assert np.diff(energy).max() < 1e-12
    assert dropped["cloth.gap"].min() > -1e-9


def test_disk_on_ramp_switches_where_the_closed_form_and_the_paper_say():
    """Gillespie et al. 2005, Example 1: rolling from t1, the friction-free zone from t2 (the friction
    needed to roll then exceeds the cone of mu = 0: it slides), back into friction at t3, rolling at t4;
    the paper's 0.37, 1.72 and 6.13 s to its step of 0.01 s and its rolling tolerance."""
    dr = script("disk_on_ramp")
    res = ms.load(EXAMPLES / "disk_on_ramp.yaml").simulate()
    assert [(e.kind, e.name) for e in res.events] == [("contact", "ramp"), ("stick", "ramp"), ("user", "frictionless"),
                                                      ("slide", "ramp"), ("user", "friction"), ("stick", "ramp")]
    times = [e.time for e in res.events]
    t1, t2, t3, t4 = dr.switches()
    np.testing.assert_allclose([times[1], times[2], times[4], times[5]], [t1, t2, t3, t4], atol=1e-8)
    np.testing.assert_allclose([t1, t2, t4], [0.37, 1.72, 6.13], atol=0.02)
    slip = res["roll.v"][:, 0] + dr.RADIUS * res["roll.v"][:, 2]
    rolling = (res.t > t1 + 1e-6) & (res.t < t2 - 1e-6) | (res.t > t4 + 1e-6)
    np.testing.assert_allclose(slip[rolling], 0.0, atol=1e-9)
    frictionless = (res.t > t2 + 1e-6) & (res.t < t3 - 1e-6)
    np.testing.assert_allclose(res["roll.v"][frictionless, 2], res["roll.v"][frictionless, 2][0], rtol=1e-12)


def test_stacked_blocks_go_from_stuck_to_together_to_apart_at_the_closed_form_times():
    sb = script("stacked_blocks")
    res = ms.load(EXAMPLES / "stacked_blocks.yaml").simulate()
    together, apart = sb.switches()
    assert [(e.kind, e.name) for e in res.events] == [("unlock", "f1"), ("unlock", "f2")]
    np.testing.assert_allclose([e.time for e in res.events], [together, apart], atol=1e-9)
    a1, a2 = res["x1.a"], res["x2.a"]
    eps = 1e-9                                          # past the two samples at each switch
    stuck, joint, apart_ = res.t < together - eps, (res.t > together + eps) & (res.t < apart - eps), res.t > apart + eps
    np.testing.assert_allclose(a1[stuck], 0.0, atol=1e-12)
    np.testing.assert_allclose(a1[joint], (sb.RATE * res.t[joint] - 3.0) / 2, atol=1e-9)
    np.testing.assert_allclose(a2[joint], 0.0, atol=1e-9)
    np.testing.assert_allclose(a1[apart_], 2.0, atol=1e-9)
    np.testing.assert_allclose(a1[apart_] + a2[apart_], sb.RATE * res.t[apart_] - 5.0, atol=1e-9)


def test_box_on_incline_rests_below_and_slides_above_the_friction_angle_on_its_corners():
    bi = script("box_on_incline")
    held = bi.simulate(bi.build_model(np.radians(20)), 1.0)
    assert np.abs(held["box.position"][:, 0]).max() < 1e-12 and set(held["floor.mode"]) == {2}
    np.testing.assert_allclose(held["floor.friction_force"][:, 0], -bi.MASS * bi.G * np.sin(np.radians(20)),
                               rtol=1e-10)
    res = ms.load(EXAMPLES / "box_on_incline.yaml").simulate()
    assert [e.kind for e in res.events] == ["contact"] * 4 + ["slide"]          # no corner chatters
    np.testing.assert_allclose(res["box.position"][:, 0], 0.5 * bi.acceleration(np.radians(30)) * res.t ** 2,
                               atol=1e-9)
    np.testing.assert_allclose(res["floor.normal_force"], bi.MASS * bi.G * np.cos(np.radians(30)), rtol=1e-9)
    np.testing.assert_allclose(res["box.omega"], 0.0, atol=1e-9)


def test_pendulum_hits_its_stop_at_the_elliptic_time_rebounds_at_exactly_e_and_rests_on_it():
    ps = script("pendulum_stop")
    res = ms.load(EXAMPLES / "pendulum_stop.yaml").simulate()
    hits = [e.time for e in res.events if e.kind == "limit" and "reached" in e.detail]
    assert len(hits) > 20 and hits[0] == pytest.approx(ps.fall_time(), abs=1e-9)
    for t in hits[:10]:                                 # the samples before and after each impact
        k = int(np.searchsorted(res.t, t))
        v_before, v_after = res["hinge.v"][k], res["hinge.v"][k + 1]
        assert v_after / v_before == pytest.approx(-ps.RESTITUTION, abs=1e-12)
    assert res["hinge.v"][int(np.searchsorted(res.t, hits[0]))] == pytest.approx(-ps.speed(ps.STOP), rel=1e-8)
    rest = res.t > hits[-1] + 1e-9
    np.testing.assert_allclose(res["hinge.q"][rest], ps.STOP, atol=1e-12)
    np.testing.assert_allclose(res["stop.force"][rest], ps.MASS * ps.G * ps.C * np.cos(ps.STOP), rtol=1e-9)


def test_newtons_cradle_passes_the_first_balls_rate_to_the_last_and_back():
    nc = script("newtons_cradle")
    res = ms.load(EXAMPLES / "newtons_cradle.yaml").simulate(t_end=1.0)
    impacts = [e for e in res.events if e.kind == "impact"]
    assert [e.kind for e in res.events] == ["impact"] * 8                     # nothing else: no chatter at rest
    assert [e.name for e in impacts] == [f"touch{k}" for k in (0, 1, 2, 3, 3, 2, 1, 0)]
    t1 = nc.strike_time()
    np.testing.assert_allclose([e.time for e in impacts], [t1] * 4 + [3 * t1] * 4, atol=1e-9)
    k = int(np.searchsorted(res.t, impacts[3].time, side="right")) - 1   # the sample just after the strikes
    np.testing.assert_allclose([res[f"swing{j}.v"][k] for j in range(nc.N)], [0, 0, 0, 0, nc.strike_rate()],
                               atol=1e-9)
    E = nc.energy(res)
    np.testing.assert_allclose(E, E[0], rtol=1e-9)


def test_disk_fence_decided_at_seven_seconds_is_added_at_P_rolled_along_and_left_at_the_chosen_speed():
    df = script("disk_fence")
    m, fence = df.build_model()
    res = df.simulate(m)
    assert res.success, res.message
    assert len(res.t) == 501                                                # no t_eval sample lost at an event
    t_P, u_P = df.reaches_P()
    (t_sense,), (t_enter,), (t_exit,) = res.t_events
    assert t_sense == pytest.approx(7.0, abs=1e-12) and t_enter == pytest.approx(t_P, abs=1e-9)
    x7 = df.U0 * 7.0 + 0.5 * df.A_ROLL * 49.0
    assert fence["R"] == pytest.approx(df.fence_radius(x7, df.U0 + 7.0 * df.A_ROLL), rel=1e-10)
    closes = [e for e in res.events if e.name == "fence"]
    assert len(closes) == 1 and closes[0].time - t_P < 1e-6 and "closes, sticking" in closes[0].detail
    ramp = res.t < t_P
    np.testing.assert_allclose(res["roll.q"][ramp, 0], df.U0 * res.t[ramp] + 0.5 * df.A_ROLL * res.t[ramp] ** 2,
                               atol=1e-9)
    on_fence = (res.t > t_P + 1e-6) & (res.t < t_exit)
    rho = np.hypot(res["roll.q"][on_fence, 0] - df.L, res["roll.q"][on_fence, 1] - fence["R"])
    np.testing.assert_allclose(rho, fence["R"] - df.RADIUS, atol=1e-9)           # inside the arc, touching it
    assert np.all(res.parts[1]["fence.normal_force"] > 0) and np.all(res.parts[1]["fence.mode"] == 2)
    np.testing.assert_allclose(res.parts[1]["fence.slip_velocity"], 0.0, atol=1e-9)   # rolling
    E = df.energy(res)
    np.testing.assert_allclose(E[res.t < t_exit], E[0], atol=1e-6)            # rolling loses no energy
    q, v = res.y_events[2][0][:3], res.y_events[2][0][3:]
    np.testing.assert_allclose(v[:2], df.U_EXIT * np.array([np.cos(df.BETA), np.sin(df.BETA)]), atol=1e-7)
    tau = res.t[-1] - t_exit                                               # then a parabola in tilted gravity
    g = df.G * np.array([np.sin(df.PHI), -np.cos(df.PHI)])
    np.testing.assert_allclose(res["roll.q"][-1, :2], q[:2] + v[:2] * tau + 0.5 * g * tau ** 2, atol=1e-7)


def sliding_tip_separates(cp, t0, y0, t_end):
    """When the normal force of P2 sliding on the belt reaches 0 (None before t_end), from (t0, y0) on the
    sliding branch: the pendulum in absolute angles (point masses at the rod ends), M w' + c = g + lambda_n
    (J_y - mu_k s J_x)^T with s the sign of the slip and P2's height held, y'' = 0; scipy, independent of mechsim."""
    from scipy.integrate import solve_ivp
    mu = cp.BELT[2]

    def solve(y):
        th1, th2, w1, w2 = y[0], y[0] + y[1], y[2], y[2] + y[3]
        k = cp.M2 * cp.L1 * cp.L2
        M = np.array([[(cp.M1 + cp.M2) * cp.L1 ** 2, k * np.cos(th1 - th2)], [k * np.cos(th1 - th2), cp.M2 * cp.L2 ** 2]])
        c = k * np.sin(th1 - th2) * np.array([w2 ** 2, -w1 ** 2])
        g = -cp.G * np.array([(cp.M1 + cp.M2) * cp.L1 * np.sin(th1), cp.M2 * cp.L2 * np.sin(th2)])
        jx, jy = np.array([cp.L1 * np.cos(th1), cp.L2 * np.cos(th2)]), np.array([cp.L1 * np.sin(th1), cp.L2 * np.sin(th2)])
        s = np.sign(jx @ (w1, w2) - cp.VB)
        A = np.zeros((3, 3))
        A[:2, :2], A[:2, 2], A[2, :2] = M, -(jy - mu * s * jx), jy
        a1, a2, lam = np.linalg.solve(A, np.r_[g - c, -(cp.L1 * np.cos(th1) * w1 ** 2 + cp.L2 * np.cos(th2) * w2 ** 2)])
        return np.array([w1, w2 - w1, a1, a2 - a1]), lam

    def pulls(t, y):
        return solve(y)[1]
    pulls.terminal = True
    sol = solve_ivp(lambda t, y: solve(y)[0], (t0, t_end), y0, events=pulls, method="DOP853", rtol=1e-12, atol=1e-12)
    return sol.t_events[0][0] if sol.t_events[0].size else None


def test_conveyor_pendulum_rebounds_strikes_the_belt_slides_and_sticks():
    """examples/conveyor_pendulum.py (Gillespie et al. 2005, Table II): the strikes and the sticking time
    of tests/physics/test_impact_laws.py's independent derivation, for Smith's law and for Newton's; the
    tip stays on the belt after the plastic strike, moving with it once stuck, until it slides again and,
    with Newton's law, its normal force reaches 0 and it leaves the belt (at 1.16646969 s), when the sliding
    pendulum integrated independently (sliding_tip_separates) says so."""
    cp = script("conveyor_pendulum")
    for law, res in cp.compare_laws().items():
        assert res.success, res.message
        np.testing.assert_allclose(cp.switches(res)[:4], cp.SWITCHES[law], atol=1e-8)
        height, velocity = cp.tip(res)
        t_strike, t_stick = cp.SWITCHES[law][2:]
        t_slide = [e.time for e in res.events if e.kind == "slide"][-1]
        after = np.flatnonzero(res.t > t_slide + 1e-9)[0]
        t_leave = sliding_tip_separates(cp, res.t[after], np.r_[res.q[after], res.v[after]], res.t[-1])
        leaves = [e.time for e in res.events if e.kind == "separate"]
        if law == "newton":
            assert t_leave == pytest.approx(1.16646969, abs=1e-8)
        assert leaves == ([pytest.approx(t_leave, abs=1e-8)] if t_leave else [])
        on_belt = (res.t > t_strike + 1e-9) & (res.t < (t_leave or np.inf))
        assert np.abs(height[on_belt]).max() < 1e-9
        if t_leave:
            assert np.all(height[res.t > t_leave + 1e-3] > 1e-9)
        stuck = (res.t > t_stick + 1e-9) & (res.t < 1.05)
        np.testing.assert_allclose(velocity[stuck], cp.VB, atol=1e-9)
