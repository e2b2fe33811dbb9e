"""``mechsim warmup``: each kind of run compiled ahead, in worker processes, and its models sound."""
import numpy as np

import mechsim as ms
from mechsim.cli import warmup
from mechsim.cli.main import main


def test_warmup_compiles_each_kind_and_says_how_long(capsys):
    assert main(["warmup", "--jobs", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("compiling mechsim's kernels for open chains, closed loops, the null-space formulation")
    assert [line.split(":")[0].strip() for line in out[1:4]] == list(warmup.KINDS)
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
