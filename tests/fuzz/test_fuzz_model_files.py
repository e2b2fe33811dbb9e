"""Property-based tests of model files through the command line (issue 16): small valid models
(pendulum, cart, double pendulum, four-bar loop, slider-crank with a constraint and a driver,
ball on a contact, joint stop with friction) mutated — values replaced by junk, keys deleted or
added, names duplicated or unknown, kinds swapped, expressions valid and hostile, simulation
options — or their YAML text corrupted. Every input ends in exit 0 with a CSV of finite numbers,
or exit 1 with one ``error:`` line; never a traceback, a hang or a file an expression wrote."""
import copy
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import assume, given, settings, strategies as st

from fuzz_helpers import (HOSTILE_EXPRESSIONS, MODELS, NAMES, SPECIAL_NUMBERS, VALID_EXPRESSIONS, assert_clean_failure,
                          assert_finite_csv, examples, junk_values, model, run_cli)
from mechsim.io.model_file import (BODY_PARAMETERS, CONTACT_PARAMETERS, FORCE_PARAMETERS, JOINT_PARAMETERS,
                                   SIMULATION_KEYS)
from mechsim.modeling.constraints import CONSTRAINT_CLASSES, CONSTRAINT_OPTIONS
from mechsim.modeling.forces import FORCE_CLASSES
from mechsim.modeling.joints import JOINT_KINDS
from mechsim.simulation.options import SOLVERS

# a CLI process per example, after every base model through every command (warm): about two minutes, so
# in the slow pass (CI runs it); test_fuzz_api.py fuzzes the same models in-process in the default suite
pytestmark = pytest.mark.slow
SRC = Path(__file__).resolve().parents[2] / "src"
KINDS = [*JOINT_KINDS, *FORCE_CLASSES, *CONSTRAINT_CLASSES, "hinge", "", "REVOLUTE"]
KEYS = sorted({*BODY_PARAMETERS, *JOINT_PARAMETERS, *FORCE_PARAMETERS, *CONTACT_PARAMETERS,
               *(k for kind in JOINT_KINDS.values() for k in kind.options), *(k for c in FORCE_CLASSES.values() for k in c.options),
               *(k for opts in CONSTRAINT_OPTIONS.values() for k in opts), "bogus", "position", "signal", "action"})
SECTIONS = ("bodies", "joints", "forces", "constraints", "drivers", "contacts", "events", "inputs")
MAX_T_END = 0.2         # a longer finite run is what the user asked for: not a hang


# ------------------------------------------------------------------------------ strategies
def numbers():
    return st.one_of(st.sampled_from(SPECIAL_NUMBERS), st.floats(), st.integers(-10 ** 20, 10 ** 20),
                     st.floats(-10, 10))


def option_values(key):
    """Values for a simulation: key, valid and not."""
    valid = {
        "t_end": st.sampled_from([0.05, 0.1, 1e-9]), "solver": st.sampled_from([*SOLVERS, "rk45", "bogus"]),
        "rtol": st.sampled_from([1e-3, 1e-8, 1e-14, 1e-300]), "atol": st.sampled_from([1e-6, 1e-12, 1e-300]),
        "h": st.sampled_from([1e-3, 0.01, 0.1, 1.0]), "max_step": st.sampled_from([1e-3, 0.05, 10.0]),
        "drift": st.sampled_from(["projection", "stabilization", "baumgarte", "none", "bogus"]),
        "constraint_solver": st.sampled_from(["cholesky", "qr", "lu"]),
        "formulation": st.sampled_from(["lagrange", "nullspace", "penalty", "bogus"]),
        "penalty": st.sampled_from([{"stiffness": 1e5}, {"frequency": 1e3, "damping_ratio": 0.5}, {"frequency": -1},
                                    {"stiffness": {"zz": 1.0}}, {"stiffness": 1e300}, "stiff",
                                    {"iterations": 2}, {"iterations": -1}, {"iterations": 1, "factor": 1e300},
                                    {"factor": 2.0}]),
        "sigma": st.sampled_from([20.0, 0.0, 1e300, "x"]),
        "baumgarte": st.sampled_from([[1, 1], [0, 0], [1e300, 1e300], [-5, 5], [1]]),
        "backend": st.sampled_from(["auto", "compiled", "python", "gpu"]), "progress": st.booleans(),
        "sample_time": st.sampled_from([0.01, 1e-9]),
        "t_eval": st.sampled_from([[0, 0.05], [0.05, 0], [0.0], {"start": 0, "stop": 0.05, "num": 3},
                                   {"start": 0, "stop": 0.05, "num": 10 ** 12}, {"start": 0, "stop": 1e300, "num": 2},
                                   [0, 0.01, 0.01], [1e300]]),
        "inputs": st.sampled_from([{"u": "sin(t)"}, {"u": 1e300}, {"u": "1/0"}, {"zz": 1}, {"u": "__import__('os')"}]),
    }.get(key, numbers())
    return st.one_of(valid, valid, junk_values(st))


