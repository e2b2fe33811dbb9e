"""Events in model files (SPEC §4 events:) and on the command line: the event log, options and
their help from the one registry."""
import textwrap

import numpy as np
import pytest

import mechsim as ms
from mechsim.cli.main import main
from mechsim.simulation.options import BACKENDS, SOLVERS

BALL = """\
name: falling-block
gravity: [0, -9.81, 0]
inputs: [push]
bodies:
  - {name: block, mass: 2.0, inertia: [0.1, 0.1, 0.1]}
joints:
  - {name: y, kind: prismatic, parent: ground, child: block, axis: [0, 1, 0], q0: 10.0}
forces:
  - {name: thrust, kind: joint_force, joint: y, value: push}
events:
  - {signal: y.q, value: 5.0, direction: -1, action: {set_input: {push: 39.24}}}
  - {name: floor, signal: "block.position[1]", value: 2.5, terminal: true}
simulation: {t_end: 5.0, rtol: 1.0e-10, atol: 1.0e-12}
"""


@pytest.fixture
def ball(tmp_path):
    path = tmp_path / "ball.yaml"
    path.write_text(textwrap.dedent(BALL))
    return str(path)


def test_model_file_events_run_and_round_trip(ball, tmp_path):
    m = ms.load(ball)
    assert list(m.events) == ["y.q", "floor"]
    res = m.simulate()
    t1 = np.sqrt(2 * 5.0 / 9.81)                       # free fall to y = 5, then 39.24 N up: a = +9.81
    v1 = 9.81 * t1
    t2 = t1 + (v1 - np.sqrt(v1 ** 2 - 2 * 9.81 * 2.5)) / 9.81      # y = 5 - v1 s + 9.81 s^2 / 2 = 2.5
    np.testing.assert_allclose(np.concatenate(res.t_events), [t1, t2], atol=1e-9)
    assert res.t[-1] == pytest.approx(t2, abs=1e-9)
    m.to_yaml(tmp_path / "again.yaml")
    again = ms.load(tmp_path / "again.yaml")
    assert [e.spec for e in again.events.values()] == [e.spec for e in m.events.values()]
    np.testing.assert_allclose(again.simulate().t_events[1], res.t_events[1], rtol=1e-12)


def test_simulate_prints_the_event_log(ball, capsys):
    assert main(["simulate", ball, "--backend", "python"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("event at")]
    assert len(lines) == 2 and "user y.q" in lines[0] and "user floor" in lines[1]


@pytest.mark.parametrize("entry, words", [
    ("{signal: y.q, value: 1, action: jump}", ["action must be 'stop'"]),
    ("{signal: y.q, action: {set_input: {pull: 1}}}", ["unknown input 'pull'"]),
    ("{signal: y.q, velocity: 1}", ["unknown key 'velocity'"]),
    ("{value: 1}", ["signal"]),
])
def test_bad_event_entries_are_named(tmp_path, capsys, entry, words):
    text = BALL.split("events:")[0] + f"events:\n  - {entry}\n"
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "events[0]" in err
    for word in words:
        assert word in err


def test_help_lists_solvers_and_backends_from_the_registry(capsys):
    assert main(["simulate", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for name in SOLVERS + BACKENDS:
        assert name in text
