"""Events (SPEC §3, C5): crossing times against closed forms with every solver that has dense
output and both backends, double crossings inside one step, directions, terminal counts, no
re-firing, actions that change the state (the bouncing ball's geometric series) and a clean end
where the events accumulate."""
import numpy as np
import pytest
from scipy.special import ellipk, ellipkinc

import mechsim as ms

G = 9.81
DENSE_SOLVERS = ["RK23", "RK45", "DOP853", "Radau", "BDF", "LSODA"]
TIGHT = dict(rtol=1e-11, atol=1e-12)
LOOSE = dict(rtol=1e-4, atol=1e-6)


def pendulum(theta0):
    """A 1 m rod on a hinge, hanging along -y at q = 0: equivalent length 2/3 m."""
    m = ms.Model("pendulum", gravity=(0, -G, 0))
    m.add_body("rod", mass=1.0, com=(0, -0.5, 0), inertia=(1 / 12, 0, 1 / 12))
    m.add_joint("j1", "revolute", parent="ground", child="rod", axis=(0, 0, 1), q0=theta0)
    return m


def time_to_bottom(theta0, length=2 / 3):
    """A quarter period of the pendulum released from rest at theta0: K(sin^2(theta0/2)) / omega0."""
    return ellipk(np.sin(theta0 / 2) ** 2) / np.sqrt(G / length)


def time_to_angle(theta0, theta, length=2 / 3):
    """The time the pendulum released from rest at theta0 takes to swing down to theta: sin(theta/2) =
    k sn(K - omega0 t | k^2), k = sin(theta0/2), so t = (K - F(asin(sin(theta/2) / k) | k^2)) / omega0."""
    k = np.sin(theta0 / 2)
    return (ellipk(k ** 2) - ellipkinc(np.arcsin(np.sin(theta / 2) / k), k ** 2)) / np.sqrt(G / length)


def slider(x0=0.0, v0=0.0, stiffness=0.0, gravity=-G):
    """A 2 kg block on a vertical prismatic joint, optionally on a spring to q = 0."""
    m = ms.Model("slider", gravity=(0, gravity, 0))
    m.add_body("block", mass=2.0, inertia=(0.1, 0.1, 0.1))
    m.add_joint("y", "prismatic", parent="ground", child="block", axis=(0, 1, 0), q0=x0, v0=v0)
    if stiffness:
        m.add_force("spring", "joint_spring_damper", joint="y", stiffness=stiffness)
    return m


@pytest.mark.parametrize("solver", DENSE_SOLVERS)
def test_pendulum_reaches_the_bottom_at_the_elliptic_quarter_period(solver):
    theta0 = 1.2
    bottom = ms.Event("j1.q", value=0.0, direction=-1, terminal=True)
    res = pendulum(theta0).simulate(t_end=5.0, solver=solver, events=[bottom], **TIGHT)
    assert res.t_events[0].shape == (1,)
    assert res.t_events[0][0] == pytest.approx(time_to_bottom(theta0), abs=1e-9)
    assert res.t[-1] == res.t_events[0][0] and res.message.startswith("A termination event")
    assert res.events[0].kind == "user" and res.events[0].name == "j1.q"
    assert abs(res.y_events[0][0][0]) < 1e-12                        # the state at the event: q = 0


@pytest.mark.parametrize("backend", ["compiled", "python"])
def test_free_fall_to_a_height_by_coordinate_body_signal_and_callable(backend):
    x0, h = 10.0, 2.5
    exact = np.sqrt(2 * (x0 - h) / G)
    events = [ms.Event("y.q", value=h, direction=-1),
              ms.Event("block.position[1]", value=h, name="height"),
              ms.Event(lambda t, s: s["y.q"] - h, name="callable"),
              ms.Event("block.velocity[1]", value=-G * exact, name="speed")]
    res = slider(x0).simulate(t_end=2.0, events=events, backend=backend, **TIGHT)
    assert res.stats["backend"] == backend
    for k in range(4):
        np.testing.assert_allclose(res.t_events[k], [exact], atol=1e-9)
    assert [r.name for r in res.events] == ["y.q", "height", "callable", "speed"]


