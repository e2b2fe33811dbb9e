"""Events (SPEC §3, C5): crossing times against closed forms with every solver that has dense
output and both backends, double crossings inside one step, directions, terminal counts, no
re-firing, actions that change the state (the bouncing ball's geometric series) and a clean end
where the events accumulate."""
import numpy as np
import pytest
from scipy.special import ellipk

import mechsim as ms

G = 9.81
DENSE_SOLVERS = ["RK23", "RK45", "DOP853", "Radau", "BDF", "LSODA"]
TIGHT = dict(rtol=1e-11, atol=1e-12)


def pendulum(theta0):
    """A 1 m rod on a hinge, hanging along -y at q = 0: equivalent length 2/3 m."""
    m = ms.Model("pendulum", gravity=(0, -G, 0))
    m.add_body("rod", mass=1.0, com=(0, -0.5, 0), inertia=(1 / 12, 0, 1 / 12))
    m.add_joint("j1", "revolute", parent="ground", child="rod", axis=(0, 0, 1), q0=theta0)
    return m


def time_to_bottom(theta0, length=2 / 3):
    """A quarter period of the pendulum released from rest at theta0: K(sin^2(theta0/2)) / omega0."""
    return ellipk(np.sin(theta0 / 2) ** 2) / np.sqrt(G / length)


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


def test_double_crossing_inside_one_large_step_is_found():
    """x = x0 cos(omega t) rises above 0.99 x0 only for 2 acos(0.99)/omega = 0.094 s around each peak,
    while DOP853 at loose tolerances steps ~0.5 s; the sampled interpolant finds both crossings."""
    omega, x0 = 3.0, 0.2
    m = slider(x0, stiffness=2.0 * omega ** 2, gravity=0.0)
    level = ms.Event("y.q", value=0.99 * x0)
    res = m.simulate(t_end=4.0, solver="DOP853", rtol=1e-4, atol=1e-6, events=[level])
    assert np.diff(res.t).max() > 0.3                                  # the steps are large
    period = 2 * np.pi / omega
    half_width = np.arccos(0.99) / omega
    exact = np.array([half_width, period - half_width, period + half_width])   # the next one is past 4 s
    np.testing.assert_allclose(res.t_events[0], exact, atol=1e-3)      # the loose run: x to ~1e-5, slow near the peak


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
