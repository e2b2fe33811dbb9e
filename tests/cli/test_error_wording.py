"""Errors about a Python call's keyword arguments read as Python in the API and name the options on the
command line (errors.py: keyword, in_python, MechsimError.for_command_line; issue 43)."""
import textwrap
from pathlib import Path

import pytest

import mechsim as ms
from mechsim.cli.main import main
from mechsim.errors import in_python, keyword

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
COSIM = str(EXAMPLES / "cosim" / "four_bar.yaml")
PENDULUM = """\
name: pendulum
bodies:
  - {name: rod, mass: 1.0, com: [0.5, 0, 0], inertia: [0.0, 0.0833, 0.0833]}
joints:
  - {name: j1, kind: revolute, parent: ground, child: rod, axis: [0, 0, 1], q0: 0.5}
"""


@pytest.fixture
def pendulum(tmp_path):
    path = tmp_path / "pendulum.yaml"       # no simulation: section
    path.write_text(textwrap.dedent(PENDULUM))
    return str(path)


def test_marks_read_as_python_and_as_options():
    error = ms.ModelError(f"f(): g(): {in_python('nested: ')}{keyword('h')} = 0 and {keyword('rtol')} = 0: give "
                          f"{keyword('t_end', to_give=True)} or {keyword('tol', to_give=True)}")
    assert str(error) == "f(): g(): nested: h = 0 and rtol = 0: give t_end or tol"
    options = {"t_end": "--t-end", "h": "--h", "rtol": "--rtol"}       # h given, rtol from the model file
    assert error.for_command_line(options, given={"h"}) == "--h = 0 and rtol = 0: give --t-end or tol"


def test_the_api_names_the_keyword(pendulum):
    with pytest.raises(ms.ModelError, match=r"^simulate\(\): give t_end \(or simulation: t_end in the model file\)$"):
        ms.load(pendulum).simulate()


@pytest.mark.parametrize("argv, line", [
    (["simulate", "{model}"], "give --t-end (or simulation: t_end in the model file)"),
    (["animate", "{model}", "-o", "out.html"], "give --t-end (or simulation: t_end in the model file)"),
    (["simulate", "{model}", "--t-end", "1", "--solver", "RK4"], "--solver 'RK4' is fixed-step: give the step --h > 0"),
    (["simulate", "{model}", "--t-end", "1", "--rtol", "-1"], "--rtol must be a finite positive number, got -1.0"),
    (["simulate", "{model}", "--t-end", "1", "--step-control", "PI"],
     "--step-control='PI' is not one of standard, predictive"),
    (["simulate", "{model}", "--t-end", "1", "--max-step", "1e-12"],
     "--max-step = 1e-12 would take more than 1e+09 steps to --t-end = 1; give a larger --max-step"),
    (["sweep", "{model}", "--param", "joints.j1.q0=0.1,0.2"], "give --t-end (or simulation: t_end in the model file)"),
    (["sweep", "{model}", "--param", "joints.j1.q0=normal(0,1)", "--t-end", "1"],
     "parameter 'joints.j1.q0' is a distribution; give --samples=N for a Monte Carlo study"),
    (["sweep", "{model}", "--param", "joints.j1.q0=0.1", "--t-end", "1", "--workers", "0"],
     "--workers must be a positive integer, got 0"),
    (["trim", "{model}", "--fixed", "j9=1"], "--fixed names unknown coordinate 'j9'"),
    (["assemble", "{model}", "--fixed", "j9"], "--fixed names unknown coordinate 'j9'"),
    (["linearize", "{model}", "--independent", "j9"], "--independent names unknown coordinate 'j9'"),
    (["cosimulate", COSIM, "--t-end", "-1"], "--t-end = -1.0 must be after the start time 0.0"),
    (["cosimulate", COSIM, "--t-end", "1", "--stiffness", "10"], "--stiffness applies to --method='compliance' only"),
    (["simulate", "{tiny_steps}"], "max_step = 1e-300 would take more than 1e+09 steps to t_end = 1; give a larger "
                                   "--max-step"),
])
def test_the_command_line_names_the_option(pendulum, capsys, argv, line):
    tiny_steps = Path(pendulum).with_name("tiny_steps.yaml")          # values from the file keep its words
    tiny_steps.write_text(textwrap.dedent(PENDULUM) + "simulation: {t_end: 1, max_step: 1.0e-300}\n")
    assert main([word.format(model=pendulum, tiny_steps=tiny_steps) for word in argv]) == 1
    lines = [text for text in capsys.readouterr().err.splitlines() if not text.startswith("note: ")]  # cold cache
    assert len(lines) == 1 and lines[0].startswith("error: " + line), lines