@pytest.mark.parametrize("solver", ["RK23", "RK45", "DOP853"])
def test_mass_spring_zero_crossings_every_half_period(solver):
    omega, x0 = 3.0, 0.2
    m = slider(x0, stiffness=2.0 * omega ** 2, gravity=0.0)
    res = m.simulate(t_end=4.0, solver=solver, events=[ms.Event("y.q")], **TIGHT)
    exact = (2 * np.arange(4) + 1) * np.pi / (2 * omega)
    np.testing.assert_allclose(res.t_events[0], exact, atol=1e-9)
    down = m.simulate(t_end=4.0, solver=solver, events=[ms.Event("y.q", direction=-1)], **TIGHT)
    np.testing.assert_allclose(down.t_events[0], exact[::2], atol=1e-9)


def test_other_signals_are_watched_from_python():
    """y.a = -(k/m) y crosses zero with y: a signal outside the compiled set (accelerations, forces)."""
    omega = 3.0
    m = slider(0.2, stiffness=2.0 * omega ** 2, gravity=0.0)
    res = m.simulate(t_end=2.0, events=[ms.Event("y.a", direction=1)], **TIGHT)
    np.testing.assert_allclose(res.t_events[0], [np.pi / (2 * omega)], atol=1e-9)
    assert res.stats["backend"] == "compiled"


def test_double_crossing_inside_one_large_step_is_found():
    """x = x0 cos(omega t) rises above 0.97 x0 only for 2 acos(0.97)/omega = 0.164 s around each peak,
    while DOP853 at loose tolerances steps up to ~0.6 s; the event functions are sampled at 4 interior
    points of each step, at most 0.6/5 = 0.12 s apart, closer than the window is wide: the sampled
    interpolant finds both crossings. (A window narrower than the sample spacing can fall between samples.)"""
    omega, x0 = 3.0, 0.2
    m = slider(x0, stiffness=2.0 * omega ** 2, gravity=0.0)
    level = ms.Event("y.q", value=0.97 * x0)
    res = m.simulate(t_end=4.0, solver="DOP853", rtol=1e-4, atol=1e-6, events=[level])
    assert np.diff(res.t).max() > 0.3                                  # the steps are large
    period = 2 * np.pi / omega
    half_width = np.arccos(0.97) / omega
    exact = np.array([half_width, period - half_width, period + half_width])   # the next one is past 4 s
    np.testing.assert_allclose(res.t_events[0], exact, atol=1e-3)      # the loose run: x to ~1e-5, slow near the peak


TURN_LEVEL = 0.999          # 1 mrad below the pendulum's turning point when released at 1 rad


def turn_crossings(direction=0, t_end=6.0):
    """The exact times the pendulum released at 1 rad passes TURN_LEVEL up to t_end: t1 after each return to
    1 rad at n T going down, t1 before it going up (seven to 6 s); those in ``direction`` (0: both)."""
    t1, period = time_to_angle(1.0, TURN_LEVEL), 4 * time_to_bottom(1.0)
    down, up = period * np.arange(4) + t1, period * np.arange(1, 4) - t1
    times = {1: up, -1: down, 0: np.sort(np.concatenate([down, up]))}[direction]
    return times[times <= t_end]


def loose_bound(res, rate):
    """How far a crossing of a LOOSE run may lie from the exact one, to first order: every step keeps its local
    error below sqrt(2) (atol + rtol max|y|) (the RMS norm of a state of 2 below 1, HNW (4.11); max|y| the
    pendulum's top speed 2 sin(1/2) omega0 = 3.7 rad/s), summed over the run's steps, over the signal's rate
    at the level."""
    top_speed = 2 * np.sin(0.5) * np.sqrt(G / (2 / 3))
    return res.stats["steps"] * np.sqrt(2) * (LOOSE["atol"] + LOOSE["rtol"] * top_speed) / abs(rate)


