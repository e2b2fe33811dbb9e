"""mechsim sweep: grids and Monte Carlo studies of a model file from the command line."""
import numpy as np
import pytest

import mechsim as ms
from mechsim.cli.main import main

pd = pytest.importorskip("pandas")

OSCILLATOR = """\
name: oscillator
gravity: [0, 0, 0]
inputs: [u]
bodies:
  - {name: slider, mass: 1.0}
joints:
  - {name: x, kind: prismatic, parent: ground, child: slider, axis: [1, 0, 0], q0: 0.5}
forces:
  - {name: spring, kind: joint_spring_damper, joint: x, stiffness: 4.0, damping: 0.1}
  - {name: push, kind: joint_force, joint: x, value: u}
simulation: {t_end: 1.0, rtol: 1.0e-9, atol: 1.0e-11}
"""


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "oscillator.yaml"
    path.write_text(OSCILLATOR)
    return str(path)


def test_a_grid_to_csv_equals_the_api(model_file, tmp_path, capsys):
    out = tmp_path / "runs.csv"
    assert main(["sweep", model_file, "--param", "bodies.slider.mass=1:2:3", "--param", "inputs.u=0,0.5",
                 "--metric", "max:x.v", "--metric", "final:x.q", "--threads", "2", "-o", str(out)]) == 0
    assert "oscillator: 6 runs, 6 ok, 0 failed" in capsys.readouterr().out
    written = pd.read_csv(out, index_col="run", keep_default_na=False)
    expected = ms.sweep(ms.load(model_file), {"bodies.slider.mass": [1.0, 1.5, 2.0], "inputs.u": [0, 0.5]},
                        metrics=["max:x.v", "final:x.q"], simulate_kwargs={"progress": False}, isolation=False)
    assert list(written.columns) == list(expected.columns)
    assert np.allclose(written[["max:x.v", "final:x.q"]], expected[["max:x.v", "final:x.q"]], rtol=1e-12, atol=0)


def test_monte_carlo_prints_the_table_and_uses_the_options(model_file, capsys):
    assert main(["sweep", model_file, "--param", "joints.x.q0=normal(0.5, 0.05)", "--samples", "4", "--seed", "2",
                 "--t-end", "0.5", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "4 runs, 4 ok" in out and "joints.x.q0" in out and "final:x.q" in out
    draws = ms.sweep(ms.load(model_file), {"joints.x.q0": ms.normal(0.5, 0.05)}, samples=4, seed=2,
                     simulate_kwargs={"t_end": 0.5}, isolation=False)
    for value in draws["joints.x.q0"]:
        assert f"{value:.6f}" in out


@pytest.mark.parametrize("argv, message", [
    (["--param", "bodies.slidr.mass=1,2"], "no body 'slidr' (did you mean 'slider'?)"),
    (["--param", "bodies.slider.mass=1:2"], "write a range as LOW:HIGH:COUNT"),
    (["--param", "bodies.slider.mass"], "expected PATH=VALUES"),
    (["--param", "bodies.slider.mass=normal(1)", "--samples", "3"], "normal() takes two numbers"),
    (["--param", "bodies.slider.mass=normal(1,0.1)"], "give --samples=N"),
    (["--param", "bodies.slider.mass=1,2", "--metric", "max:y.q"], "no signal 'y.q'"),
    (["--param", "bodies.slider.mass=1,2", "-o", "runs.txt"], "ending in .csv or .parquet"),
])
def test_mistakes_are_one_error_line(model_file, capsys, argv, message):
    assert main(["sweep", model_file, *argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_a_dask_scheduler_address_runs_the_sweep_there(model_file, capsys):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        assert main(["sweep", model_file, "--param", "bodies.slider.mass=1,2", "--metric", "final:x.q",
                     "--scheduler", cluster.scheduler_address]) == 0
    out = capsys.readouterr().out
    local = ms.sweep(ms.load(model_file), {"bodies.slider.mass": [1, 2]}, metrics=["final:x.q"], isolation=False)
    assert "2 runs, 2 ok" in out and all(f"{value:.6f}" in out for value in local["final:x.q"])


def test_an_unreachable_scheduler_is_one_error_line(model_file, capsys):
    pytest.importorskip("distributed")
    assert main(["sweep", model_file, "--param", "bodies.slider.mass=1,2", "--scheduler", "tcp://127.0.0.1:9"]) == 1   # 10 s
    err = capsys.readouterr().err
    assert err.startswith("error: --scheduler tcp://127.0.0.1:9: cannot connect") and "Traceback" not in err
