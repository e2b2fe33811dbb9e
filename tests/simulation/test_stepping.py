"""A run advanced in steps (simulation/stepping.py, an FMU's doStep) is one m.simulate: its hybrid state kept."""
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms
from mechsim.simulation.stepping import SteppedRun

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def switches(records):
    return [(record.time, record.kind, record.name) for record in records]


def test_the_stick_slip_belt_stepped_switches_when_one_run_does():
    m = ms.load(EXAMPLES / "stick_slip_belt.yaml")          # DOP853 at rtol 1e-10 (its simulation section)
    reference = m.simulate(t_end=4.0, t_eval=np.arange(1, 401) * 0.01)
    run = SteppedRun(m, t_end=4.0)
    q = []
    for k in range(1, 401):
        run.advance(k * 0.01)
        q.append(run.signals()["slip.q"][0])
    stepped, one = switches(run.events), switches(reference.events)
    assert [s[1:] for s in stepped] == [s[1:] for s in one] and len(one) == 11      # lock/unlock, in order
    assert np.max(np.abs([a[0] - b[0] for a, b in zip(stepped, one)])) < 1e-9
    assert np.max(np.abs(np.array(q) - reference["slip.q"])) < 1e-8


def test_inputs_held_from_a_step_restart_there_as_a_sampled_controller_does():
    m = ms.Model("pendulum", gravity=(0, -9.81, 0))
    m.add_input("u", 0.0)
    m.add_body("rod", mass=1.0, com=(0.5, 0, 0), inertia=(0.0, 1 / 12, 1 / 12))
    m.add_joint("j1", "revolute", parent="ground", child="rod", axis=(0, 0, 1), q0=0.5)
    m.add_force("motor", "joint_force", joint="j1", value="u")
    run = SteppedRun(m, t_end=1.0, rtol=1e-10, atol=1e-12)
    for k in range(10):
        run.hold_inputs({"u": 0.1 * k})
        run.advance(0.1 * (k + 1))
    reference = m.simulate(t_end=1.0, rtol=1e-10, atol=1e-12, sample_time=0.1,
                           controller=lambda t, outputs: {"u": 0.1 * round(t / 0.1)})
    assert abs(run.signals()["j1.q"][0] - reference["j1.q"][-1]) < 1e-9


def test_a_snapshot_goes_back_to_its_instant_and_mode():
    m = ms.load(EXAMPLES / "stick_slip_belt.yaml")
    run = SteppedRun(m, t_end=2.0)
    run.advance(0.5)                                        # slipping since the unlock at 0.25
    saved = run.snapshot()
    run.advance(1.0)                                        # locked again at 0.72, unlocked at 0.92
    first = run.signals()["slip.q"][0]
    run.restore(saved)
    assert run.t == 0.5
    run.advance(1.0)
    assert abs(run.signals()["slip.q"][0] - first) < 1e-9


def test_a_step_back_in_time_is_refused():
    run = SteppedRun(ms.load(EXAMPLES / "stick_slip_belt.yaml"), t_end=1.0)
    run.advance(0.5)
    with pytest.raises(ms.ModelError, match=r"the run is at t = 0.5"):
        run.advance(0.25)


@pytest.mark.parametrize("example", ["bouncing_ball", "pendulum_stop", "box_on_incline", "disk_on_ramp", "four_bar"])
def test_stepped_examples_equal_one_run(example):
    """Stops with their apex time stops, stiction, rigid contacts (bounces resolved compiled), a closed loop: a step
    past a communication point is taken back where it holds an event or a time stop after it."""
    m = ms.load(EXAMPLES / f"{example}.yaml")
    times = np.arange(1, 201) * 0.01
    reference = m.simulate(t_end=2.0, t_eval=times)
    run = SteppedRun(m, t_end=2.0)
    states = []
    for t in times:
        run.advance(t)
        sample = run.signals()
        states.append(np.concatenate([sample.q[0], sample.v[0]]))
    assert np.max(np.abs(np.array(states) - np.hstack([reference.q, reference.v]))) < 1e-8
    stepped, one = switches(run.events), switches(reference.events)
    assert [s[1:] for s in stepped] == [s[1:] for s in one]
    assert max((abs(a[0] - b[0]) for a, b in zip(stepped, one)), default=0.0) < 1e-9