def check_located(res, exact, signs):
    """Every crossing found, in its direction, on the run's own dense output (Brent's refinement there to a few
    ulps of t: the located state is on the level to far below 1e-9 s of its motion) and at the exact time
    within the run's error."""
    t, (q, v) = res.t_events[0], res.y_events[0].T
    assert t.shape == exact.shape and np.all(np.sign(v) == signs)
    assert np.all(np.abs(q - TURN_LEVEL) <= 1e-9 * np.abs(v))
    rate = np.sqrt(2 * G / (2 / 3) * (np.cos(TURN_LEVEL) - np.cos(1.0)))   # |q'| at the level, by energy
    np.testing.assert_allclose(t, exact, rtol=0, atol=loose_bound(res, rate))


@pytest.mark.parametrize("options", [dict(solver="DOP853"), dict(solver="DOP853", backend="python"),
                                     dict(solver="RK45", backend="python")])
def test_a_level_crossed_twice_inside_one_step_is_found_at_every_turn(options):
    """The pendulum released at 1 rad is above 0.999 rad for 2 t1 = 0.025 s around each return to 1 rad, while
    DOP853 at rtol 1e-4 steps ~0.35 s (RK45 ~0.15 s): four samples per step miss the excursion. The extremum of
    q inside the step (the root of its rate v on the dense output) is above the level: a crossing on either side."""
    event = ms.Event("j1.q", value=TURN_LEVEL)
    res = pendulum(1.0).simulate(t_end=6.0, events=[event], **options, **LOOSE)
    assert res.stats["backend"] == options.get("backend", "compiled")
    exact = turn_crossings()
    assert len(exact) == 7 and np.diff(res.t).max() > 4 * (exact[2] - exact[1])      # steps wider than the window
    check_located(res, exact, [-1, 1, -1, 1, -1, 1, -1])


@pytest.mark.parametrize("backend", ["compiled", "python"])
@pytest.mark.parametrize("direction", [1, -1])
def test_a_double_crossing_fires_in_the_event_direction_only(backend, direction):
    event = ms.Event("j1.q", value=TURN_LEVEL, direction=direction)
    res = pendulum(1.0).simulate(t_end=6.0, solver="DOP853", events=[event], backend=backend, **LOOSE)
    exact = turn_crossings(direction)
    check_located(res, exact, [direction] * len(exact))


def test_a_body_position_crossed_twice_inside_one_step_is_found():
    """x = x0 cos(omega t) is above 0.999 x0 for 2 acos(0.999) / omega = 0.030 s around each peak, in steps of
    ~0.6 s: the extremum of the block's height (the root of its velocity) is tested, as for a coordinate."""
    omega, x0 = 3.0, 0.2
    m = slider(x0, stiffness=2.0 * omega ** 2, gravity=0.0)
    res = m.simulate(t_end=7.0, solver="DOP853", events=[ms.Event("block.position[1]", value=0.999 * x0)], **LOOSE)
    half_width, period = np.arccos(0.999) / omega, 2 * np.pi / omega
    exact = np.sort(np.concatenate([period * np.arange(4) + half_width, period * np.arange(1, 4) - half_width]))
    assert np.diff(res.t).max() > 10 * half_width
    height, speed = res.y_events[0].T
    assert np.all(np.sign(speed) == [-1, 1, -1, 1, -1, 1, -1])
    # the run's error over the steps (see loose_bound), at the speed x0 omega sin(acos(0.999)) at the level
    bound = res.stats["steps"] * np.sqrt(2) * (LOOSE["atol"] + LOOSE["rtol"] * x0 * omega) / (x0 * omega * 0.0447)
    np.testing.assert_allclose(res.t_events[0], exact, rtol=0, atol=bound)


def test_terminal_count_and_solve_ivp_style_functions():
    omega = 3.0
    m = slider(0.2, stiffness=2.0 * omega ** 2, gravity=0.0)

    def through_zero(t, state):
        return state[0]                                    # state[i]: entry i of [q; v], as solve_ivp's y
    through_zero.terminal = 3
    res = m.simulate(t_end=10.0, events=[through_zero], **TIGHT)
    np.testing.assert_allclose(res.t_events[0], (2 * np.arange(3) + 1) * np.pi / (2 * omega), atol=1e-9)
    assert res.t[-1] == pytest.approx(5 * np.pi / (2 * omega), abs=1e-9)


def test_an_event_without_effect_does_not_fire_again_at_its_restart_point():
    calls = []
    event = ms.Event("y.q", value=2.5, action=lambda sim, t, state: calls.append(t))
    res = slider(10.0).simulate(t_end=2.0, events=[event], **TIGHT)
    assert len(calls) == len(res.t_events[0]) == 1