def paths(node, prefix=()):
    """Every path (tuple of keys and indices) in a nested dict/list, the root's included."""
    yield prefix
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        yield from paths(value, (*prefix, key))


def get(node, path):
    for key in path:
        node = node[key]
    return node


@st.composite
def mutated_models(draw):
    """(base model name, model-file dict, list of the mutations applied)."""
    name = draw(st.sampled_from(sorted(MODELS)))
    data = model(name)
    done = []
    for op in draw(st.lists(st.sampled_from(MUTATIONS), max_size=3)):
        done.append(op(draw, data))
    t_end = (data.get("simulation") or {}).get("t_end") if isinstance(data.get("simulation"), dict) else None
    assume(not (isinstance(t_end, (int, float)) and not isinstance(t_end, bool) and MAX_T_END < t_end < float("inf")))
    return name, data, done


def _pick(draw, data, keep):
    candidates = [p for p in paths(data) if p and keep(p, get(data, p))]
    return draw(st.sampled_from(candidates)) if candidates else None


def replace(draw, data):
    path = _pick(draw, data, lambda p, v: True)
    if path is None:
        return ("replace", None)
    value = draw(junk_values(st))
    get(data, path[:-1])[path[-1]] = value
    return ("replace", path, value)


def number(draw, data):
    path = _pick(draw, data, lambda p, v: isinstance(v, (int, float)) and not isinstance(v, bool))
    if path is None:
        return ("number", None)
    value = draw(numbers())
    get(data, path[:-1])[path[-1]] = value
    return ("number", path, value)


def expression(draw, data):
    path = _pick(draw, data, lambda p, v: isinstance(v, (int, float, str)) and p[-1] not in ("name", "kind"))
    if path is None:
        return ("expression", None)
    value = draw(st.sampled_from(VALID_EXPRESSIONS + HOSTILE_EXPRESSIONS))
    get(data, path[:-1])[path[-1]] = value
    return ("expression", path, value)


def delete(draw, data):
    path = _pick(draw, data, lambda p, v: True)
    if path is None:
        return ("delete", None)
    del get(data, path[:-1])[path[-1]]
    return ("delete", path)


def add_key(draw, data):
    path = _pick(draw, data, lambda p, v: isinstance(v, dict)) or ()
    key = draw(st.sampled_from(KEYS))
    value = draw(st.one_of(junk_values(st), st.sampled_from([[0, 0, 1], 1.0, "j1", "rod", True, [["R", [0, 0, 1]]]])))
    get(data, path)[key] = value
    return ("add_key", path, key, value)


def duplicate(draw, data):
    path = _pick(draw, data, lambda p, v: len(p) == 2 and p[0] in SECTIONS and isinstance(data[p[0]], list))
    if path is None:
        return ("duplicate", None)
    data[path[0]].append(copy.deepcopy(get(data, path)))
    return ("duplicate", path)


def rename(draw, data):
    path = _pick(draw, data, lambda p, v: isinstance(v, str) and p[-1] != "kind")
    if path is None:
        return ("rename", None)
    value = draw(st.sampled_from(NAMES + ["crank", "slider", "hinge", "ball", "free", "tip", "lower"]))
    get(data, path[:-1])[path[-1]] = value
    return ("rename", path, value)


