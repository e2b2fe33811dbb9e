"""Expression programs: the compiled evaluator's values against the Python Expression, its first
and second derivatives against sympy's exact ones, constant folding, concatenated programs, and
evaluation from inside other compiled code."""
import ast
import operator
import pickle
import warnings

import numpy as np
import pytest
import sympy as sp
from numba import njit

from mechsim.expressions import parse_expression
from mechsim.expressions.evaluator import evaluate, max_stack_depth
from mechsim.expressions.language import ARITY, FUNCTIONS, OPCODES, OPS, compile_programs

DIFFERENTIABLE = [  # expressions sympy can differentiate (away from their jumps)
    "6.28*t", "2*sin(3*t) + 0.5*t**2 - 1", "t**3 - 2*t**2 + t/3 - 7", "1/(1 + t**2)", "sin(t)/(t**2 + 2)",
    "sin(t**2)", "cos(2*t + 1)", "tan(t/4)", "arcsin(t/4)", "arccos(t/5 + 0.1)", "arctan(t**2)", "sinh(t/2)",
    "cosh(t)", "tanh(2*t)", "exp(-t**2)", "log(t**2 + 1)", "log10(t + 3)", "sqrt(t**2 + 1)", "abs(sin(t))",
    "sign(t)*t**2", "floor(t)*t", "ceil(t) + t**3", "heaviside(t - 1)*(t - 1)**2", "arctan2(sin(t), cos(2*t))",
    "arctan2(t, 2)", "arctan2(2, t*t)", "minimum(sin(t), cos(t))", "maximum(t**2, 2 - t)", "min(t, 0.5)*t",
    "max(exp(t), 2)", "clip(t**2, 0.5, 3)", "clip(sin(3*t), -0.5, 0.5)", "clip(1, t, t*t)", "t % 0.7",
    "-t % 0.7 + +t", "(t**2) % (1 + t*t/4)", "exp(t) % -0.3", "abs(t)**2.5", "(t**2 + 1)**0.3", "t**-2", "t**t",
    "(t*t + 1)**sin(t)", "2**t", "e**t", "pi**(t/3)", "(t > 1)*t**2", "2 if t > 1 else -t",
    "t**2 if 0 <= t < 1 else sin(t)", "exp(t) if t != 0.5 else 1", "cos(t) if sin(3*t) else 2",
    "(t >= 0)*5 + (t <= 1)*t + (t == 1) + (t != 1)*t**2", "(1 < t <= 2 < 3)*t", "-3 < -t < 1 <= 2",
    "pi*e*t", "3", "pi*e", "sin(pi/4)*t + e", "exp(sin(cos(t**2)/3))", "log(cosh(t))*sqrt(abs(t) + 1)",
    "arctan(tanh(t))", "-(-(t))", "t - t", "sqrt(t)", "log(t)", "(t - 1)**0.5", "t**0 + t**1",
]
EXOTIC = [  # values only: infinities, nan, folded overflow, jumps and odd conditions
    "1/t", "1/(t - 1)", "t % 0", "t % (t - 1)", "10.0**1000", "9**9**9**9", "0*t", "0**t", "t**0.5",
    "t if t else 5", "sign(t)", "heaviside(t)", "floor(t) + ceil(-t)", "(-t)**0.5", "log(-t)", "arcsin(t)",
    "arccos(t*t)", "exp(1000*t)", "t % -1.5", "arctan2(t, -t)", "arctan2(0*t, 0*t)", "minimum(log(t), 1)",
    "maximum(1, log(t))", "clip(log(t), -1, 1)", "clip(t, 1, -1)", "t == 1", "t != 0", "t < 0", "t >= 2", "(-2)**t",
]
T_VALUES = np.concatenate([np.linspace(-3.1, 3.3, 47), [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-300, 1e300, -1e300]])
T_DERIVATIVES = np.linspace(-2.9, 3.7, 13) + 0.0173          # away from the jumps of the expressions above



