"""mechsim animate and simulate --animate: files written, saved runs animated, one-line errors."""
import numpy as np
import pytest

from mechsim.cli.main import main

from conftest import FOUR_BAR


def user_error(capsys, code, *words):
    out, err = capsys.readouterr()
    assert code == 1 and err.startswith("error: ") and err.count("\n") == 1, err
    for word in words:
        assert word in err, err


def test_animate_simulates_with_the_files_settings(tmp_path, capsys):
    out = tmp_path / "four_bar.html"
    assert main(["animate", str(FOUR_BAR), "-o", str(out), "--t-end", "0.5", "--fps", "10",
                 "--bodies", "hull", "--trace", "coupler:tip", "--trace", "crank"]) == 0
    assert capsys.readouterr().out == f"wrote {out}\n"
    html = out.read_text(encoding="utf-8")
    assert '"frames": 6' in html and '"name": "coupler:tip"' in html


def test_a_saved_run_is_animated_as_simulated(tmp_path, capsys):
    run, direct, saved = tmp_path / "run.npz", tmp_path / "direct.html", tmp_path / "saved.html"
    assert main(["simulate", str(FOUR_BAR), "--t-end", "0.5", "-o", str(run), "--animate", str(direct)]) == 0
    assert main(["animate", str(FOUR_BAR), "--results", str(run), "-o", str(saved)]) == 0
    assert saved.read_text(encoding="utf-8") == direct.read_text(encoding="utf-8")


def test_runs_saved_as_csv_restore_the_coordinates(tmp_path):
    import mechsim as ms
    from mechsim.results.run_file import load_run
    m = ms.load(FOUR_BAR)
    res = m.simulate(t_end=0.3)
    res.save(tmp_path / "run.csv")
    back = load_run(m, tmp_path / "run.csv")
    np.testing.assert_allclose(back.q, res.q, rtol=1e-11)
    np.testing.assert_allclose(back["coupler.position"], res["coupler.position"], atol=1e-10)   # 12 digits in .csv


@pytest.mark.parametrize("argv, words", [
    (["animate", str(FOUR_BAR), "-o", "{tmp}/a.webm"], ["--output", "use a file name ending in .html, .gif or .mp4"]),
    (["animate", str(FOUR_BAR), "-o", "{tmp}/no/a.html"], ["the directory", "does not exist"]),
    (["animate", str(FOUR_BAR), "-o", "{tmp}/a.html", "--t-end", "0.1", "--trace", "wheel"], ["unknown body 'wheel'"]),
    (["animate", str(FOUR_BAR), "-o", "{tmp}/a.html", "--results", "{tmp}/none.npz"], ["cannot read the run file"]),
    (["animate", str(FOUR_BAR), "-o", "{tmp}/a.html", "--results", "{tmp}/part.csv"], ["no column", "j1.v"]),
    (["animate", str(FOUR_BAR), "-o", "{tmp}/a.html", "--results", "{tmp}/part.csv", "--t-end", "1"], ["drop --t-end"]),
    (["simulate", str(FOUR_BAR), "--animate", "{tmp}/a.png"], ["--animate", "ending in .html"]),
])
def test_bad_input_is_one_error_line_and_exit_1(argv, words, tmp_path, capsys):
    (tmp_path / "part.csv").write_text("t,j1.q\n0,1.5708\n")
    user_error(capsys, main([a.format(tmp=tmp_path) for a in argv]), *words)