def kind(draw, data):
    path = _pick(draw, data, lambda p, v: p[-1] == "kind")
    if path is None:
        return ("kind", None)
    value = draw(st.sampled_from(KINDS))
    get(data, path[:-1])[path[-1]] = value
    return ("kind", path, value)


def simulation(draw, data):
    if not isinstance(data.get("simulation"), dict):
        data["simulation"] = {"t_end": 0.1}
    key = draw(st.sampled_from(SIMULATION_KEYS))
    value = draw(option_values(key))
    data["simulation"][key] = value
    return ("simulation", key, value)


MUTATIONS = (replace, number, number, expression, delete, add_key, duplicate, rename, kind, simulation, simulation)

COMMANDS = st.sampled_from([["simulate"]] * 8 + [["check"], ["assemble"], ["signals"], ["trim"],
                                                 ["inverse", "--num", "5"], ["linearize", "--trim"]])
FLAGS = st.lists(st.sampled_from([["--t-end", "0.05"], ["--t-end", "inf"], ["--t-end", "nan"], ["--t-end", "1e400"],
                                  ["--t-end", "-1"], ["--rtol", "1e-300"], ["--rtol", "nan"], ["--atol", "0"],
                                  ["--solver", "RK4"], ["--solver", "Euler", "--h", "0.01"], ["--h", "1e-300"],
                                  ["--max-step", "inf"], ["--max-step", "1e-300"], ["--backend", "python"],
                                  ["--solver", "Radau"], ["--solver", "LSODA"], ["--signals", "j1.q,nope"]]),
                 max_size=2)


# ------------------------------------------------------------------------------ properties
@pytest.fixture(scope="module")
def warm():
    """Every base model run once through each command, so that the examples find their kernels
    loaded (or compiled, on a cold cache)."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in MODELS.items():
            path = Path(tmp) / f"{name}.yaml"
            path.write_text(yaml.safe_dump(data))
            for command in COMMANDS_WARMED:
                run_cli([*command, path, "-o", Path(tmp) / "out.csv"], seconds=1200)


COMMANDS_WARMED = (["simulate"], ["simulate", "--solver", "Radau"], ["simulate", "--solver", "RK23"],
                   ["simulate", "--solver", "RK4", "--h", "0.01"], ["linearize", "--trim"], ["inverse", "--num", "5"])


def write_model(data, folder, suffix):
    path = Path(folder) / ("model" + suffix)
    path.write_text(json.dumps(data) if suffix == ".json" else yaml.safe_dump(data, allow_unicode=True))
    return path


def check_run(argv, folder, context):
    """Run the CLI in ``folder``; exit 0 with a finite CSV (simulate, inverse) or exit 1 with one error line;
    an expression never leaves a file behind."""
    before = set(os.listdir(folder))
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        code, out, err = run_cli(argv)
    finally:
        os.chdir(cwd)
    assert not set(os.listdir(folder)) - before - {"out.csv"}, f"files created: {context}"
    if code == 2 and argv[-1].startswith("-"):
        return code
    if code != 0:
        assert_clean_failure(code, err, context)
    else:
        assert all(line.startswith("warning: ") for line in err.splitlines()), f"stderr {err!r} {context}"
        if "-o" in argv:
            assert_finite_csv(Path(folder) / "out.csv", context)
    return code


@settings(max_examples=examples(800))
@given(case=mutated_models(), command=COMMANDS, flags=FLAGS, suffix=st.sampled_from([".yaml", ".yaml", ".json"]))
def test_mutated_model_files_through_the_cli(warm, case, command, flags, suffix):
    name, data, mutations = case
    with tempfile.TemporaryDirectory() as folder:
        path = write_model(data, folder, suffix)
        argv = [*command, path.name]
        if command[0] in ("simulate", "inverse"):
            argv += ["-o", "out.csv"]
        if command[0] == "simulate":
            argv += [flag for pair in flags for flag in pair]
        check_run(argv, folder, f"{name} {mutations} {argv}")


def nested_text(depth, kind):
    opening, closing = {"list": ("[", "]"), "map": ("{a: ", "}"), "block": ("", "")}[kind]
    if kind == "block":
        return "bodies:\n" + "- " * depth + "1\n"
    return "bodies: " + opening * depth + closing * depth + "\n"


def alias_bomb(levels, fanout):
    lines = ["a0: &a0 [1.0]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * fanout) + "]")
    return "\n".join(["name: bomb", "simulation:", "  inputs:"] + ["    " + line for line in lines]) + "\n"


CORRUPTIONS = [":", "- ", "[", "]", "{", "}", "&a ", "*a", "*b", "!!python/object:os.system ", "!!binary ", "\t", "'",
               '"', "%YAML 1.1\n", "---\n", "...\n", "\n", "  ", "#", "?", "|", ">", "@", "`", "\\", "\x00", "\ufeff",
               "!!float ", "!!int ", "!!str ", "!!set ", "<<: ", "~", "null", "1e400", ".nan", "0x1F", "0o17"]


@st.composite
def corrupted_texts(draw):
    """A model file's YAML text with a few insertions and deletions; or deep nesting; or an alias bomb."""
    shape = draw(st.sampled_from(["corrupt", "corrupt", "corrupt", "nested", "bomb"]))
    if shape == "nested":
        return nested_text(draw(st.sampled_from([10, 100, 1000, 10 ** 4, 10 ** 5])),
                           draw(st.sampled_from(["list", "map", "block"])))
    if shape == "bomb":
        return alias_bomb(draw(st.integers(2, 12)), draw(st.integers(2, 12)))
    text = yaml.safe_dump(model(draw(st.sampled_from(sorted(MODELS)))))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            text = text[:at] + draw(st.sampled_from(CORRUPTIONS)) + text[at:]
        else:
            text = text[:at] + text[at + draw(st.integers(1, 20)):]
    return text