def evaluate_expression(expression, t):
    """(f, f', f'') of one Expression (or expression string) at float or array ``t``, by the compiled evaluator:
    arrays of the shape of ``t``."""
    ops, consts, spans = compile_programs([expression])
    stack = np.zeros((max_stack_depth(ops, spans), 3))
    times = np.asarray(t, dtype=float)
    out = np.array([evaluate(ops, consts, 0, len(ops), float(x), stack) for x in times.ravel()]).reshape(-1, 3)
    return tuple(column.reshape(times.shape) for column in out.T)

def _close(got, expected, rtol, atol=0.0):
    """Elementwise |got - expected| <= rtol |expected| + atol, nan where the other is nan."""
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    same = (got == expected) | (np.isnan(got) & np.isnan(expected))
    with np.errstate(invalid="ignore"):
        return same | (np.abs(got - expected) <= rtol * np.abs(expected) + atol)


@pytest.mark.parametrize("text", DIFFERENTIABLE + EXOTIC)
def test_values_equal_the_python_expression(text):
    expression = parse_expression(text)
    f, _, _ = evaluate_expression(expression, T_VALUES)
    expected = expression(T_VALUES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        scalars = np.array([expression(float(t)) for t in T_VALUES])
    assert _close(scalars, expected, 1e-15).all()    # numpy's vector loops (AVX-512) may differ from scalars by an ulp
    ok = _close(f, expected, 1e-15)
    assert ok.all(), list(zip(T_VALUES[~ok], f[~ok], expected[~ok]))


# sympy's version of the same text, built from the same AST
_SYMPY_FUNCTIONS = {
    "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "arcsin": sp.asin, "arccos": sp.acos, "arctan": sp.atan,
    "sinh": sp.sinh, "cosh": sp.cosh, "tanh": sp.tanh, "exp": sp.exp, "log": sp.log, "log10": lambda x: sp.log(x, 10),
    "sqrt": sp.sqrt, "abs": sp.Abs, "sign": sp.sign, "floor": sp.floor, "ceil": sp.ceiling,
    "heaviside": lambda x: sp.Heaviside(x, 1), "arctan2": sp.atan2, "minimum": sp.Min, "min": sp.Min,
    "maximum": sp.Max, "max": sp.Max, "clip": lambda x, lo, hi: sp.Min(sp.Max(x, lo), hi),
}
_SYMPY_RELATIONS = {ast.Lt: sp.Lt, ast.LtE: sp.Le, ast.Gt: sp.Gt, ast.GtE: sp.Ge, ast.Eq: sp.Eq, ast.NotEq: sp.Ne}
T = sp.Symbol("t", real=True)


def _sympy(node):
    if isinstance(node, ast.Constant):
        return sp.Integer(node.value) if isinstance(node.value, int) else sp.Float(node.value, 40)
    if isinstance(node, ast.Name):
        return {"t": T, "pi": sp.pi, "e": sp.E}[node.id]
    if isinstance(node, ast.UnaryOp):
        return -_sympy(node.operand) if isinstance(node.op, ast.USub) else _sympy(node.operand)
    if isinstance(node, ast.BinOp):
        a, b = _sympy(node.left), _sympy(node.right)
        if isinstance(node.op, ast.Mod):
            return a - b * sp.floor(a / b)      # Python's %, in a form sympy differentiates
        return {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
                ast.Pow: operator.pow}[type(node.op)](a, b)
    if isinstance(node, ast.Compare):
        return sp.Piecewise((1, _condition(node)), (0, True))
    if isinstance(node, ast.IfExp):
        test = _condition(node.test) if isinstance(node.test, ast.Compare) else sp.Ne(_sympy(node.test), 0)
        return sp.Piecewise((_sympy(node.body), test), (_sympy(node.orelse), True))
    return _SYMPY_FUNCTIONS[node.func.id](*[_sympy(a) for a in node.args])


def _condition(node):
    operands = [_sympy(n) for n in [node.left, *node.comparators]]
    return sp.And(*[_SYMPY_RELATIONS[type(op)](a, b) for op, a, b in zip(node.ops, operands, operands[1:])])


def _derivative(expression):
    """d/dt, with the derivatives of floor and ceil (left unevaluated by sympy) set to 0."""
    derivative = sp.diff(expression, T)
    return derivative.replace(lambda e: isinstance(e, (sp.Derivative, sp.Subs)), lambda e: sp.Integer(0))


def _at(expression, t):
    """The real value of a sympy expression at float t, nan where it is not a finite real."""
    try:
        z = complex(expression.subs(T, sp.Float(float(t), 40)).evalf(30))
    except (TypeError, ValueError):
        return np.nan
    return z.real if z.imag == 0 and np.isfinite(z.real) else np.nan


@pytest.mark.parametrize("text", DIFFERENTIABLE)
def test_derivatives_equal_sympy(text):
    exact = _sympy(ast.parse(text, mode="eval").body)
    d1 = _derivative(exact)
    d2 = _derivative(d1)
    f, df, ddf = evaluate_expression(text, T_DERIVATIVES)
    compared = 0
    for t, value, first, second in zip(T_DERIVATIVES, f, df, ddf):
        e0, e1, e2 = _at(exact, t), _at(d1, t), _at(d2, t)
        if np.isfinite(e0) and np.isfinite(e1) and np.isfinite(e2):
            assert _close(value, e0, 1e-14, 1e-15), (t, value, e0)
            assert _close(first, e1, 1e-12, 1e-13), (t, first, e1)
            assert _close(second, e2, 1e-12, 1e-13), (t, second, e2)
            compared += 1
    assert compared >= 5


def test_derivatives_at_special_points():
    f, df, ddf = evaluate_expression("(t > 1)*sqrt(t)", 0.0)       # a zero factor wins over inf
    assert (f, df, ddf) == (0.0, 0.0, 0.0)
    assert evaluate_expression("t*sqrt(t)", 0.0)[1] == 0.0
    assert evaluate_expression("sqrt(t)", 0.0)[:2] == (0.0, np.inf)
    assert evaluate_expression("t**2", 0.0) == (0.0, 0.0, 2.0)
    assert evaluate_expression("t**1", 0.0) == (0.0, 1.0, 0.0)
    assert evaluate_expression("t**0", 0.0) == (1.0, 0.0, 0.0)
    assert evaluate_expression("0**t", 2.0) == (0.0, 0.0, 0.0)
    assert evaluate_expression("abs(t)", 0.0) == (0.0, 0.0, 0.0)
    assert evaluate_expression("1/t", 0.0)[0] == np.inf
    assert all(np.isnan(evaluate_expression("log(t)", -1.0)))
    assert np.isnan(evaluate_expression("t % 0", 1.0)[0])
    assert evaluate_expression("t if t else 5", np.nan)[1] == 1.0      # nan is true, as in Python
    assert evaluate_expression("clip(t, 0, 1)", 0.5) == (0.5, 1.0, 0.0)
    assert evaluate_expression("clip(t, 0, 1)", 2.0) == (1.0, 0.0, 0.0)
    assert evaluate_expression("5 - 2*t", np.inf)[:2] == (-np.inf, -2.0)


def test_constant_folding():
    for text, value in [("pi * e", np.pi * np.e), ("2*3 + sin(1)", 6 + np.sin(1.0)), ("3", 3.0),
                        ("1 if 2 > 1 else t", 1.0), ("(1 < 2 < 3) + (2 == 2)", 2.0), ("-(-e)", np.e),
                        ("10.0**1000", np.inf), ("9**9**9**9", np.inf), ("clip(5, 0, 1) % 0.3", 1.0 % 0.3)]:
        expression = parse_expression(text)
        ops, consts = expression.program
        assert expression.is_constant and len(ops) == 1 and consts[ops[0, 1]] == value, text
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)        # the Python callable warns of overflow
            assert consts[ops[0, 1]] == expression(0.0) or "<" in text         # see below
    assert np.isnan(parse_expression("0/0 + 0*t").program[1][0])
    for text, rows in [("t + 2*3", 3), ("sin(pi/2)*t", 3), ("0*t", 3), ("t - t", 3), ("t if 1 > 2 else sin(t)", 2),
                       ("cos(t) if 0 else 2*t", 3), ("t**(1/2)", 3), ("2 if t > 1 else -t", 7)]:
        expression = parse_expression(text)
        assert not expression.is_constant
        assert len(expression.program[0]) == rows, (text, expression.program)
    ops, consts = parse_expression("t + 2*3").program
    assert ops.tolist() == [[OPCODES["t"], 0], [OPCODES["const"], 0], [OPCODES["+"], 0]] and consts.tolist() == [6.0]
    assert not ops.flags.writeable and not consts.flags.writeable