@pytest.mark.parametrize("backend", ["compiled", "python"])
def test_action_sets_an_input(backend):
    """A block pushed up by an input force that an event switches off at y = 1: then free flight."""
    m = slider(0.0)
    m.add_input("push", default=0.0)
    m.add_force("thrust", "joint_force", joint="y", value="push")

    def cut(sim, t, state):
        sim.set_input("push", 0.0)
    res = m.simulate(t_end=1.2, inputs={"push": 2 * (G + 5.0)}, events=[ms.Event("y.q", value=1.0, action=cut)],
                     backend=backend, **TIGHT)
    t1 = np.sqrt(2 / 5.0)                                   # a = 5 m/s^2 up to y = 1
    assert res.t_events[0][0] == pytest.approx(t1, abs=1e-9)
    after = res.t > t1 + 1e-9
    v1 = 5.0 * t1
    tt = res.t[after] - t1
    np.testing.assert_allclose(res["y.q"][after], 1.0 + v1 * tt - G * tt ** 2 / 2, atol=1e-8)


def bouncing_ball(restitution):
    m = slider(1.0)
    bounce = ms.Event("y.q", direction=-1, name="bounce",
                      action=lambda sim, t, state: sim.set_state(v=[-restitution * state["y.v"]]))
    return m, bounce


@pytest.mark.parametrize("backend", ["compiled", "python"])
def test_bouncing_ball_impacts_follow_the_geometric_series(backend):
    e = 0.8
    m, bounce = bouncing_ball(e)
    res = m.simulate(t_end=3.0, events=[bounce], backend=backend, **TIGHT)
    v1 = np.sqrt(2 * G * 1.0)
    n = len(res.t_events[0])
    exact = np.sqrt(2 / G) + np.concatenate([[0.0], np.cumsum(2 * v1 * e ** np.arange(1, n) / G)])
    assert n >= 6
    np.testing.assert_allclose(res.t_events[0], exact, atol=1e-8)
    assert np.all(res["y.q"] > -1e-9)                        # never through the floor


def test_bouncing_ball_ends_cleanly_where_the_impacts_accumulate():
    e = 0.5
    m, bounce = bouncing_ball(e)
    v1 = np.sqrt(2 * G)
    t_limit = np.sqrt(2 / G) + 2 * v1 * e / (G * (1 - e))
    with pytest.raises(ms.SimulationError, match="accumulate") as info:
        m.simulate(t_end=2 * t_limit, events=[bounce], **TIGHT)
    partial = info.value.partial
    assert partial.t[-1] == pytest.approx(t_limit, abs=1e-6)
    assert len(partial.t_events[0]) > 20


def test_a_stop_action_ends_the_run():
    res = slider(10.0).simulate(t_end=2.0, events=[ms.Event("y.q", value=5.0, action=lambda s, t, x: "stop")])
    assert res.t[-1] == pytest.approx(np.sqrt(2 * 5.0 / G), abs=1e-6)


def test_events_with_output_times_keep_the_grid_before_the_event():
    t_eval = np.linspace(0, 2, 41)
    res = slider(10.0).simulate(t_end=2.0, t_eval=t_eval, events=[ms.Event("y.q", value=2.5, terminal=True)],
                                **TIGHT)
    t_hit = np.sqrt(2 * 7.5 / G)
    np.testing.assert_allclose(res.t, t_eval[t_eval <= t_hit])        # as solve_ivp: the grid only
    assert res.t_events[0][0] == pytest.approx(t_hit, abs=1e-9)


def test_bad_event_arguments_are_refused():
    m = slider(1.0)
    with pytest.raises(ms.MechsimError, match="unknown signal"):
        m.simulate(t_end=1.0, events=[ms.Event("nope.q")])
    with pytest.raises(ms.MechsimError, match="component"):
        m.simulate(t_end=1.0, events=[ms.Event("block.position")])
    with pytest.raises(ms.MechsimError, match="terminal"):
        ms.Event("y.q", terminal=-1)


