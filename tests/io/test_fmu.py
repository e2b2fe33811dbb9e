"""FMI 2.0: a mechsim model exported as an FMU and run by fmpy; an FMU controller in mechsim's loop."""
import textwrap

import numpy as np
import pytest

import mechsim as ms

fmpy = pytest.importorskip("fmpy")
pythonfmu = pytest.importorskip("pythonfmu")


def pendulum():
    m = ms.Model("pendulum", gravity=(0, -9.81, 0))
    m.add_input("u", 0.0)
    m.add_body("rod", mass=1.0, com=(0.5, 0, 0), inertia=(0.0, 1 / 12, 1 / 12))
    m.add_joint("j1", "revolute", parent="ground", child="rod", axis=(0, 0, 1), q0=0.5)
    m.add_force("motor", "joint_force", joint="j1", value="u")
    return m


def test_the_exported_fmu_run_by_fmpy_equals_simulate(tmp_path):
    m = pendulum()
    path = m.to_fmu(tmp_path / "pendulum.fmu", outputs=["j1.q", "j1.v", "j1.reaction[4]"], rtol=1e-10, atol=1e-12)
    description = fmpy.read_model_description(str(path))
    assert {(v.name, v.causality) for v in description.modelVariables} == {
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
