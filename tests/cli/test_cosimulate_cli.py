"""mechsim cosimulate: a co-simulation file from the command line."""
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms
from mechsim.cli.main import main
from mechsim.io.cosim_file import load_cosimulation

FOUR_BAR = Path(__file__).resolve().parents[2] / "examples" / "cosim" / "four_bar.yaml"


def test_the_example_file_runs_and_equals_the_api(tmp_path, capsys):
    out = tmp_path / "cosim.csv"
    assert main(["cosimulate", str(FOUR_BAR), "--t-end", "0.2", "-o", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out}: 201 samples")
    arguments = load_cosimulation(FOUR_BAR)
    arguments["t_end"] = 0.2
    reference = ms.cosimulate(**arguments)
    data = np.genfromtxt(out, delimiter=",", names=True)
    assert np.allclose(data["Aj1q"], reference["A/j1.q"], rtol=1e-11, atol=0)   # the CSV keeps 12 digits


def test_the_summary_lists_coordinates_and_violations(capsys):
    assert main(["cosimulate", str(FOUR_BAR), "--t-end", "0.01", "--method", "compliance", "--stiffness", "1e4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("A, B: 11 samples") and "A/j1.q" in out and "pin.violation" in out


@pytest.mark.parametrize("edit, message", [
    (lambda text: text.replace("chain_b.yaml", "nowhere.yaml"), "cannot read the model file"),
    (lambda text: text.replace("method: projection", "methd: projection"), "unknown key 'methd' (did you mean 'method'?)"),
    (lambda text: text.replace("B/rocker", "B/rockr"), "no moving body 'rockr'"),
])
def test_mistakes_are_one_error_line(tmp_path, capsys, edit, message):
    for name in ("chain_a.yaml", "chain_b.yaml"):
        (tmp_path / name).write_text((FOUR_BAR.parent / name).read_text())
    bad = tmp_path / "four_bar.yaml"
    bad.write_text(edit(FOUR_BAR.read_text()))
    assert main(["cosimulate", str(bad), "--t-end", "0.01"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_a_dask_scheduler_address_runs_the_subsystems_there(tmp_path):
    distributed = pytest.importorskip("distributed")
    out = tmp_path / "cosim.csv"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        assert main(["cosimulate", str(FOUR_BAR), "--t-end", "0.02", "-o", str(out),
                     "--scheduler", cluster.scheduler_address]) == 0
    arguments = load_cosimulation(FOUR_BAR)
    arguments["t_end"] = 0.02
    local = ms.cosimulate(**arguments)
    data = np.genfromtxt(out, delimiter=",", names=True)
    assert np.allclose(data["Bj4q"], local["B/j4.q"], rtol=1e-11, atol=0)
