"""FMI 2.0: a mechsim model exported as an FMU and run by fmpy; an FMU controller in mechsim's loop.

The exported FMUs run here in this process (fmpy loads them beside mechsim); test_fresh_environment runs the
documented workflow in a new virtual environment (slow)."""
import json
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms
from mechsim.cli.main import main

fmpy = pytest.importorskip("fmpy")
pythonfmu = pytest.importorskip("pythonfmu")
from fmpy.validation import validate_fmu  # noqa: E402  (after the skip when fmpy is missing)
from fmu_host import event_logger  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ROOT = EXAMPLES.parent


def pendulum():
    m = ms.Model("pendulum", gravity=(0, -9.81, 0))
    m.add_input("u", 0.0)
    m.add_body("rod", mass=1.0, com=(0.5, 0, 0), inertia=(0.0, 1 / 12, 1 / 12))
    m.add_joint("j1", "revolute", parent="ground", child="rod", axis=(0, 0, 1), q0=0.5)
    m.add_force("motor", "joint_force", joint="j1", value="u")
    return m


def run_logging_events(path, **options):
    """fmpy.simulate_fmu's result and the FMU's events as [t, kind, name]."""
    events = []
    return fmpy.simulate_fmu(str(path), debug_logging=True, logger=event_logger(events), **options), events


def column(result, name, n):
    """Entry n of signal ``name`` of a mechsim Result, over its samples."""
    return np.asarray(result[name]).reshape(len(result.t), -1)[:, n]


def test_the_exported_fmu_run_by_fmpy_equals_simulate(tmp_path):
    m = pendulum()
    path = m.to_fmu(tmp_path / "pendulum.fmu", outputs=["j1.q", "j1.v", "j1.reaction[4]"], rtol=1e-10, atol=1e-12)
    description = fmpy.read_model_description(str(path))
    assert {(v.name, v.causality) for v in description.modelVariables if v.causality != "parameter"} == {
        ("u", "input"), ("j1.q", "output"), ("j1.v", "output"), ("j1.reaction[4]", "output")}
    u = np.array([(0.0, 0.2)], dtype=[("time", float), ("u", float)])
    run = fmpy.simulate_fmu(str(path), stop_time=1.0, step_size=0.01, output_interval=0.01, input=u,
                            output=["j1.q", "j1.v", "j1.reaction[4]"])
    reference = m.simulate(t_end=1.0, inputs={"u": 0.2}, rtol=1e-10, atol=1e-12, t_eval=run["time"])
    assert len(run) == 101
    assert np.allclose(run["j1.q"], reference["j1.q"], rtol=0, atol=1e-8)
    assert np.allclose(run["j1.v"], reference["j1.v"], rtol=0, atol=1e-8)
    assert np.allclose(run["j1.reaction[4]"], reference["j1.reaction"][:, 4], rtol=0, atol=1e-7)


def test_bad_exports_are_refused(tmp_path):
    with pytest.raises(ms.ModelError, match="unknown output signal 'j9.q'"):
        pendulum().to_fmu(tmp_path / "p.fmu", outputs=["j9.q"])
    with pytest.raises(ms.ModelError, match="ending in .fmu"):
        pendulum().to_fmu(tmp_path / "p.zip")
    with pytest.raises(ms.ModelError, match=r"output 'j1.reaction\[6\]': j1.reaction has 6 entries, 0 to 5"):
        pendulum().to_fmu(tmp_path / "p.fmu", outputs=["j1.reaction[6]"])
    with pytest.raises(ms.ModelError, match="'t_end' is not an option of the FMU's run"):
        pendulum().to_fmu(tmp_path / "p.fmu", t_end=3.0)


def test_a_loaded_module_named_after_the_model_does_not_stand_in_for_the_fmu(tmp_path, monkeypatch):
    """The example scripts import as modules named after their models (cart_pendulum): an export must build its
    own script, not the module already loaded (pythonfmu imports the script by name)."""
    monkeypatch.setitem(sys.modules, "cart_pendulum", types.ModuleType("cart_pendulum"))
    path = ms.load(EXAMPLES / "cart_pendulum.yaml").to_fmu(tmp_path / "cart.fmu")
    assert validate_fmu(str(path)) == []


