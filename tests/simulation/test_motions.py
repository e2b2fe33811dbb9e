"""Prescribed motions, drivers' and distance lengths', that overflow, are not finite (at a sample or at a
pole between samples) or disagree with their own rates are ModelErrors before the run, naming the element
(Motion.check_span), instead of runs that crawl at ever smaller steps (issue 43: a driver's acceleration
'1e308*t' hung mechsim simulate on the slider-crank); force values that blow up end the run with a
SimulationError. The cases run in one subprocess with a timeout, so that a hang fails instead of blocking."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
TIMEOUT = 120           # s, every case together (each takes well under a second once the kernels are cached)
OVERFLOWS, NOT_FINITE = "overflows: its {} reaches", "is not finite: its {} is {}"
POLE = "is not finite: its {} changes sign through infinity at t = 0.3"

CASES = [   # (element: driver, length or force; its arguments; error; message)
    ("driver", dict(acceleration="1e308*t"), "ModelError",
     "driver 'j1': the motion given by acceleration '1e308*t' " + OVERFLOWS.format("position")),
    *[("driver", {given: expression}, "ModelError", f"driver 'j1': the motion given by {given} '{expression}' {words}")
      for given in ("position", "velocity", "acceleration")
      for expression, words in (("1e308*t", OVERFLOWS.format("position")),
                                ("exp(1000*t)", OVERFLOWS.format("position")),
                                ("1/(t-0.3)", POLE.format(given)), ("0/0", NOT_FINITE.format(given, "nan")))],
    ("driver", dict(position="6.283185307179586*t", velocity="6.283185307179586", acceleration="1e308*t"),
     "ModelError", "driver 'j1': its acceleration '1e308*t' is not the rate of its velocity '6.283185307179586'"),
    ("driver", dict(position="nan"), "ModelError", "driver 'j1' position: invalid expression 'nan'"),
    *[("length", expression, "ModelError",
       f"constraint 'rope' (distance): the motion given by length '{expression}' {words}")
      for expression, words in (("1e308*t", OVERFLOWS.format("length")), ("exp(1000*t)", OVERFLOWS.format("length")),
                                ("1/(t-0.3)", POLE.format("length")), ("0/0", NOT_FINITE.format("length", "nan")))],
    ("force", "1e308*t", "SimulationError", "the state became non-finite"),
    ("force", "exp(1000*t)", "SimulationError", "the state became non-finite"),
    ("force", "1/(t-0.5)", "SimulationError", "failed at t = 0.5"),
    ("force", "0/0", "SimulationError", "the value of force 'f' is not finite at t = 0"),
]


def with_element(element, arguments):
    """A model with the element of a case: a driver on the slider-crank's crank, a rope of that length on the
    four-bar, a force of that value on a cart."""
    import mechsim as ms
    if element == "driver":
        m = ms.load(EXAMPLES / "slider_crank_free.yaml")
        m.add_driver("j1", **arguments)
    elif element == "length":
        m = ms.load(EXAMPLES / "four_bar.yaml")
        m.add_constraint("rope", "distance", body_a="ground", point_a=(0, 2, 0), body_b="rocker", point_b=(2.5, 0, 0),
                         length=arguments)
    else:
        m = ms.Model("cart")
        m.add_body("cart", mass=1.0, inertia=(1, 1, 1))
        m.add_joint("x", "prismatic", parent="ground", child="cart", axis=(1, 0, 0))
        m.add_force("f", "joint_force", joint="x", value=arguments)
    return m


def outcome(element, arguments):
    """(error class name, message) of building and simulating a case for 1 s ('' and '' if it ran)."""
    import mechsim as ms
    try:
        with_element(element, arguments).simulate(t_end=1.0)
    except ms.MechsimError as exc:
        return type(exc).__name__, str(exc)
    return "", ""


@pytest.fixture(scope="module")
def outcomes():
    """Every case's outcome, from one subprocess."""
    code = ("import json, sys, warnings; warnings.simplefilter('ignore'); sys.path.insert(0, sys.argv[1]); "
            "import test_motions as t; print(json.dumps([t.outcome(e, a) for e, a, _, _ in t.CASES]))")
    done = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)], capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("k", range(len(CASES)), ids=[f"{e}-{a}" for e, a, _, _ in CASES])
def test_a_bad_motion_or_force_is_a_clear_error(outcomes, k):
    error, message = outcomes[k]
    assert error == CASES[k][2] and CASES[k][3] in message, message


def test_the_command_line_says_which_driver_overflows(tmp_path):
    text = (EXAMPLES / "slider_crank.yaml").read_text()
    motion = 'position: "6.283185307179586*t", velocity: "6.283185307179586", acceleration: "0"'
    assert motion in text
    model = tmp_path / "slider_crank.yaml"
    model.write_text(text.replace(motion, "acceleration: '1e308*t'"))
    done = subprocess.run([str(Path(sys.executable).with_name("mechsim")), "simulate", str(model)], capture_output=True,
                          text=True, timeout=30)
    lines = [line for line in done.stderr.splitlines() if not line.startswith("note: ")]     # a cold cache's note
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert lines[0].startswith("error: driver 'j1': the motion given by acceleration '1e308*t' overflows: its "
                               "position reaches"), done.stderr
