"""The mechsim command line: simulate/check/signals on model files, exit codes and one-line errors."""
import importlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms
from mechsim.cli.main import main
from mechsim.results.run_file import load_columns

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
simulation:
  t_end: 1.0
  rtol: 1.0e-9
  atol: 1.0e-11
  t_eval: {start: 0, stop: 1, num: 11}
  inputs: {u: "0.1*sin(t)"}
"""


def write(tmp_path, text, name="pendulum.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


@pytest.fixture
def pendulum(tmp_path):
    return write(tmp_path, PENDULUM)


def assert_user_error(capsys, code, *words):
    out, err = capsys.readouterr()
    assert code == 1
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in out + err
    for word in words:
        assert word in err
    return err


# ------------------------------------------------------------------------------ simulate
def test_simulate_csv_matches_the_api(pendulum, tmp_path, capsys):
    out = tmp_path / "out.csv"
    assert main(["simulate", pendulum, "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    header = out.read_text().splitlines()[0].split(",")
    assert header[:2] == ["t", "j1.q"] and "link.position[2]" in header
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    expected = ms.load(pendulum).simulate()
    assert data.shape[0] == 11
    assert abs(data[-1, header.index("j1.q")] - expected["j1.q"][-1]) < 1e-9


def test_simulate_npz_with_selected_signals(pendulum, tmp_path):
    out = tmp_path / "out.npz"
    assert main(["simulate", pendulum, "-o", str(out), "--signals", "j1.q, link.position"]) == 0
    with np.load(out) as data:
        assert sorted(data.files) == ["j1.q", "link.position[0]", "link.position[1]", "link.position[2]", "t"]
        assert np.allclose(data["t"], np.linspace(0, 1, 11))


def test_command_line_options_override_the_file(pendulum, tmp_path):
    out = tmp_path / "out.csv"
    assert main(["simulate", pendulum, "-o", str(out), "--t-end", "0.5", "--solver", "RK4", "--h", "0.01",
                 "--signals", "j1.q"]) == 0
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    expected = ms.load(pendulum).simulate(t_end=0.5, t_eval=np.linspace(0, 0.5, 6), solver="RK4", h=0.01)
    assert np.allclose(data[:, 0], expected.t) and np.allclose(data[:, 1], expected["j1.q"], atol=1e-10)


def test_every_command_line_option_of_the_registry_reaches_simulate(pendulum, monkeypatch):
    from mechsim.simulation.options import COMMAND_LINE, OPTIONS
    seen = {}
    monkeypatch.setattr(ms.Model, "simulate", lambda self, **options: seen.update(options) or 1 / 0)
    values = {key: "1.5" if OPTIONS[key].check else OPTIONS[key].choices[-1] for key in COMMAND_LINE}
    argv = [arg for key, value in values.items() for arg in ("--" + key.replace("_", "-"), value)]
    with pytest.raises(ZeroDivisionError):
        main(["simulate", pendulum, *argv])
    assert seen == {**{key: 1.5 if OPTIONS[key].check else value for key, value in values.items()}, "progress": False}


def test_simulate_without_output_prints_a_summary(pendulum, capsys):
    assert main(["simulate", pendulum, "--signals", "j1.q,link.position"]) == 0
    out = capsys.readouterr().out
    final = ms.load(pendulum).simulate()["j1.q"][-1]
    assert out.startswith("pendulum: 11 samples")
    assert f"j1.q          = {final:.6g}" in out and "link.position = [" in out


def test_plot_writes_a_png(pendulum, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "plot.png"
    assert main(["simulate", pendulum, "--plot", str(png), "--signals", "j1.q,link.rotation"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 1000


def test_progress_bar_on_request(pendulum, capsys):
    assert main(["simulate", pendulum, "--progress"]) == 0
    assert "100" in capsys.readouterr().err
    assert main(["simulate", pendulum]) == 0          # stderr is not a terminal: no bar
    assert capsys.readouterr().err == ""


def test_failed_run_writes_partial_results(tmp_path, capsys):
    model = write(tmp_path, PENDULUM.replace("0.1*sin(t)", "sqrt(0.5 - t)"))
    out = tmp_path / "out.csv"
    err = assert_user_error(capsys, main(["simulate", model, "-o", str(out)]), "not finite", "partial results")
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    assert 0 < data[-1, 0] < 0.5 and f"t = {data[-1, 0]:.6g}" in err


# ------------------------------------------------------------------------------ check, signals
def test_check_prints_dof_and_topology(pendulum, capsys):
    assert main(["check", pendulum]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "dof: 1"
    assert "link  1" in out
    assert "j1    revolute  ground -> link   j1.q" in out


def test_signals_lists_every_signal(pendulum, capsys):
    assert main(["signals", pendulum]) == 0
    names = capsys.readouterr().out.split()
    assert names == ms.load(pendulum).signals() and "j1.q" in names


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"mechsim {ms.__version__}"


# ------------------------------------------------------------------------------ errors
@pytest.mark.parametrize("text, words", [
    ("name: x\nbodies: [\n", ["invalid YAML", "line"]),
    (PENDULUM.replace("axis:", "axsi:"), ["'axsi'", "did you mean 'axis'"]),
])
def test_bad_model_files(tmp_path, capsys, text, words):
    model = write(tmp_path, text)
    for command in ("simulate", "check", "signals"):
        assert_user_error(capsys, main([command, model]), *words)


def test_missing_file(tmp_path, capsys):
    assert_user_error(capsys, main(["check", str(tmp_path / "none.yaml")]), "none.yaml")


@pytest.mark.parametrize("extra, words", [
    (["--signals", "j1.qq"], ["unknown signal 'j1.qq'", "did you mean 'j1.q'"]),
    (["-o", "out.txt"], ["--output", ".csv or .npz"]),
    (["-o", "missing/out.csv"], ["does not exist"]),
    (["--plot", "plot.gif"], ["--plot"]),
    (["--solver", "Magic"], ["Magic"]),
    (["--rtol", "-1"], ["rtol"]),
    (["--drift", "magic"], ["drift='magic' is not one of projection"]),
])
def test_bad_simulate_options(pendulum, tmp_path, capsys, monkeypatch, extra, words):
    monkeypatch.chdir(tmp_path)
    assert_user_error(capsys, main(["simulate", pendulum, *extra]), *words)


def test_signals_of_items_sharing_names_are_reached_qualified_and_a_name_with_a_comma_survives_the_csv(
        tmp_path, capsys):
    """SPEC C15: a joint and a bushing named 'pin.1' share the quantity force; the bare name is refused naming the
    qualified ones, which work; a body named 'rod, upper' keeps its name through the CSV's header row."""
    m = ms.Model("shared", gravity=(0, -9.81, 0))
    m.add_body("rod, upper", mass=1.0, com=(0.5, 0, 0), inertia=(0, 1 / 12, 1 / 12))
    m.add_joint("pin.1", "revolute", "ground", "rod, upper", q0=0.4)
    m.add_force("pin.1", "bushing", body_a="ground", body_b="rod, upper", stiffness=(0, 0, 0, 0, 0, 3.0))
    model, out = tmp_path / "shared.yaml", tmp_path / "out.csv"
    m.to_yaml(model)
    assert_user_error(capsys, main(["simulate", str(model), "--signals", "pin.1.force"]),
                      "'pin.1.force' is ambiguous", "'joints.pin.1.force', 'forces.pin.1.force'")
    assert main(["simulate", str(model), "--t-end", "0.1", "--signals", "forces.pin.1.torque,pin.1.q",
                 "-o", str(out)]) == 0
    header = out.read_text().splitlines()[0]
    assert header.startswith("t,forces.pin.1.torque[0],") and header.endswith(",pin.1.q")
    res = m.simulate(0.1)
    assert np.allclose(res["forces.pin.1.torque"][:, 2], -3.0 * res["pin.1.q"], rtol=1e-9, atol=1e-12)
    full = tmp_path / "full.csv"
    res.save(full)
    assert '"rod, upper.omega[2]"' in full.read_text().splitlines()[0]
    back, omega = load_columns(full), res["rod, upper.omega"][:, 2]
    assert np.abs(omega).max() > 0.1 and np.allclose(back["rod, upper.omega[2]"], omega, rtol=1e-11, atol=0)


