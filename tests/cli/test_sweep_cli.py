"""mechsim sweep: grids and Monte Carlo studies of a model file from the command line."""
import numpy as np
import pytest

import mechsim as ms
from mechsim.cli.main import main

pd = pytest.importorskip("pandas")

PENDULUM = """\
name: pendulum
gravity: [0, -9.81, 0]
inputs: [u]
bodies:
  - {name: link, mass: 1.0, com: [0.5, 0, 0], inertia: [0.0, 0.0833, 0.0833]}
joints:
  - {name: j1, kind: revolute, parent: ground, child: link, axis: [0, 0, 1], q0: 0.5}
forces:
  - {name: motor, kind: joint_force, joint: j1, value: u}
simulation: {t_end: 1.0, rtol: 1.0e-9, atol: 1.0e-11}
"""


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "pendulum.yaml"
    path.write_text(PENDULUM)
    return str(path)


def test_a_grid_to_csv_equals_the_api(model_file, tmp_path, capsys):
    out = tmp_path / "runs.csv"
    assert main(["sweep", model_file, "--param", "bodies.link.mass=1:2:3", "--param", "inputs.u=0,0.5",
                 "--metric", "max:j1.v", "--metric", "final:j1.q", "--threads", "2", "-o", str(out)]) == 0
    assert "pendulum: 6 runs, 6 ok, 0 failed" in capsys.readouterr().out
    written = pd.read_csv(out, index_col="run", keep_default_na=False)
    expected = ms.sweep(ms.load(model_file), {"bodies.link.mass": [1.0, 1.5, 2.0], "inputs.u": [0, 0.5]},
                        metrics=["max:j1.v", "final:j1.q"], simulate_kwargs={"progress": False}, isolation=False)
    assert list(written.columns) == list(expected.columns)
    assert np.allclose(written[["max:j1.v", "final:j1.q"]], expected[["max:j1.v", "final:j1.q"]], rtol=1e-12, atol=0)


def test_monte_carlo_prints_the_table_and_uses_the_options(model_file, capsys):
    assert main(["sweep", model_file, "--param", "joints.j1.q0=normal(0.5, 0.05)", "--samples", "4", "--seed", "2",
                 "--t-end", "0.5", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "4 runs, 4 ok" in out and "joints.j1.q0" in out and "final:j1.q" in out
    draws = ms.sweep(ms.load(model_file), {"joints.j1.q0": ms.normal(0.5, 0.05)}, samples=4, seed=2,
                     simulate_kwargs={"t_end": 0.5}, isolation=False)
    for value in draws["joints.j1.q0"]:
        assert f"{value:.6f}" in out


@pytest.mark.parametrize("argv, message", [
    (["--param", "bodies.lnk.mass=1,2"], "no body 'lnk' (did you mean 'link'?)"),
    (["--param", "bodies.link.mass=1:2"], "write a range as LOW:HIGH:COUNT"),
    (["--param", "bodies.link.mass"], "expected PATH=VALUES"),
    (["--param", "bodies.link.mass=normal(1)", "--samples", "3"], "normal() takes two numbers"),
    (["--param", "bodies.link.mass=normal(1,0.1)"], "give samples=N"),
    (["--param", "bodies.link.mass=1,2", "--metric", "max:j2.q"], "no signal 'j2.q'"),
    (["--param", "bodies.link.mass=1,2", "-o", "runs.txt"], "ending in .csv or .parquet"),
])
def test_mistakes_are_one_error_line(model_file, capsys, argv, message):
    assert main(["sweep", model_file, *argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
