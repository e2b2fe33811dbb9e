"""Property-based tests of the Python API (issue 16): the small models of fuzz_helpers built by
add_* calls with one argument replaced by junk (Python junk too: complex numbers, arrays, objects,
callables returning junk), then checked and simulated with generated options, controllers and
inputs. Every call ends in a ModelError/SimulationError naming the offending item, or a Result
whose signals are finite; never another exception, a hang or a NaN."""
import copy
import fractions
import os
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mechsim as ms
from fuzz_helpers import (HOSTILE_EXPRESSIONS, MODELS, SPECIAL_NUMBERS, VALID_EXPRESSIONS, all_finite, examples,
                          junk_values, model, time_limit)
from mechsim.expressions import parse_expression
from mechsim.io.model_file import BODY_PARAMETERS, DRIVER_PARAMETERS, EVENT_PARAMETERS, INPUT_PARAMETERS

SIGNATURES = {"add_input": INPUT_PARAMETERS, "add_body": BODY_PARAMETERS, "add_driver": DRIVER_PARAMETERS,
              "add_event": EVENT_PARAMETERS}
OPEN_ENDED = ("add_joint", "add_force", "add_constraint", "add_contact")    # **options: unknown keys are ModelErrors
ADD = {"inputs": "add_input", "bodies": "add_body", "joints": "add_joint", "constraints": "add_constraint",
       "forces": "add_force", "drivers": "add_driver", "contacts": "add_contact", "events": "add_event"}


def calls(data):
    """[(method name, keyword arguments)] building the model of a model-file dict."""
    out = []
    for section, method in ADD.items():
        for entry in data.get(section, []):
            entry = {"name": entry} if isinstance(entry, str) else dict(entry)
            out.append((method, entry))
    return out


class Opaque:
    """An object no API call expects."""

    def __repr__(self):
        return "<opaque>"


def python_junk():
    """Junk only Python can pass: complex numbers, arrays, fractions, objects, callables returning junk."""
    returned = st.one_of(junk_values(st), st.sampled_from([1j, np.array([np.nan]), Opaque()]))
    return st.one_of(st.sampled_from([1j, complex(np.nan, 0), np.float32(np.nan), np.array([1.0, np.inf, 0]),
                                      np.zeros((2, 2)), np.array(5), np.int64(2 ** 62), fractions.Fraction(1, 3),
                                      b"abc", Opaque(), object, print, range(3), {1, 2}, (1, 2, 3)]),
                     returned.map(lambda value: lambda *args: value),
                     st.just(lambda *args: 1 / 0), st.just(lambda: 1.0))


ARGUMENTS = st.one_of(junk_values(st), python_junk())


@st.composite
def api_models(draw):
    """(base name, calls) with one argument of one call (or a whole argument set) replaced."""
    name = draw(st.sampled_from(sorted(MODELS)))
    todo = calls(model(name))
    for _ in range(draw(st.integers(0, 2))):
        index = draw(st.integers(0, len(todo) - 1))
        method, kwargs = todo[index]
        kwargs = copy.copy(kwargs)
        keys = set(kwargs) | set(SIGNATURES.get(method, ())) | ({"bogus"} if method in OPEN_ENDED else set())
        key = draw(st.sampled_from(sorted(keys - {"name"})))
        kwargs[key] = draw(ARGUMENTS)
        todo[index] = (method, kwargs)
    return name, todo


def controllers():
    returned = st.one_of(junk_values(st), python_junk(), st.sampled_from([{"u": 1.0}, {"u": np.nan}, {"u": "1"},
                                                                         {"zz": 1.0}, {"u": 1e300}, {"u": [1, 2]}]))
    return returned.map(lambda value: lambda t, outputs: value)