def test_unwritable_output(pendulum, tmp_path, capsys):
    (tmp_path / "taken.csv").mkdir()
    assert_user_error(capsys, main(["simulate", pendulum, "-o", str(tmp_path / "taken.csv")]), "cannot write")


@pytest.mark.parametrize("in_a_process", [False, True])
def test_missing_matplotlib_gives_the_install_hint(pendulum, tmp_path, capsys, monkeypatch, in_a_process):
    for name in ("matplotlib", "matplotlib.figure"):          # not installed: neither found nor imported
        monkeypatch.setitem(sys.modules, name, None)
    # drawn here, or in a plot process (viz/plot_worker.py) that is then not started
    monkeypatch.setattr(importlib.import_module("mechsim.cli.simulate"), "wanted", lambda: in_a_process)
    assert_user_error(capsys, main(["simulate", pendulum, "--plot", str(tmp_path / "p.png")]),
                      "pip install mechsim[plot]")


def test_debug_reraises(tmp_path, monkeypatch):
    monkeypatch.setenv("MECHSIM_DEBUG", "1")
    with pytest.raises(ms.ModelError):
        main(["check", str(tmp_path / "none.yaml")])


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["simulate"], ["simulate", "m.yaml", "--rtol", "tight"]])
def test_bad_usage_exits_2(argv, capsys):
    assert main(argv) == 2
    assert "usage:" in capsys.readouterr().err