def test_the_model_description_passes_fmpy_validate_with_units_parameters_and_an_experiment(tmp_path):
    m = ms.load(EXAMPLES / "cart_pendulum.yaml")
    path = m.to_fmu(tmp_path / "cart.fmu")
    assert validate_fmu(str(path)) == []
    description = fmpy.read_model_description(str(path))
    variables = {v.name: v for v in description.modelVariables}
    units = [variables[name].unit for name in ("slide.q", "hinge.q", "rod.omega[2]")]
    assert units == ["m", "rad", "rad/s"]
    assert variables["hinge.reaction[0]"].unit == "N.m" and variables["slide.force"].unit == "N"
    assert variables["rod.position[1]"].description == "position of the body frame of body 'rod', entry 1"
    parameters = {name: (v.start, v.unit) for name, v in variables.items() if v.causality == "parameter"}
    assert parameters["bodies.rod.mass"] == ("0.5", "kg")
    assert parameters["forces.spring.stiffness"] == ("20", "N/m") and parameters["forces.spring.damping"][1] == "N.s/m"
    experiment = description.defaultExperiment
    assert [float(x) for x in (experiment.stopTime, experiment.tolerance, experiment.stepSize)] == [10, 1e-8, 0.02]
    outputs = [v.name for v in description.modelVariables if v.causality == "output"]
    assert len(outputs) == sum(np.size(m.simulate(t_end=0.01)[name][0]) for name in m.signals())


@pytest.mark.parametrize("example, t_end", [("cart_pendulum", 2.0), ("four_bar", 2.0), ("tumbling_body", 4.0)])
def test_smooth_example_fmus_equal_simulate(tmp_path, example, t_end):
    """Every position and velocity output (default outputs: every entry of every signal, "float.q[3]"), run with
    the file's own solver settings (DOP853 at 1e-11 for the four-bar and the tumbling body)."""
    m = ms.load(EXAMPLES / f"{example}.yaml")
    path = m.to_fmu(tmp_path / f"{example}.fmu")
    run = fmpy.simulate_fmu(str(path), stop_time=t_end, output_interval=0.05)
    reference = m.simulate(t_end=t_end, t_eval=run["time"])
    checked = 0
    for name in run.dtype.names[1:]:
        signal, _, entry = name.partition("[")
        if signal.endswith((".q", ".v")):
            assert np.max(np.abs(run[name] - column(reference, signal, int(entry[:-1] or 0)))) < 1e-8, name
            checked += 1
    assert checked >= 4


@pytest.fixture(scope="module")
def belt_fmu(tmp_path_factory):
    m = ms.load(EXAMPLES / "stick_slip_belt.yaml")
    return m, m.to_fmu(tmp_path_factory.mktemp("belt") / "belt.fmu", outputs=["slip.q", "slip.v", "friction.force"])


def test_the_stick_slip_belt_fmu_switches_when_simulate_does(belt_fmu):
    """The hybrid state (the friction locked or slipping) goes on across communication points: the switching times
    the FMU logs equal one m.simulate's, the block's motion too."""
    m, path = belt_fmu
    run, events = run_logging_events(path, stop_time=4.0, output_interval=0.01)
    reference = m.simulate(t_end=4.0, t_eval=run["time"])
    expected = [[record.time, record.kind, record.name] for record in reference.events]
    assert [e[1:] for e in events] == [e[1:] for e in expected] and len(expected) == 11
    assert expected[0][:2] == [pytest.approx(0.25, abs=1e-12), "unlock"]
    assert np.max(np.abs([a[0] - b[0] for a, b in zip(events, expected)])) < 1e-9
    assert np.max(np.abs(run["slip.q"] - reference["slip.q"])) < 1e-8
    assert np.max(np.abs(run["friction.force"] - reference["friction.force"])) < 1e-6


def test_parameters_set_before_the_initialization_change_the_run(belt_fmu):
    m, path = belt_fmu
    values = {"bodies.block.mass": 2.0, "forces.spring.stiffness": 150.0, "forces.friction.static": 6.0}
    run = fmpy.simulate_fmu(str(path), stop_time=1.5, output_interval=0.05, start_values=values)
    reference = m.with_parameters(values).simulate(t_end=1.5, t_eval=run["time"])
    assert np.max(np.abs(run["slip.q"] - reference["slip.q"])) < 1e-8
    assert np.max(np.abs(run["slip.q"] - m.simulate(t_end=1.5, t_eval=run["time"])["slip.q"])) > 1e-3