@settings(max_examples=examples(100))
@given(text=corrupted_texts(), command=st.sampled_from(["simulate", "check"]))
def test_corrupted_yaml_text(warm, text, command):
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "model.yaml").write_text(text, encoding="utf-8", errors="surrogateescape")
        argv = [command, "model.yaml"] + (["-o", "out.csv"] if command == "simulate" else [])
        check_run(argv, folder, f"{text[:300]!r}")


@settings(max_examples=examples(40))
@given(expression=st.sampled_from(HOSTILE_EXPRESSIONS),
       where=st.sampled_from([("forces", 0, "value"), ("simulation", "inputs", "u"), ("drivers", 0, "position"),
                              ("constraints", 0, "length"), ("forces", 2, "force", 0)]))
def test_hostile_expressions_in_files_are_refused(warm, expression, where):
    data = model("slider_crank") if where[0] in ("drivers", "constraints") else model("cart")
    get(data, where[:-1])[where[-1]] = expression
    with tempfile.TemporaryDirectory() as folder:
        write_model(data, folder, ".yaml")
        code = check_run(["simulate", "model.yaml", "-o", "out.csv"], folder, f"{expression!r} at {where}")
        assert code == 1, f"{expression!r} at {where} was accepted"


# ------------------------------------------------------------------------------ real processes
def run_process(argv, folder, timeout=60):
    """A real ``python -m mechsim`` (interpreter start and kernel loading: a few seconds)."""
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("MECHSIM_DEBUG", None)
    try:
        return subprocess.run([sys.executable, "-m", "mechsim", *map(str, argv)], cwd=folder, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"mechsim {argv} ran longer than {timeout} s")


@settings(max_examples=examples(5))
@given(case=mutated_models())
def test_mutated_model_files_in_a_subprocess(warm, case):
    name, data, mutations = case
    with tempfile.TemporaryDirectory() as folder:
        write_model(data, folder, ".yaml")
        proc = run_process(["simulate", "model.yaml", "-o", "out.csv"], folder)
        context = f"{name} {mutations}"
        if proc.returncode == 0:
            assert all(line.startswith("warning: ") for line in proc.stderr.splitlines()), context
            assert_finite_csv(Path(folder) / "out.csv", context)
        else:
            assert_clean_failure(proc.returncode, proc.stderr, context)
