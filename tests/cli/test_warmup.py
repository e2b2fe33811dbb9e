"""``mechsim warmup``: each kind of run compiled ahead, in worker processes, and its models sound."""
import numpy as np
import pytest

import mechsim as ms
from mechsim.cli import warmup
from mechsim.cli.main import main


def test_warmup_compiles_each_kind_and_says_how_long(capsys):
    assert main(["warmup", "--jobs", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("compiling mechsim's kernels for open chains, closed loops, the null-space formulation, "
                             "contacts, load frictions")
    assert [line.split(":")[0].strip() for line in out[1:6]] == list(warmup.KINDS)
    assert out[-1].startswith("done in ")


def test_warmup_models_are_an_open_chain_and_a_closed_parallelogram():
    chain, loop = ms.load_dict(warmup.OPEN_CHAIN), ms.load_dict(warmup.CLOSED_LOOP)
    assert chain.compile().is_tree and not loop.compile().is_tree
    res = loop.simulate(t_end=0.2)
    assert np.max(res.constraint_error) < 1e-8
    # a parallelogram: the rocker turns with the crank, the coupler stays parallel to the ground
    assert np.allclose(res["j4.q"], res["j1.q"], atol=1e-8) and np.allclose(res["j1.q"] + res["j2.q"], 0, atol=1e-8)


def test_bad_job_count_is_a_one_line_error(capsys):
    assert main(["warmup", "--jobs", "0"]) == 1
    assert capsys.readouterr().err == "error: --jobs must be at least 1, got 0\n"


def test_warmup_ball_bounces_once_in_the_compiled_loop_then_lands_rolling():
    """Dropped 0.1 m (1.40 m/s), it rebounds at e v = 0.70 m/s >= min_bounce_speed 0.5 with a sticking impulse
    (2/7 m slip = 0.29 N s against mu (1 + e) m v = 0.63 N s), then lands at 0.70 m/s and closes, rolling."""
    res = ms.load_dict(warmup.CONTACTS).simulate(t_end=0.6)
    v = np.sqrt(2 * 9.81 * 0.1)
    kinds = [(e.kind, e.name) for e in res.events]
    assert kinds == [("impact", "floor"), ("impact", "floor")]
    assert res.events[0].time == pytest.approx(v / 9.81, abs=1e-9)
    assert res.events[1].time == pytest.approx(v / 9.81 * 2, abs=1e-9)
    assert "rebounds at 0.70" in res.events[0].detail and "closes, sticking" in res.events[1].detail
    assert res["floor.mode"][-1] == 2 and res["floor.normal_force"][-1] == pytest.approx(9.81, rel=1e-9)
