"""The analysis subcommands of the command line: inverse, trim and linearize on model files, their
numbers against the Python API, every output format, and their one-line errors."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms
from mechsim.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SLIDER_CRANK = str(EXAMPLES / "slider_crank.yaml")
FOUR_BAR = str(EXAMPLES / "four_bar.yaml")
CART_PENDULUM = str(EXAMPLES / "cart_pendulum.yaml")
DOUBLE_PENDULUM = str(EXAMPLES / "double_pendulum.yaml")
TUMBLING_BODY = str(EXAMPLES / "tumbling_body.yaml")

PENDULUM = """\
name: motor-pendulum
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
  inputs: {u: "0.1*sin(t)"}
"""


@pytest.fixture
def pendulum(tmp_path):
    path = tmp_path / "pendulum.yaml"
    path.write_text(textwrap.dedent(PENDULUM))
    return str(path)


def assert_user_error(capsys, code, *words):
    out, err = capsys.readouterr()
    assert code == 1, err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in out + err
    for word in words:
        assert word in err, err
    return err


def read_csv(path):
    header = Path(path).read_text().splitlines()[0].split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {name: data[:, k] for k, name in enumerate(header)}


# ------------------------------------------------------------------------------ inverse
def test_inverse_csv_matches_the_kinematics(tmp_path, capsys):
    out = tmp_path / "out.csv"
    assert main(["inverse", SLIDER_CRANK, "-o", str(out), "--num", "21"]) == 0
    assert "21 samples, t = 0 to 3" in capsys.readouterr().out
    columns = read_csv(out)
    model = ms.load(SLIDER_CRANK)
    expected = model.kinematics(np.linspace(0, 3, 21))
    assert list(columns) == list(expected.flat_columns())             # every signal
    assert np.allclose(columns["t"], expected.t)
    for name in ("j1.force", "slide.q", "slide.a"):
        assert np.allclose(columns[name], expected[name], rtol=1e-10, atol=1e-10), name
    assert np.allclose(columns["pin.reaction[3]"], expected["pin.reaction"][:, 3], rtol=1e-10, atol=1e-10)
    assert np.allclose(columns["rod.acceleration[4]"], expected["rod.acceleration"][:, 4], rtol=1e-10, atol=1e-10)


def test_inverse_npz_with_signals_t_end_and_dt(tmp_path):
    out = tmp_path / "out.npz"
    assert main(["inverse", SLIDER_CRANK, "-o", str(out), "--t-end", "1", "--dt", "0.25",
                 "--signals", "j1.force,slide.reaction"]) == 0
    with np.load(out) as data:
        assert sorted(data.files) == ["j1.force", *[f"slide.reaction[{i}]" for i in range(6)], "t"]
        assert np.allclose(data["t"], [0, 0.25, 0.5, 0.75, 1.0])
        expected = ms.load(SLIDER_CRANK).kinematics(data["t"])
        assert np.allclose(data["j1.force"], expected["j1.force"], rtol=1e-10, atol=1e-10)


def test_inverse_summary_uses_the_file_grid(capsys):
    assert main(["inverse", SLIDER_CRANK, "--t-end", "1"]) == 0      # the file's t_eval cut at t_end
    out = capsys.readouterr().out
    expected = ms.load(SLIDER_CRANK).kinematics(np.linspace(0, 1, 201))
    assert out.startswith("slider-crank: kinematics, 201 samples, t = 0 to 1\n")
    assert f"j1.force    = {expected['j1.force'][-1]:.6g}" in out
    worst = np.max(np.linalg.norm(expected["pin.reaction"][:, 3:], axis=1))
    assert any(line.split()[:2] == ["pin", f"{worst:.6g}"] for line in out.splitlines())


def test_inverse_without_a_simulation_section(tmp_path, capsys):
    data = ms.load(SLIDER_CRANK).to_dict()
    del data["simulation"]
    path = tmp_path / "bare.yaml"
    ms.io.save(ms.io.load_dict(data), path)
    assert_user_error(capsys, main(["inverse", str(path)]), "give --t-end")
    assert main(["inverse", str(path), "--t-end", "0.5", "-o", str(tmp_path / "out.csv")]) == 0
    assert np.allclose(read_csv(tmp_path / "out.csv")["t"], np.linspace(0, 0.5, 101))


def test_inverse_lockup_writes_partial_results(tmp_path, capsys):
    data = ms.load(SLIDER_CRANK).to_dict()
    rod = next(body for body in data["bodies"] if body["name"] == "rod")
    rod["frames"]["end"] = [0.12, 0, 0]                         # shorter than the crank: locks up
    next(joint for joint in data["joints"] if joint["name"] == "slide")["q0"] = 0.27
    path, out = tmp_path / "lock.yaml", tmp_path / "out.csv"
    ms.io.save(ms.io.load_dict(data), path)
    err = assert_user_error(capsys, main(["inverse", str(path), "-o", str(out), "--t-end", "0.5"]),
                            "failed at t =", "partial results")
    t = read_csv(out)["t"]
    assert 0 < t[-1] < 0.25 and f"t = {t[-1]:.6g} written" in err


def test_inverse_of_a_motion_file(pendulum, tmp_path, capsys):
    t = np.linspace(0, 1, 201)
    q, v, a = 0.3 * np.sin(2 * t), 0.6 * np.cos(2 * t), -1.2 * np.sin(2 * t)
    model = ms.load(pendulum)
    expected = np.array([ms.inverse_dynamics(model, [q[k]], [v[k]], [a[k]], t[k], inputs={"u": 0.1 * np.sin(t[k])})
                         for k in range(t.size)])[:, 0]
    full, positions = tmp_path / "full.csv", tmp_path / "positions.csv"
    np.savetxt(full, np.column_stack([t, q, v, a]), delimiter=",", header="t,j1.q,j1.v,j1.a", comments="")
    np.savetxt(positions, np.column_stack([t, q]), delimiter=",", header="t,j1.q", comments="")
    assert main(["inverse", pendulum, "--motion", str(full), "-o", str(tmp_path / "f.csv")]) == 0
    forces = read_csv(tmp_path / "f.csv")
    assert list(forces) == ["t", "j1.force"]
    assert np.allclose(forces["j1.force"], expected, rtol=1e-10, atol=1e-10)
    assert main(["inverse", pendulum, "--motion", str(positions), "-o", str(tmp_path / "f.npz")]) == 0
    with np.load(tmp_path / "f.npz") as data:               # spline derivatives
        assert np.allclose(data["t"], t) and np.max(np.abs(data["j1.force"] - expected)) < 2e-3
    capsys.readouterr()
    assert main(["inverse", pendulum, "--motion", str(full)]) == 0
    out = capsys.readouterr().out
    assert "201 samples" in out and f"{expected[-1]:.6g}" in out


def test_inverse_of_a_free_body_needs_its_velocities(tmp_path, capsys):
    model = ms.load(TUMBLING_BODY)
    result = model.simulate(t_end=0.2, t_eval=np.linspace(0, 0.2, 21), rtol=1e-10, atol=1e-12)
    motion = tmp_path / "motion.csv"
    result.save(motion, ["float.q", "float.v"])
    assert main(["inverse", TUMBLING_BODY, "--motion", str(motion), "-o", str(tmp_path / "f.csv")]) == 0
    forces = read_csv(tmp_path / "f.csv")
    assert list(forces)[1:] == [f"float.force[{i}]" for i in range(6)]
    assert max(np.max(np.abs(forces[f"float.force[{i}]"])) for i in range(6)) < 1e-3   # torque-free motion
    result.save(motion, ["float.q"])
    assert_user_error(capsys, main(["inverse", TUMBLING_BODY, "--motion", str(motion)]),
                      "quaternion", "float.v[0]")


# ------------------------------------------------------------------------------ trim
def test_trim_json_is_an_equilibrium(tmp_path, capsys):
    op = tmp_path / "op.json"
    assert main(["trim", FOUR_BAR, "-o", str(op)]) == 0
    assert "wrote" in capsys.readouterr().out
    point = json.loads(op.read_text())
    model = ms.load(FOUR_BAR)
    cm = model.compile()
    assert point["model"] == "four-bar" and point["t"] == 0.0 and point["inputs"] == {}
    assert list(point["coordinates"]) == list(cm.q_names) + list(cm.v_names)
    q = np.array([point["coordinates"][name] for name in cm.q_names])
    v = np.array([point["coordinates"][name] for name in cm.v_names])
    assert np.max(np.abs(ms.forward_dynamics(model, q, v))) < 1e-8 and point["residual"] < 1e-8
    assert np.allclose(q, model.trim().q, atol=1e-12)


def test_trim_with_held_coordinate_and_free_input(pendulum, tmp_path, capsys):
    assert main(["trim", pendulum, "--fixed", "j1.q=0.3", "--free-inputs", "u"]) == 0
    out = capsys.readouterr().out
    lines = {k.strip(): float(v) for k, v in (line.split(" = ") for line in out.splitlines()[1:])}
    assert out.startswith("equilibrium of 'motor-pendulum' at t = 0")
    assert list(lines) == ["j1.q", "j1.v", "u"] and lines["j1.q"] == 0.3 and lines["j1.v"] == 0
    u = lines["u"]
    assert u == pytest.approx(9.81 * 0.5 * np.cos(0.3), rel=1e-9)
    csv = tmp_path / "op.csv"
    assert main(["trim", pendulum, "--fixed", "j1.q=0.3", "--free-inputs", "u", "-o", str(csv)]) == 0
    rows = dict(line.split(",") for line in csv.read_text().splitlines()[1:])
    assert float(rows["u"]) == pytest.approx(u, rel=1e-12) and rows["j1.q"] == "0.3" and "residual" in rows


def test_trim_with_input_values(pendulum, capsys):
    assert main(["trim", pendulum, "--values", "u=2.0", "--t", "0.5"]) == 0
    text = capsys.readouterr().out
    lines = {k.strip(): float(v) for k, v in (line.split(" = ") for line in text.splitlines()[1:])}
    expected = ms.load(pendulum).trim(inputs={"u": 2.0}, t=0.5)
    assert "at t = 0.5" in text and lines["u"] == 2.0
    assert lines["j1.q"] == pytest.approx(expected["j1.q"], abs=1e-10)
    assert np.cos(lines["j1.q"]) * 9.81 * 0.5 == pytest.approx(2.0, rel=1e-8)


# ------------------------------------------------------------------------------ linearize
def test_linearize_json_matches_the_api_and_reloads(pendulum, tmp_path, capsys):
    lin_path = tmp_path / "lin.json"
    assert main(["linearize", pendulum, "--trim", "--fixed", "j1.q=0.3", "--free-inputs", "u",
                 "--inputs", "u,j1.force", "--outputs", "j1.q,link.position", "-o", str(lin_path)]) == 0
    assert "A 2x2, B 2x2, C 4x2, D 4x2" in capsys.readouterr().out
    data = json.loads(lin_path.read_text())
    model = ms.load(pendulum)
    op = model.trim(fixed={"j1.q": 0.3}, free_inputs=["u"])
    lin = model.linearize(op, inputs=["u", "j1.force"], outputs=["j1.q", "link.position"])
    for key in "ABCD":
        assert np.allclose(data[key], getattr(lin, key), rtol=1e-9, atol=1e-9), key
    assert data["state_names"] == ["j1.q", "j1.v"] and data["input_names"] == ["u", "j1.force"]
    assert data["output_names"] == ["j1.q", "link.position[0]", "link.position[1]", "link.position[2]"]
    assert data["independent"] == ["j1.q"]
    assert data["operating_point"]["inputs"]["u"] == pytest.approx(op.inputs["u"], rel=1e-12)
    again = tmp_path / "again.json"                 # the operating point of a linearization is a --state
    assert main(["linearize", pendulum, "--state", str(lin_path), "--inputs", "u,j1.force",
                 "--outputs", "j1.q,link.position", "-o", str(again)]) == 0
    assert np.allclose(json.loads(again.read_text())["A"], data["A"], rtol=1e-9, atol=1e-12)


def test_linearize_about_the_assembly_with_input_values(pendulum, tmp_path):
    out = tmp_path / "lin.json"
    assert main(["linearize", pendulum, "--values", "u=2", "--fixed", "j1.q=0.2", "--inputs", "u",
                 "--outputs", "j1.a", "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["operating_point"]["inputs"] == {"u": 2.0} and data["operating_point"]["coordinates"]["j1.q"] == 0.2
    model = ms.load(pendulum)
    a0 = ms.forward_dynamics(model, [0.2], [0.0], inputs={"u": 2.0})[0]
    assert a0 != 0 and data["B"][1][0] == pytest.approx(data["D"][0][0], rel=1e-9)     # d(j1.a)/du
    state = model.assemble(fixed={"j1.q": 0.2})
    state.inputs = {"u": 2.0}
    assert np.allclose(data["A"], model.linearize(state, inputs=["u"]).A, rtol=1e-9, atol=1e-12)


def test_linearize_about_a_trim_file_npz_minimal(tmp_path, capsys):
    op, out = tmp_path / "op.json", tmp_path / "lin.npz"
    assert main(["trim", FOUR_BAR, "-o", str(op)]) == 0
    assert main(["linearize", FOUR_BAR, "--state", str(op), "--minimal", "--independent", "j4",
                 "--inputs", "j1.force", "-o", str(out)]) == 0
    model = ms.load(FOUR_BAR)
    lin = model.linearize(model.trim(), inputs=["j1.force"], minimal=True, independent=["j4"])
    with np.load(out) as data:
        assert sorted(data.files) == ["A", "B", "C", "D", "independent", "input_names", "output_names",
                                      "state_names"]
        for key in "ABCD":
            assert np.allclose(data[key], getattr(lin, key), rtol=1e-8, atol=1e-10), key
        assert list(data["state_names"]) == ["j4.q", "j4.v"] == list(lin.state_names)
        assert list(data["independent"]) == ["j4.q"] and list(data["input_names"]) == ["j1.force"]


def test_linearize_csv_block_from_an_assembled_state(tmp_path, capsys):
    state, out = tmp_path / "state.json", tmp_path / "lin.csv"
    assert main(["assemble", CART_PENDULUM, "-o", str(state)]) == 0
    assert main(["linearize", CART_PENDULUM, "--state", str(state), "--inputs", "slide.force",
                 "--outputs", "rod.position[0]", "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    model = ms.load(CART_PENDULUM)
    lin = model.linearize(model.assemble(), inputs=["slide.force"], outputs=["rod.position[0]"])
    assert lines[0] == "row,slide.q,hinge.q,slide.v,hinge.v,slide.force"
    assert [line.split(",")[0] for line in lines[1:]] == lin.state_names + ["rod.position[0]"]
    block = np.array([[float(x) for x in line.split(",")[1:]] for line in lines[1:]])
    assert np.allclose(block, np.block([[lin.A, lin.B], [lin.C, lin.D]]), rtol=1e-9, atol=1e-12)
    assemble_csv = tmp_path / "state.csv"                 # assemble's CSV is a state file too
    assert main(["assemble", CART_PENDULUM, "-o", str(assemble_csv)]) == 0
    capsys.readouterr()
    assert main(["linearize", CART_PENDULUM, "--state", str(assemble_csv)]) == 0
    assert "about the state in" in capsys.readouterr().out


def test_linearize_summary_prints_the_eigenvalues(capsys):
    assert main(["linearize", CART_PENDULUM]) == 0
    out = capsys.readouterr().out
    model = ms.load(CART_PENDULUM)
    poles = model.linearize().poles()
    assert "about the assembled initial state at t = 0" in out and "A 4x4, B 4x0, C 4x4, D 4x0" in out
    assert "independent: slide.q, hinge.q" in out and "eigenvalues of A (4):" in out
    for p in poles[poles.imag > 0]:
        assert f"{p.real:.6g} ± {p.imag:.6g}j" in out


# ------------------------------------------------------------------------------ errors
@pytest.mark.parametrize("argv, words", [
    (["inverse", FOUR_BAR], ["degree(s) of freedom", "driver"]),
    (["inverse", SLIDER_CRANK, "-o", "out.txt"], ["--output", ".csv or .npz"]),
    (["inverse", SLIDER_CRANK, "--signals", "j1.forc"], ["unknown signal 'j1.forc'", "did you mean 'j1.force'"]),
    (["inverse", SLIDER_CRANK, "--num", "0"], ["--num"]),
    (["inverse", SLIDER_CRANK, "--dt", "-0.1"], ["--dt"]),
    (["inverse", SLIDER_CRANK, "--motion", "missing.csv"], ["not an open tree"]),
    (["inverse", DOUBLE_PENDULUM, "--motion", "missing.csv"], ["cannot read the motion file missing.csv"]),
    (["inverse", DOUBLE_PENDULUM, "--motion", "short.csv"], ["no column for the coordinate(s) j2.q"]),
    (["inverse", DOUBLE_PENDULUM, "--motion", "bad.csv"], ["cannot read the motion file bad.csv", "'x'"]),
    (["trim", FOUR_BAR, "--fixed", "j1.q=abc"], ["--fixed", "'j1.q=abc'", "NAME=VALUE"]),
    (["trim", FOUR_BAR, "--fixed", "j9"], ["unknown coordinate 'j9'"]),
    (["trim", FOUR_BAR, "--free-inputs", "w"], ["unknown input 'w'"]),
    (["trim", FOUR_BAR, "--values", "w=1"], ["unknown input 'w'"]),
    (["trim", FOUR_BAR, "-o", "op.txt"], ["--output", ".json"]),
    (["trim", DOUBLE_PENDULUM, "--fixed", "j1.q=1"], ["no equilibrium"]),
    (["linearize", FOUR_BAR, "--inputs", "nope"], ["unknown input 'nope'"]),
    (["linearize", FOUR_BAR, "--outputs", "nope.q"], ["nope.q"]),
    (["linearize", FOUR_BAR, "-o", "lin.txt"], ["--output", ".json, .npz or .csv"]),
    (["linearize", FOUR_BAR, "--state", "missing.json"], ["cannot read missing.json"]),
    (["linearize", FOUR_BAR, "--state", "bad_state.csv"], ["bad_state.csv, line 2"]),
    (["linearize", FOUR_BAR, "--state", "loose.json"], ["violates the constraints", "m.assemble"]),
    (["linearize", FOUR_BAR, "--state", "extra.json"], ["unknown coordinate 'j9.q'"]),
    (["linearize", FOUR_BAR, "--state", "loose.json", "--fixed", "j1"], ["--fixed"]),
    (["linearize", FOUR_BAR, "--independent", "j9"], ["j9"]),
    (["linearize", FOUR_BAR, "--perturbation", "0"], ["perturbation"]),
])
def test_bad_input_is_one_error_line(tmp_path, capsys, monkeypatch, argv, words):
    monkeypatch.chdir(tmp_path)
    Path("short.csv").write_text("t,j1.q\n0,1\n1,2\n")
    Path("bad.csv").write_text("t,j1.q,j2.q\n0,1,0\n1,x,0\n")
    Path("bad_state.csv").write_text("name,value\nj1.q,abc\n")
    state = ms.load(FOUR_BAR).assemble().to_dict()
    Path("loose.json").write_text(json.dumps({**state, "j2.q": state["j2.q"] + 0.1}))
    Path("extra.json").write_text(json.dumps({**state, "j9.q": 0.0}))
    assert_user_error(capsys, main(argv), *words)


@pytest.mark.parametrize("argv", [
    ["inverse"],
    ["inverse", SLIDER_CRANK, "--num", "3", "--dt", "0.1"],
    ["inverse", SLIDER_CRANK, "--num", "many"],
    ["linearize", FOUR_BAR, "--state", "op.json", "--trim"],
    ["trim", FOUR_BAR, "--t", "later"],
])
def test_bad_usage_exits_2(argv, capsys):
    assert main(argv) == 2
    assert "usage:" in capsys.readouterr().err


def test_trim_then_linearize_from_the_shell(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(Path(ms.__file__).parents[1]))
    env.pop("MECHSIM_DEBUG", None)
    run = lambda *args: subprocess.run([sys.executable, "-m", "mechsim", *args], capture_output=True, text=True,
                                       env=env, timeout=120, cwd=tmp_path)
    ok = run("trim", FOUR_BAR, "-o", "op.json")
    assert ok.returncode == 0, ok.stderr
    ok = run("linearize", FOUR_BAR, "--state", "op.json", "--minimal", "-o", "lin.json")
    assert ok.returncode == 0, ok.stderr
    A = np.array(json.loads((tmp_path / "lin.json").read_text())["A"])
    assert A.shape == (2, 2) and A[0, 1] == pytest.approx(1.0)
    bad = run("inverse", FOUR_BAR)
    assert bad.returncode == 1 and bad.stderr.startswith("error: ") and "Traceback" not in bad.stderr
