"""ms.simulate_batch: many runs of one model in threads, each equal to the run made alone."""
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms

from distributed_helpers import pendulum

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
OPTIONS = dict(t_end=1.5, rtol=1e-9, atol=1e-11)


def alone(model, values):
    return model.with_parameters(values).simulate(**OPTIONS)


def test_each_run_equals_the_same_run_made_alone_in_input_order():
    m = pendulum()
    runs = [{"joints.j1.q0": 0.1 * k} for k in range(1, 5)] + [{"bodies.bob.com[0]": 0.5, "joints.j1.v0": [0.2]},
                                                             {"bodies.bob.mass": 3.0, "inputs.u": 0.4}]
    results = ms.simulate_batch(m, runs, threads=2, **OPTIONS)
    assert len(results) == len(runs)
    for values, result in zip(runs, results):
        reference = alone(m, values)
        assert result.success and np.array_equal(result.t, reference.t)
        assert np.array_equal(result["j1.q"], reference["j1.q"])
        assert [e.time for e in result.events] == [e.time for e in reference.events]


def test_a_state_as_a_run_starts_there():
    m = pendulum()
    start = m.with_parameters({"joints.j1.q0": 0.25}).assemble()
    [result] = ms.simulate_batch(m, [start], **OPTIONS)
    assert result["j1.q"][0] == 0.25
    assert np.array_equal(result["j1.q"], alone(m, {"joints.j1.q0": 0.25})["j1.q"])


def test_closed_loop_runs_are_assembled_from_their_q0():
    four_bar = ms.load(EXAMPLES / "four_bar.yaml")
    runs = [{"joints.j1.q0": q} for q in (0.9, 1.1)]
    results = ms.simulate_batch(four_bar, runs, t_end=0.5, rtol=1e-8, atol=1e-10)
    for values, result in zip(runs, results):
        reference = four_bar.with_parameters(values).simulate(t_end=0.5, rtol=1e-8, atol=1e-10)
        assert result.success and np.allclose(result["j4.q"], reference["j4.q"], rtol=0, atol=1e-12)
    assert abs(results[0]["j1.q"][0] - results[1]["j1.q"][0]) > 0.05     # assembled near different q0


def test_a_failing_run_gives_its_partial_result_and_the_others_finish():
    m = pendulum()

    def late(sim, t, state):
        if t > 1.2:
            raise RuntimeError("released too late")
    m.events["half"] = ms.Event("j1.v", action=late, direction=1, name="half")
    long, short = ms.simulate_batch(m, [{"bodies.bob.com[0]": 2.5}, {"bodies.bob.com[0]": 1.0}], t_end=2.0)
    assert not long.success and "released too late" in long.message and 1.2 < long.t[-1] < 2.0
    assert short.success and short.t[-1] == 2.0


def test_bad_input_is_refused_before_any_run_naming_the_run():
    m = pendulum()
    with pytest.raises(ms.ModelError, match=r"run 1: parameter 'bodies.bob.mas'"):
        ms.simulate_batch(m, [{"bodies.bob.mass": 2.0}, {"bodies.bob.mas": 2.0}], t_end=1.0)
    with pytest.raises(ms.ModelError, match=r"run 0: .*has zero mass"):
        ms.simulate_batch(m, [{"bodies.bob.mass": 0.0}], t_end=1.0)
    with pytest.raises(ms.ModelError, match="run 0: give a dict of parameter paths or an ms.State"):
        ms.simulate_batch(m, [0.3], t_end=1.0)
    with pytest.raises(ms.ModelError, match="threads must be a positive integer"):
        ms.simulate_batch(m, [{}], t_end=1.0, threads=0)
    with pytest.raises(ms.ModelError, match="solver"):
        ms.simulate_batch(m, [{}], t_end=1.0, solver="RK99")