def test_comparisons_are_numbers_in_programs_and_callables():
    assert evaluate_expression("(t > 1) + (t > 2)", 3.0) == (2.0, 0.0, 0.0)
    assert parse_expression("(t > 1) + (t > 2)")(3.0) == 2.0 and parse_expression("-(t > 1)")(3.0) == -1.0
    np.testing.assert_array_equal(parse_expression("(t > 1) + (t > 2)")(np.array([0.0, 1.5, 3.0])), [0, 1, 2])
    assert evaluate_expression("-(t > 1) - (t > 2)", 3.0) == (-2.0, 0.0, 0.0)
    assert parse_expression("(1 < 2 < 3) + (2 == 2)").program[1].tolist() == [2.0]


def test_every_function_has_an_opcode_of_its_arity():
    for name, (_, n_args) in FUNCTIONS.items():
        op = OPCODES[{"min": "minimum", "max": "maximum"}.get(name, name)]
        assert ARITY[op] == n_args
    assert len(OPS) == len(ARITY) == len(OPCODES)


def test_programs_are_kept_by_pickling():
    expression = pickle.loads(pickle.dumps(parse_expression("2*sin(t) + 1")))
    ops, consts = expression.program
    assert len(ops) == 6 and sorted(consts.tolist()) == [1.0, 2.0]