# ----------------------------------------------------------------------- actions that change the model
def test_a_driver_added_and_removed_by_actions_holds_then_releases_the_block():
    """A block falls along y; at y = 0.5 a driver holds it (its velocity projected to zero, the driver
    force = m g); at t = 1 the driver goes and it falls again from rest."""
    m = slider(1.0)
    hold = ms.Event("y.q", value=0.5, direction=-1, action=lambda sim, t, s: sim.add_driver("y", position=0.5))
    release = ms.Event(lambda t, s: t - 1.0, name="release", action=lambda sim, t, s: sim.remove_driver("y"))
    res = m.simulate(t_end=1.2, events=[hold, release], **TIGHT)
    t1 = np.sqrt(2 * 0.5 / G)
    np.testing.assert_allclose(np.concatenate(res.t_events), [t1, 1.0], atol=1e-9)
    held = (res.t > t1 + 1e-9) & (res.t < 1.0 - 1e-9)
    np.testing.assert_allclose(res["y.q"][held], 0.5, atol=1e-12)
    np.testing.assert_allclose(res["y.force"][held], 2.0 * G, rtol=1e-9)        # the driver carries m g
    after = res.t > 1.0
    np.testing.assert_allclose(res["y.q"][after], 0.5 - G * (res.t[after] - 1.0) ** 2 / 2, atol=1e-9)
    assert m.drivers == {}                                          # the user's model is left as it was
    assert len(res.parts) == 3


def test_an_inconsistent_driver_added_by_an_action_is_named():
    m = slider(1.0)
    m.add_driver("y", position="1 - t")
    twice = ms.Event("y.q", value=0.5, action=lambda sim, t, s: sim.add_driver("y", position=0.5, name="again"))
    with pytest.raises(ms.ModelError, match="driver 'again'.*inconsistent"):
        m.simulate(t_end=1.0, events=[twice])


def test_set_changes_a_spring_mid_run():
    """x = x0 cos(w t) to the first zero; the stiffness then quadruples: x = -(x0 w / 2w) sin(2w (t - t1))."""
    omega, x0 = 3.0, 0.2
    m = slider(x0, stiffness=2.0 * omega ** 2, gravity=0.0)
    stiffen = ms.Event("y.q", action=lambda sim, t, s: sim.set("spring", stiffness=4 * 2.0 * omega ** 2),
                       terminal=2)
    res = m.simulate(t_end=3.0, events=[stiffen], **TIGHT)
    t1 = np.pi / (2 * omega)
    np.testing.assert_allclose(res.t_events[0], [t1, t1 + np.pi / (2 * omega)], atol=1e-9)
    after = res.t > t1 + 1e-9
    np.testing.assert_allclose(res["y.q"][after], -x0 / 2 * np.sin(2 * omega * (res.t[after] - t1)), atol=1e-9)
    assert m.forces["spring"].stiffness == 2.0 * omega ** 2


def test_a_rope_added_mid_flight_turns_the_fall_into_a_swing():
    """A ball thrown on a plane (planar joint); at t = 0.3 a rope of the current length to the origin
    is added: from then the distance stays, the radial velocity is gone (kinetic energy drops by
    m v_r^2 / 2), energy is conserved, and the rope's reaction exists only after."""
    m = ms.Model("ball", gravity=(0, -G, 0))
    m.add_body("ball", mass=1.5, inertia=(0.01, 0.01, 0.01))
    m.add_joint("plane", "planar", parent="ground", child="ball", q0=[1.0, 0.0, 0.0], v0=[0.0, 1.0, 0.0])

    def tie(sim, t, state):
        x, y = state.q[:2]
        sim.add_constraint("rope", "distance", body_a="ground", point_a=(0, 0, 0), body_b="ball",
                           point_b=(0, 0, 0), length=float(np.hypot(x, y)))
    res = m.simulate(t_end=1.5, events=[ms.Event(lambda t, s: t - 0.3, name="tie", action=tie)], **TIGHT)
    t_tie = res.t_events[0][0]
    before, after = res.t < t_tie - 1e-9, res.t > t_tie + 1e-9
    x, y, vx, vy = res.q[:, 0], res.q[:, 1], res.v[:, 0], res.v[:, 1]
    r = np.hypot(x, y)
    assert np.ptp(r[after]) < 1e-9
    energy = 0.5 * 1.5 * (vx ** 2 + vy ** 2) + 1.5 * G * y
    assert np.ptp(energy[after]) < 1e-7 and np.ptp(energy[before]) < 1e-7
    y_hit = res.y_events[0][0]
    radial = (y_hit[0] * y_hit[3] + y_hit[1] * y_hit[4]) / np.hypot(y_hit[0], y_hit[1])
    assert energy[after][0] == pytest.approx(energy[before][-1] - 0.5 * 1.5 * radial ** 2, rel=1e-9)
    reaction = res["rope.reaction"]
    assert np.all(np.isnan(reaction[before])) and np.all(np.isfinite(reaction[after]))