def test_a_saved_fmu_state_goes_back_to_its_instant_and_mode(belt_fmu):
    _, path = belt_fmu
    description = fmpy.read_model_description(str(path))
    assert description.coSimulation.canGetAndSetFMUstate
    q = next(v.valueReference for v in description.modelVariables if v.name == "slip.q")
    folder = fmpy.extract(str(path))
    fmu = fmpy.fmi2.FMU2Slave(guid=description.guid, unzipDirectory=folder, instanceName="belt",
                              modelIdentifier=description.coSimulation.modelIdentifier)
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0, stopTime=2.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    fmu.doStep(0.0, 0.5)                  # slipping since 0.25
    saved = fmu.getFMUState()
    for t in (0.5, 0.75):                 # locks at 0.72 and unlocks at 0.92 on the way
        fmu.doStep(t, 0.25)
    first = fmu.getReal([q])[0]
    fmu.setFMUState(saved)
    fmu.doStep(0.5, 0.5)
    assert abs(fmu.getReal([q])[0] - first) < 1e-9
    fmu.freeFMUState(saved)
    fmu.terminate()
    fmu.freeInstance()


def test_the_slave_module_keeps_its_globals_across_instances(tmp_path):
    """pythonfmu's loader releases a reference to the slave module's globals at each instantiation: the slave
    takes it back, so that the dictionary is never freed under the module (the generated script)."""
    import gc
    path = pendulum().to_fmu(tmp_path / "pendulum.fmu", outputs=["j1.q"])
    description = fmpy.read_model_description(str(path))
    folder = fmpy.extract(str(path))
    for k in range(3):
        fmu = fmpy.fmi2.FMU2Slave(guid=description.guid, unzipDirectory=folder, instanceName=f"p{k}",
                                  modelIdentifier=description.coSimulation.modelIdentifier)
        fmu.instantiate()
        fmu.freeInstance()
    names = sys.modules["mechsim_fmu_pendulum"].__dict__          # the generated script, as loaded by the FMU
    assert sys.getrefcount(names) - 1 >= len(gc.get_referrers(names))


HOST = """
import sys
import fmpy
try:
    fmpy.simulate_fmu(sys.argv[1], stop_time=0.5, output_interval=0.1)
    print("simulated")
except Exception as exc:
    print(f"failed: {exc}")
"""


def host(fmu, before="", **env):
    """A Python host (fmpy, no mechsim imported) running an FMU: (exit code, stdout, stderr)."""
    done = subprocess.run([sys.executable, "-c", before + HOST, str(fmu)], capture_output=True, text=True,
                          timeout=600, env={**os.environ, **env})
    return done.returncode, done.stdout, done.stderr


def test_a_python_host_exits_cleanly(belt_fmu):
    """glibc's free lists without the per-thread cache take the block pythonfmu's exit used to write into."""
    for _ in range(3):
        code, out, err = host(belt_fmu[1], GLIBC_TUNABLES="glibc.malloc.tcache_count=0")
        assert (code, out.strip()) == (0, "simulated"), err


def test_without_mechsim_the_fmu_says_what_is_missing(belt_fmu):
    code, out, err = host(belt_fmu[1], before="import sys; sys.modules['mechsim'] = None\n")
    assert code == 0 and out.startswith("failed")
    assert "the FMU 'stick-slip-belt' runs mechsim's Python code" in err
    assert "cannot import mechsim" in err and "pip install 'mechsim[fmi]'" in err


def test_the_command_line_exports(tmp_path, capsys):
    out = tmp_path / "belt.fmu"
    assert main(["fmu", str(EXAMPLES / "stick_slip_belt.yaml"), "-o", str(out), "--outputs", "slip.q,block.position",
                 "--rtol", "1e-9"]) == 0
    assert capsys.readouterr().out == f"wrote {out}\n"
    description = fmpy.read_model_description(str(out))
    assert [v.name for v in description.modelVariables if v.causality == "output"] == [
        "slip.q", "block.position[0]", "block.position[1]", "block.position[2]"]
    assert float(description.defaultExperiment.tolerance) == 1e-9
    assert main(["fmu", str(EXAMPLES / "stick_slip_belt.yaml"), "-o", str(tmp_path / "belt.zip")]) == 1
    assert "error: --output" in capsys.readouterr().err
    assert main(["fmu", str(EXAMPLES / "stick_slip_belt.yaml"), "-o", str(out), "--outputs", "slip.x"]) == 1
    assert "unknown output signal 'slip.x'" in capsys.readouterr().err


PD_SLAVE = '''
from pythonfmu import Fmi2Causality, Fmi2Slave, Real


class pd(Fmi2Slave):
    """u = -kp (q - 1) - kd v, with an integrator of the error as a state advanced in do_step."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.q = self.v = self.integral = 0.0
        self.register_variable(Real("q", causality=Fmi2Causality.input))
        self.register_variable(Real("v", causality=Fmi2Causality.input))
        self.register_variable(Real("torque", causality=Fmi2Causality.output,
                                    getter=lambda: -20.0 * (self.q - 1.0) - 4.0 * self.v - 5.0 * self.integral))

    def do_step(self, current_time, step_size):
        self.integral += (self.q - 1.0) * step_size
        return True
'''