TABLE = ["2*sin(3*t) + 0.5*t**2 - 1", "pi*e", 0.25, "clip(t, -1, 1) if t < 2 else exp(-t)", "t",
         "t + (t + (t + t*t))", parse_expression("1 < t <= 2"), "arctan2(sin(t), cos(t)) % 1.5"]


def test_concatenated_programs_evaluate_by_span():
    ops, consts, spans = compile_programs(TABLE)
    assert ops.dtype == np.int64 and ops.shape[1] == 2 and consts.dtype == np.float64
    assert spans.shape == (len(TABLE), 2) and spans[0, 0] == 0 and spans[-1, 1] == len(ops)
    assert (spans[1:, 0] == spans[:-1, 1]).all()
    depth = max_stack_depth(ops, spans)
    assert depth == 5                                       # t t t t t * + + +
    stack = np.zeros((depth, 3))
    for item, (start, end) in zip(TABLE, spans):
        for t in (-1.3, 0.0, 0.7, 1.5, 2.5):
            expected = (item, 0.0, 0.0) if isinstance(item, float) else evaluate_expression(item, t)
            assert evaluate(ops, consts, start, end, t, stack) == expected, (item, t)
    empty = compile_programs([])
    assert empty[0].shape == (0, 2) and empty[1].shape == (0,) and empty[2].shape == (0, 2)
    assert max_stack_depth(*empty[::2]) == 1


@njit
def _sum_over_table(ops, consts, spans, times):
    """Everything compiled: no Python object is touched inside the loop."""
    stack = np.zeros((16, 3))
    total = np.zeros(3)
    for t in times:
        for k in range(spans.shape[0]):
            f, df, ddf = evaluate(ops, consts, spans[k, 0], spans[k, 1], t, stack)
            total[0] += f
            total[1] += df
            total[2] += ddf
    return total


def test_evaluation_runs_inside_compiled_code():
    ops, consts, spans = compile_programs(TABLE)
    times = np.linspace(-2.0, 3.0, 101)
    total = _sum_over_table(ops, consts, spans, times)
    stack = np.zeros((max_stack_depth(ops, spans), 3))
    expected = sum(np.array(evaluate(ops, consts, s, e, t, stack)) for t in times for s, e in spans)
    np.testing.assert_allclose(total, expected, rtol=1e-13)
    assert _sum_over_table.nopython_signatures
