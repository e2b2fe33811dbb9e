"""The safe expression evaluator: values against numpy, and every forbidden construct refused."""
import pickle

import numpy as np
import pytest

from mechsim.errors import ModelError
from mechsim.expressions import parse_expression

T = np.linspace(-2.0, 3.0, 11)

CASES = [  # (expression, the same computed with numpy)
    ("6.28*t", lambda t: 6.28 * t),
    ("2*sin(3*t) + 0.5*t**2 - 1", lambda t: 2 * np.sin(3 * t) + 0.5 * t ** 2 - 1),
    ("cos(t)*tan(t/4) + arctan(t) + arctan2(t, 2)", lambda t: np.cos(t) * np.tan(t / 4) + np.arctan(t) + np.arctan2(t, 2)),
    ("arcsin(t/4) + arccos(t/4)", lambda t: np.arcsin(t / 4) + np.arccos(t / 4)),
    ("sinh(t) + cosh(t) - tanh(t)", lambda t: np.sinh(t) + np.cosh(t) - np.tanh(t)),
    ("exp(-t) + log(t + 3) + log10(t + 3) + sqrt(abs(t))", lambda t: np.exp(-t) + np.log(t + 3) + np.log10(t + 3) + np.sqrt(np.abs(t))),
    ("sign(t) + floor(t) + ceil(t)", lambda t: np.sign(t) + np.floor(t) + np.ceil(t)),
    ("minimum(t, 1) + maximum(t, 0) + min(t, 0.5) + max(t, -1)",
     lambda t: np.minimum(t, 1) + np.maximum(t, 0) + np.minimum(t, 0.5) + np.maximum(t, -1)),
    ("clip(t, -1, 1)", lambda t: np.clip(t, -1, 1)),
    ("heaviside(t - 1)", lambda t: np.heaviside(t - 1, 1.0)),
    ("-t % 0.7 + +t", lambda t: np.mod(-t, 0.7) + t),
    ("pi * e", lambda t: np.full_like(t, np.pi * np.e)),
    ("3", lambda t: np.full_like(t, 3.0)),
    ("2 if t > 1 else -t", lambda t: np.where(t > 1, 2, -t)),
    ("(t >= 0) * 5", lambda t: (t >= 0) * 5.0),
    ("0 <= t < 1", lambda t: ((0 <= t) & (t < 1)).astype(float)),
    ("(t == 1) + (t != 1) * 2", lambda t: (t == 1) + (t != 1) * 2.0),
]


@pytest.mark.parametrize("text, expected", CASES)
def test_values_match_numpy_for_arrays(text, expected):
    f = parse_expression(text)
    result = f(T)
    assert isinstance(result, np.ndarray) and result.shape == T.shape
    np.testing.assert_allclose(result, expected(T), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("text, expected", CASES)
def test_values_match_numpy_for_scalars(text, expected):
    f = parse_expression(text)
    for t in (-1.5, 0, 0.25, 2):
        value = f(t)
        assert type(value) is float
        assert value == pytest.approx(float(expected(np.array([t], dtype=float))[0]), rel=1e-14, abs=1e-14)


def test_array_shape_is_kept():
    t = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(parse_expression("t**2")(t), t ** 2)
    assert parse_expression("1")(t).shape == (2, 3)
    assert type(parse_expression("t + 1")(np.float64(2.0))) is float
    assert type(parse_expression("t + 1")(np.array(2.0))) is float


def test_conditional_evaluates_one_branch_for_scalars():
    f = parse_expression("1 if t < 1 else sqrt(t - 1)")
    with np.errstate(all="raise"):
        assert f(0.5) == 1.0
        assert f(5.0) == 2.0


def test_non_finite_results_are_returned():
    f = parse_expression("1/t")
    with pytest.warns(RuntimeWarning):
        assert f(0.0) == np.inf
    assert np.isnan(parse_expression("log(t)")(np.array([-1.0, 1.0]))[0])
    assert parse_expression("10.0**1000")(np.zeros(2))[0] == np.inf


def test_source_repr_and_pickle():
    f = parse_expression("2*sin(t)")
    assert f.source == "2*sin(t)"
    assert repr(f) == "Expression('2*sin(t)')"
    g = pickle.loads(pickle.dumps(f))
    assert g.source == f.source and g(0.3) == f(0.3)


FORBIDDEN = [
    "__import__('os')", "t.real", "().__class__", "lambda: 1", "x + 1", "open('f')", "'abc'", "b'abc'",
    "f'{t}'", "t[0]", "[t]", "(t, t)", "{t}", "{1: t}", "[t for t in (1,)]", "(y := 1)", "np.sin(t)",
    "sin(t, out=t)", "sin(*t)", "sin()", "sin(t, t)", "arctan2(t)", "t // 2", "t @ t", "t & 1", "~t",
    "not t", "t and 1", "t or 1", "t in t", "t is t", "True", "None", "1j", "sin(t)(1)", "exec('1')",
    "eval('t')", "getattr(t, 'real')", "globals()", "...",
]


@pytest.mark.parametrize("text", FORBIDDEN)
def test_forbidden_constructs_are_rejected(text):
    with pytest.raises(ModelError) as info:
        parse_expression(text, "force 'motor' value")
    message = str(info.value)
    assert message.startswith("force 'motor' value: ")
    assert repr(text) in message
    assert "not allowed" in message


@pytest.mark.parametrize("text", ["t +", "sin(t", "1 2", "", "   "])
def test_syntax_errors_and_empty_text(text):
    with pytest.raises(ModelError, match="joint 'j1' position"):
        parse_expression(text, "joint 'j1' position")


def test_non_string_is_rejected():
    with pytest.raises(ModelError, match="expression"):
        parse_expression(3.0)


def test_messages_say_what_is_allowed():
    with pytest.raises(ModelError, match="the only names are t, pi and e"):
        parse_expression("x + 1")
    with pytest.raises(ModelError, match="the functions are sin, cos"):
        parse_expression("open('f')")
    with pytest.raises(ModelError, match=r"attribute access \('t.real'\)"):
        parse_expression("t.real + 1")


def test_huge_powers_do_not_hang():
    with pytest.warns(RuntimeWarning):
        assert parse_expression("9**9**9**9")(0.0) == np.inf


def test_long_text_is_shortened_in_messages():
    with pytest.raises(ModelError, match=r"'10000000000\d*\.\.\.': not allowed: a number this large"):
        parse_expression("1" + "0" * 400)


def test_deep_nesting_is_an_error_not_a_crash():
    with pytest.raises(ModelError):
        parse_expression("-" * 100000 + "t")
