"""m.check()'s hint on redundancy that holds only along the motion: equations redundant at the assembled
configuration and independent just off it. The default Cholesky solve works on the independent equations and leaves
the dropped ones to the drift control; constraint_solver="qr" solves them all."""
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("name", ["bricard", "five_bar"])
def test_an_overconstrained_loop_gets_the_qr_hint(name):
    # Bricard's 6R loop (closure rank 4 of 5) and three parallel cranks of equal length (Del Citto et al. 2005)
    info = ms.load(EXAMPLES / f"{name}.yaml").check()
    assert len(info.hints) == 1 and 'constraint_solver="qr"' in info.hints[0]
    assert all(label in info.hints[0] for label in info.redundant)
    assert "\nhint: the equations " in str(info)


@pytest.mark.parametrize("name", ["four_bar", "slider_crank", "andrews_squeezer"])
def test_redundancy_by_the_loops_shape_gets_no_hint(name):
    # planar loops built of 3D joints: the dropped equations follow from the kept ones everywhere
    info = ms.load(EXAMPLES / f"{name}.yaml").check()
    assert info.redundant and info.hints == []
    assert "hint" not in str(info)


def test_a_tree_gets_no_hint():
    assert ms.load(EXAMPLES / "double_pendulum.yaml").check().hints == []


def test_the_hint_is_right_on_bricard_qr_takes_fewer_evaluations_to_the_same_motion():
    m = ms.load(EXAMPLES / "bricard.yaml")
    t = np.linspace(0.0, 2.0, 201)
    runs = {solver: m.simulate(t_end=2.0, t_eval=t, solver="DOP853", rtol=1e-9, atol=1e-9, constraint_solver=solver)
            for solver in ("cholesky", "qr")}
    assert runs["qr"].stats["rhs_evaluations"] < 0.75 * runs["cholesky"].stats["rhs_evaluations"]
    assert np.abs(runs["qr"].q - runs["cholesky"].q).max() < 1e-6
    assert runs["qr"].constraint_error.max() < 1e-9