def stick_slip_belt():
    """A 1 kg block tied to the ground by a 100 N/m spring, on a belt at 0.2 m/s with joint friction of
    levels 5 N (static) and 3 N (kinetic): it sticks and slips in turn (examples/stick_slip_belt.py)."""
    m = ms.Model("belt", gravity=(0, 0, -G))
    m.add_body("belt", mass=10.0, inertia=(1, 1, 1))
    m.add_body("block", mass=1.0, inertia=(0.01, 0.01, 0.01))
    m.add_joint("belt_x", "prismatic", parent="ground", child="belt", axis=(1, 0, 0))
    m.add_joint("slip", "prismatic", parent="belt", child="block", axis=(1, 0, 0))
    m.add_driver("belt_x", position="0.2*t")
    m.add_force("friction", "joint_friction", joint="slip", static=5.0, kinetic=3.0)
    m.add_force("spring", "spring_damper", body_a="ground", point_a=(-1.0, 0, 0), body_b="block", stiffness=100.0,
                rest_length=1.0)
    return m


def rolling_ball():
    """A ball launched at 2 m/s without spin on a table with friction 0.2: it slides, then rolls."""
    m = ms.Model("ball", gravity=(0, 0, -G))
    m.add_body("ball", mass=0.17, inertia=(0.4 * 0.17 * 0.0286 ** 2,) * 3)
    m.add_joint("free", "free", parent="ground", child="ball", q0=[0, 0, 0.0286, 1, 0, 0, 0], v0=[2, 0, 0, 0, 0, 0])
    m.add_contact("cloth", body="ball", shape="sphere", radius=0.0286, restitution=0.0, static=0.2, kinetic=0.2)
    return m


@pytest.mark.parametrize("build, t_end, switches", [(stick_slip_belt, 2.0, 5), (rolling_ball, 1.0, 1)])
def test_crossings_the_compiled_loop_returns_are_located_there_as_the_driver_locates_them(build, t_end, switches,
                                                                                        monkeypatch):
    """Stepper.locate: a crossing the compiled loop leaves to Python (a joint friction that sticks or breaks
    loose, a contact that starts rolling) is located by one compiled call; the same locator interpreted from
    Python (the driver's Watcher) on the same steps finds the same instants to a few ulps, and the runs go on
    alike."""
    from mechsim.integrators.explicit import CompiledStepper
    located, locate = [], CompiledStepper.locate
    monkeypatch.setattr(CompiledStepper, "locate", lambda self: located.append(locate(self)) or located[-1])
    model = build()
    res = model.simulate(t_end=t_end, solver="DOP853", rtol=1e-10, atol=1e-10)
    assert res.success and res.stats["backend"] == "compiled"
    assert len([x for x in located if x is not None]) >= switches
    monkeypatch.setattr(CompiledStepper, "locate", lambda self: None)       # the driver's Watcher, every time
    ref = model.simulate(t_end=t_end, solver="DOP853", rtol=1e-10, atol=1e-10)
    assert [(e.kind, e.name) for e in res.events] == [(e.kind, e.name) for e in ref.events]
    assert len(res.events) >= switches
    np.testing.assert_allclose([e.time for e in res.events], [e.time for e in ref.events], rtol=0, atol=1e-13)
    np.testing.assert_allclose(np.hstack([res.q[-1], res.v[-1]]), np.hstack([ref.q[-1], ref.v[-1]]), rtol=0,
                               atol=1e-11)