OPTIONS = st.fixed_dictionaries({}, optional={
    "t_end": st.one_of(st.sampled_from([0.05, 1e-9, 0.0, -1.0, np.inf, np.nan, "0.1", None, 10 ** 400]), python_junk()),
    "solver": st.one_of(st.sampled_from(["RK45", "DOP853", "RK23", "Radau", "RK4", "Euler", "bogus", "rk45"]), ARGUMENTS),
    "rtol": st.one_of(st.sampled_from([1e-3, 1e-10, 1e-300, 0.0, -1.0, 1j]), ARGUMENTS),
    "atol": st.one_of(st.sampled_from([1e-6, 1e-300, np.inf]), ARGUMENTS),
    "h": st.one_of(st.sampled_from([1e-3, 0.01, 1.0, 1e-300, np.nan]), ARGUMENTS),
    "max_step": st.one_of(st.sampled_from([1e-3, 1e-300, np.inf]), ARGUMENTS),
    "drift": st.one_of(st.sampled_from(["projection", "stabilization", "baumgarte", "none"]), ARGUMENTS),
    "constraint_solver": st.sampled_from(["cholesky", "qr", "bogus", None]),
    "formulation": st.sampled_from(["lagrange", "penalty", "nullspace", 3]),
    "penalty": st.one_of(st.sampled_from([{"stiffness": 1e6, "damping": 1e3}, {"frequency": 1e9}, {"damping": 1.0},
                                          {"stiffness": np.nan}, {"frequency": {"j1": 1.0}}, {"iterations": 3},
                                          {"iterations": 2.5}, {"iterations": 1, "factor": np.inf}]), ARGUMENTS),
    "sigma": st.one_of(st.sampled_from([10.0, -1.0, np.inf]), ARGUMENTS),
    "baumgarte": st.one_of(st.sampled_from([(1.0, 1.0), (np.inf, 1.0), (1.0,), "ab"]), ARGUMENTS),
    "backend": st.sampled_from(["auto", "compiled", "python", "gpu", None]),
    "inputs": st.one_of(st.fixed_dictionaries({"u": ARGUMENTS}), st.sampled_from([{"zz": 1.0}, {1: 2}, [1]]),
                        ARGUMENTS),
    "controller": st.one_of(controllers(), ARGUMENTS),
    "outputs": st.one_of(st.sampled_from([["j1.q"], ["nope"], [], [3], "j1.q"]), ARGUMENTS),
    "sample_time": st.one_of(st.sampled_from([0.01, 1e-300, 0.0, -1.0]), ARGUMENTS),
    "t_eval": st.one_of(st.sampled_from([[0, 0.01], [0.01, 0.0], np.linspace(0, 0.05, 3), [np.nan], [],
                                         {"start": 0, "stop": 0.05, "num": 10 ** 12}]), ARGUMENTS),
    "events": st.one_of(st.sampled_from([[ms.Event("j1.q", value=0.2)], [ms.Event(lambda t, s: np.nan)],
                                         [ms.Event(lambda t, s: "x")], [lambda t, y: t - 0.01], ["j1.q"], 3]),
                        ARGUMENTS),
    "initial": ARGUMENTS,
    "progress": st.one_of(st.booleans(), ARGUMENTS),
})


def expect_named(error, named):
    """A MechsimError, its message naming the item (when the item has a usable name)."""
    assert isinstance(error, (ms.ModelError, ms.SimulationError)), repr(error)
    if isinstance(named, str) and named:
        assert named in str(error), f"{error} does not name {named!r}"


def build(todo):
    """The Model of the calls; ModelError naming the item of the call that failed (None then)."""
    m = ms.Model("fuzz", gravity=(0, -9.81, 0))
    for method, kwargs in todo:
        try:
            getattr(m, method)(**kwargs)
        except Exception as error:
            expect_named(error, kwargs.get("joint") if method == "add_driver" else kwargs.get("name", kwargs.get("signal")))
            return None
    return m