# ------------------------------------------------------------------------------ console entry
def test_python_dash_m(pendulum, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(Path(ms.__file__).parents[1]))
    env.pop("MECHSIM_DEBUG", None)
    run = lambda *args: subprocess.run([sys.executable, "-m", "mechsim", *args], capture_output=True, text=True,
                                       env=env, timeout=120)
    ok = run("simulate", pendulum, "-o", str(tmp_path / "out.csv"), "--plot", str(tmp_path / "out.png"))
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "out.csv").read_text().startswith("t,")
    assert ok.stdout.splitlines()[-1] == f"wrote {tmp_path / 'out.png'}" and ok.stderr == ""
    assert (tmp_path / "out.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = run("check", str(tmp_path / "none.yaml"))
    assert bad.returncode == 1 and bad.stderr.startswith("error: ") and "Traceback" not in bad.stderr


FOUR_BAR = Path(__file__).resolve().parents[2] / "examples" / "four_bar.yaml"


def test_check_reports_loops_and_redundant_equations(capsys):
    assert main(["check", str(FOUR_BAR)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dof: 1\n")
    assert "cut joints: 1 (j3)" in out and "loop 1: j1 -> j2 -> j3 -> j4" in out
    assert "redundant constraints: 3 (j3[2], j3[3], j3[4])" in out


def test_assemble_prints_and_writes_the_state(tmp_path, capsys):
    model = ms.load(FOUR_BAR)
    data = model.to_dict()
    data["joints"][1]["q0"] += 0.3                       # the coupler 0.3 rad off its closed position
    path = tmp_path / "off.yaml"
    ms.io.save(ms.io.load_dict(data), path)
    assert main(["assemble", str(path), "--fixed", "j1"]) == 0
    lines = dict(line.split(" = ") for line in capsys.readouterr().out.splitlines())
    assert float(lines["j1.q"]) == 1.5708
    assert float(lines["j2.q"]) == pytest.approx(model.joints["j2"].q0[0], abs=1e-9)
    assert main(["assemble", str(path), "-o", str(tmp_path / "state.json")]) == 0
    import json
    state = json.loads((tmp_path / "state.json").read_text())
    assert set(state) == {"j1.q", "j2.q", "j4.q", "j1.v", "j2.v", "j4.v"}


def test_assemble_errors_are_one_line(tmp_path, capsys):
    assert_user_error(capsys, main(["assemble", str(FOUR_BAR), "--fixed", "j9"]), "unknown coordinate 'j9'")
    assert_user_error(capsys, main(["assemble", str(FOUR_BAR), "-o", str(tmp_path / "s.txt")]), ".json")
    data = ms.load(FOUR_BAR).to_dict()
    data["bodies"][1]["frames"]["tip"] = [9.0, 0, 0]     # a coupler too long to close the loop
    data["bodies"][1]["com"] = [4.5, 0, 0]
    path = tmp_path / "broken.yaml"
    ms.io.save(ms.io.load_dict(data), path)
    assert_user_error(capsys, main(["assemble", str(path)]), "cannot assemble the loop j1 -> j2 -> j3 -> j4",
                      "cut joint 'j3'")


# ------------------------------------------------------------------------------ hostile files (issue 16)
HUGE = "1" + "0" * 400          # an integer beyond float's range


def bomb(levels):
    """A YAML value, aliases of aliases: its last item expands to 9**levels strings."""
    items = ['&a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    items += [f"&a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return f"[{', '.join(items)}]"


@pytest.mark.parametrize("text, words", [
    (PENDULUM.replace("mass: 1.0", f"mass: {HUGE}"), ["body 'link'"]),                     # defect 2
    (PENDULUM.replace("q0: 0.5", f"q0: {HUGE}"), ["joint 'j1'"]),
    (PENDULUM.replace("t_end: 1.0", f"t_end: {HUGE}"), ["t_end"]),
    (PENDULUM.replace("num: 11", "num: 1000000000"), ["t_eval"]),                           # defect 5
    (PENDULUM.replace("t_end: 1.0", "t_end: 1.0\n  max_step: 1.0e-300"), ["max_step"]),   # defect 6
    (PENDULUM.replace('"0.1*sin(t)"', '"9**9**9"'), ["not finite"]),                       # defect 1
    ("a: " + "[" * 5000 + "]" * 5000 + "\n", ["nested too deep"]),                         # defect 3
    (f"gravity: {bomb(9)}\n", ["expands to more than"]),
])
def test_hostile_file_gives_one_error_line(tmp_path, capsys, text, words):
    assert_user_error(capsys, main(["simulate", write(tmp_path, text)]), *words)


def test_error_line_stays_short(tmp_path, capsys):                                         # defect 3
    text = f"bodies:\n  - {{name: link, mass: {bomb(5)}}}\n"        # the error quotes the mass
    err = assert_user_error(capsys, main(["simulate", write(tmp_path, text)]), "body 'link'")
    assert len(err) < 3000


def test_infinite_t_end_on_the_command_line(tmp_path, capsys):                             # defect 6
    assert_user_error(capsys, main(["simulate", write(tmp_path, PENDULUM), "--t-end", "inf"]), "--t-end")


def test_numpy_warnings_before_an_error_are_not_printed(tmp_path, capsys, monkeypatch):     # defect 10
    def load(path, **options):
        np.float64(1e308) * 10                          # RuntimeWarning: overflow
        raise ms.ModelError("the model is broken")
    monkeypatch.setattr(sys.modules["mechsim.cli.common"], "load", load)
    with np.errstate(over="warn"):
        assert_user_error(capsys, main(["simulate", write(tmp_path, PENDULUM)]), "the model is broken")