def test_an_fmu_controller_in_the_loop_equals_the_same_law_in_python(tmp_path):
    script = tmp_path / "pd.py"
    script.write_text(textwrap.dedent(PD_SLAVE))
    fmu = pythonfmu.FmuBuilder.build_FMU(script, dest=tmp_path)
    controller = ms.FMUController(fmu, inputs={"q": "j1.q", "v": "j1.v"}, outputs={"torque": "u"}, step=0.01)
    with_fmu = pendulum().simulate(t_end=2.0, **controller.options())
    controller.close()
    state = {"integral": 0.0}

    def law(t, outputs):               # the FMU's law: output from the inputs at t_k, then its step
        torque = -20.0 * (outputs["j1.q"] - 1.0) - 4.0 * outputs["j1.v"] - 5.0 * state["integral"]
        state["integral"] += (outputs["j1.q"] - 1.0) * 0.01
        return {"u": torque}
    in_python = pendulum().simulate(t_end=2.0, controller=law, sample_time=0.01)
    assert np.array_equal(with_fmu.t, in_python.t)
    assert np.allclose(with_fmu["j1.q"], in_python["j1.q"], rtol=0, atol=1e-12)
    assert abs(with_fmu["j1.q"][-1] - 1.0) < 0.2                      # the loop closed: it settles near 1 rad


def test_an_fmu_controller_names_a_missing_variable(tmp_path):
    script = tmp_path / "pd.py"
    script.write_text(textwrap.dedent(PD_SLAVE))
    fmu = pythonfmu.FmuBuilder.build_FMU(script, dest=tmp_path)
    with pytest.raises(ms.ModelError, match=r"no input 'angle' \(its inputs: \['q', 'v'\]\)"):
        ms.FMUController(fmu, inputs={"angle": "j1.q"}, outputs={"torque": "u"}, step=0.01)


def fresh_environment(folder):
    """A new virtual environment with mechsim installed as a user would (pip install -e '.[fmi]'), the compiled
    dependencies pinned to this one's versions (so that it shares numba's cache of mechsim's kernels)."""
    from importlib.metadata import version
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=600)
    pins = folder / "constraints.txt"
    pins.write_text("".join(f"{name}=={version(name)}\n" for name in
                            ("numpy", "scipy", "numba", "llvmlite", "fmpy", "pythonfmu", "pyyaml")))
    subprocess.run([str(folder / "bin" / "pip"), "install", "-q", "-c", str(pins), "-e", f"{ROOT}[fmi]"],
                   check=True, timeout=1800)
    return folder / "bin"


@pytest.mark.slow
def test_fresh_environment_exports_validates_and_simulates(tmp_path):
    """In a new virtual environment: ``mechsim fmu`` exports each example, ``fmpy validate`` passes, a host that
    imports fmpy alone simulates the FMU and exits 0; the results equal m.simulate here (positions and velocities
    to 1e-8, the stick-slip belt's switching times to 1e-9 s)."""
    bin_folder = fresh_environment(tmp_path / "venv")
    for example, t_end in (("cart_pendulum", 3.0), ("four_bar", 3.0), ("tumbling_body", 6.0), ("stick_slip_belt", 4.0)):
        fmu, out = tmp_path / f"{example}.fmu", tmp_path / f"{example}.json"
        for command in ([bin_folder / "mechsim", "fmu", EXAMPLES / f"{example}.yaml", "-o", fmu],
                        [bin_folder / "fmpy", "validate", fmu],
                        [bin_folder / "python", Path(__file__).with_name("fmu_host.py"), fmu, t_end, out]):
            done = subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=1800)
            assert done.returncode == 0, f"{command}: {done.stdout}{done.stderr}"
        run = json.loads(out.read_text())
        m = ms.load(EXAMPLES / f"{example}.yaml")
        reference = m.simulate(t_end=t_end, t_eval=run["outputs"]["time"])
        for name, values in run["outputs"].items():
            signal, _, entry = name.partition("[")
            if signal.endswith((".q", ".v")):
                error = np.max(np.abs(np.array(values) - column(reference, signal, int(entry[:-1] or 0))))
                assert error < 1e-8, (example, name, error)
        expected = [[record.time, record.kind, record.name] for record in reference.events]
        assert [e[1:] for e in run["events"]] == [e[1:] for e in expected]
        if expected:
            assert np.max(np.abs([a[0] - b[0] for a, b in zip(run["events"], expected)])) < 1e-9
    assert len(expected) == 11                   # the stick-slip belt's switches were compared