@settings(max_examples=examples(500))
@given(case=api_models(), options=OPTIONS)
def test_api_calls_and_simulate(case, options):
    name, todo = case
    with time_limit(what=f"{name} {todo} {options}"):
        m = build(todo)
        if m is None:
            return
        options.setdefault("t_end", 0.05)
        try:
            res = m.simulate(**options)
        except ms.MechsimError:
            return
        assert all_finite(res), f"non-finite signals: {name} {todo} {options}"


JUNK_STATES = python_junk() | st.lists(st.sampled_from(SPECIAL_NUMBERS), max_size=8)
FIXED = st.one_of(st.sampled_from([["j1"], ["nope"], {"j1.q": np.nan}, {"j1.q": 10 ** 400}, {"j1": "abc"}, "j1", [3],
                                   {"j1.v": [1, 2]}]), python_junk())


def finite_or_refused(name, runs, context):
    """Each run returns finite numbers (an array, a State, a linearization) or raises a MechsimError."""
    for run in runs:
        with time_limit(what=f"{name} {context}"):
            try:
                value = run()
            except ms.MechsimError:
                continue
        arrays = [value] if isinstance(value, np.ndarray) else [getattr(value, k, None) for k in ("q", "v", "A")]
        assert all(np.all(np.isfinite(a)) for a in arrays if a is not None), (name, context)


@settings(max_examples=examples(60))
@given(name=st.sampled_from(sorted(MODELS)), fixed=FIXED, inputs=st.one_of(st.sampled_from([["u"], ["j1.force"]]),
                                                                          python_junk()))
def test_assemble_trim_linearize_take_junk(name, fixed, inputs):
    m = build(calls(model(name)))
    finite_or_refused(name, (lambda: m.assemble(fixed=fixed), lambda: m.trim(fixed=fixed),
                             lambda: m.trim(free_inputs=inputs), lambda: m.linearize(inputs=inputs, outputs=["nope"])),
                      f"fixed={fixed!r} inputs={inputs!r}")


@settings(max_examples=examples(60))
@given(name=st.sampled_from(sorted(MODELS)), q=JUNK_STATES)
def test_dynamics_functions_take_junk(name, q):
    m = build(calls(model(name)))
    finite_or_refused(name, (lambda: ms.forward_dynamics(m, q, q), lambda: ms.inverse_dynamics(m, q, q, q)), repr(q))


HOSTILE = st.one_of(st.sampled_from(HOSTILE_EXPRESSIONS),
                    st.tuples(st.sampled_from(VALID_EXPRESSIONS), st.sampled_from(HOSTILE_EXPRESSIONS),
                              st.sampled_from(["{} + {}", "sin({1}) * {0}", "{0} if {1} else 0", "max({0}, {1})"]))
                    .map(lambda parts: parts[2].format(parts[0], parts[1])))


@settings(max_examples=examples(150))
@given(expression=HOSTILE, where=st.sampled_from(["parse", "force", "driver", "length", "input", "body_force"]))
def test_hostile_expressions_never_escape(expression, where):
    m = build(calls(model("slider_crank" if where in ("driver", "length") else "cart")))
    adders = {
        "parse": lambda: parse_expression(expression, "expr"),
        "force": lambda: m.add_force("f", "joint_force", joint="hinge", value=expression),
        "driver": lambda: m.add_driver("s", position=expression),
        "length": lambda: m.add_constraint("c", "distance", body_a="ground", body_b="crank", point_b=(1, 0, 0),
                                           length=expression),
        "input": lambda: m.simulate(0.01, inputs={"u": expression}),
        "body_force": lambda: m.add_force("f", "body_force", body="rod", force=(0, expression, 0)),
    }
    with tempfile.TemporaryDirectory() as folder:
        cwd = os.getcwd()
        os.chdir(folder)
        try:
            with time_limit(what=repr(expression)), pytest.raises(ms.ModelError, match="not allowed|invalid expression"):
                adders[where]()
        finally:
            os.chdir(cwd)
        assert os.listdir(folder) == [], f"{expression!r} wrote a file"
