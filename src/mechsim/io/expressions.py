"""Safe math expressions of time for model files (SPEC §4) — never Python ``eval``.

An expression is parsed with :mod:`ast`, every node is checked against a whitelist (numbers,
the name ``t``, the constants ``pi`` and ``e``, arithmetic, comparisons, ``a if cond else b``
and calls of a fixed set of numpy functions), and the checked tree is turned into a tree of
small closures. The result works for a float ``t`` and elementwise for a numpy array ``t``.
"""
import ast
import operator

import numpy as np

from ..errors import ModelError


def _step(x):
    """Unit step: 0 for x < 0, 1 for x >= 0."""
    return np.heaviside(x, 1.0)


_UNARY_FUNCTIONS = {name: getattr(np, name) for name in (
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
    "exp", "log", "log10", "sqrt", "abs", "sign", "floor", "ceil")}
_UNARY_FUNCTIONS["heaviside"] = _step
FUNCTIONS = {  # name -> (numpy function, number of arguments)
    **{name: (f, 1) for name, f in _UNARY_FUNCTIONS.items()},
    "arctan2": (np.arctan2, 2), "minimum": (np.minimum, 2), "maximum": (np.maximum, 2),
    "min": (np.minimum, 2), "max": (np.maximum, 2), "clip": (np.clip, 3),
}
CONSTANTS = {"pi": np.float64(np.pi), "e": np.float64(np.e)}

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.Pow: operator.pow, ast.Mod: operator.mod}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
            ast.GtE: operator.ge, ast.Eq: operator.eq, ast.NotEq: operator.ne}

_SYMBOLS = {ast.FloorDiv: "//", ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>",
            ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&", ast.Invert: "~", ast.Not: "not",
            ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}
_DESCRIPTIONS = {
    ast.Attribute: "attribute access", ast.Subscript: "subscripts", ast.Lambda: "lambda",
    ast.BoolOp: "'and'/'or'", ast.Tuple: "tuples", ast.List: "lists", ast.Dict: "dicts",
    ast.Set: "sets", ast.ListComp: "comprehensions", ast.SetComp: "comprehensions",
    ast.DictComp: "comprehensions", ast.GeneratorExp: "generators", ast.NamedExpr: "':='",
    ast.JoinedStr: "f-strings", ast.Starred: "'*' arguments", ast.Slice: "slices",
}
_HINT = ("an expression may use numbers, t, pi, e, + - * / ** %, comparisons, "
         "'a if condition else b' and math functions")


class _Rejected(Exception):
    """Raised during compilation with the reason an expression is refused."""


class Expression:
    """A compiled expression of ``t``: ``f(t)`` gives a float for a float ``t`` and an
    array of the same shape for an array ``t``. ``source`` is the original text."""

    __slots__ = ("source", "_function")

    def __init__(self, source, function):
        self.source = source
        self._function = function

    def __call__(self, t):
        if isinstance(t, (float, int)):       # fast path; numpy may warn about inf/nan here
            return float(self._function(np.float64(t)))
        x = np.asarray(t, dtype=float)
        with np.errstate(all="ignore"):       # inf/nan are returned; the simulator checks them
            result = self._function(x)
        if x.ndim == 0:
            return float(result)
        result = np.asarray(result, dtype=float)
        return result if result.shape == x.shape else np.broadcast_to(result, x.shape).copy()

    def __reduce__(self):                     # picklable (closures are not): re-parse the source
        return parse_expression, (self.source,)

    def __repr__(self):
        return f"Expression({self.source!r})"


def _quote(text, limit=80):
    """repr of ``text``, shortened for error messages."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def parse_expression(text, what="expression"):
    """Parse and check ``text`` (a math expression of ``t``) and return an :class:`Expression`.

    Raises ModelError naming ``what``, quoting ``text`` and saying what is not allowed.
    """
    if not isinstance(text, str) or not text.strip():
        raise ModelError(f"{what}: expected an expression of t as a non-empty string, got {text!r}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
        function = _Compiler(text.strip()).compile(tree.body)
    except SyntaxError as exc:
        raise ModelError(f"{what}: invalid expression {_quote(text)}: syntax error ({exc.msg})") from None
    except _Rejected as exc:
        raise ModelError(f"{what}: invalid expression {_quote(text)}: {exc}") from None
    except (RecursionError, MemoryError):
        raise ModelError(f"{what}: invalid expression {_quote(text)}: too deeply nested") from None
    return Expression(text, function)


class _Compiler:
    """Turns a whitelisted expression AST into nested closures of ``t``."""

    def __init__(self, text):
        self.text = text

    def compile(self, node):
        handler = _HANDLERS.get(type(node))
        if handler is None:
            self._reject(node, _DESCRIPTIONS.get(type(node), f"{type(node).__name__} expressions"))
        return handler(self, node)

    def _reject(self, node, description, hint=_HINT):
        """Refuse ``node``: 'not allowed: <description> ('<source fragment>'); <hint>'."""
        segment = ast.get_source_segment(self.text, node)
        where = f" ({segment!r})" if segment and segment != self.text and segment not in description else ""
        raise _Rejected(f"not allowed: {description}{where}; {hint}")

    def _operator(self, node, op):
        self._reject(node, f"the operator '{_SYMBOLS.get(type(op), type(op).__name__)}'")

    def _Constant(self, node):
        value = node.value
        if isinstance(value, (str, bytes)):
            self._reject(node, "string literals")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self._reject(node, f"the constant {value!r}")
        try:
            constant = np.float64(value)
        except OverflowError:
            self._reject(node, "a number this large")
        return lambda t: constant

    def _Name(self, node):
        if node.id == "t":
            return lambda t: t
        if node.id in CONSTANTS:
            constant = CONSTANTS[node.id]
            return lambda t: constant
        self._reject(node, f"the name '{node.id}'", "the only names are t, pi and e")

    def _UnaryOp(self, node):
        op = _UNARY.get(type(node.op)) or self._operator(node, node.op)
        operand = self.compile(node.operand)
        return lambda t: op(operand(t))

    def _BinOp(self, node):
        op = _BINARY.get(type(node.op)) or self._operator(node, node.op)
        left, right = self.compile(node.left), self.compile(node.right)
        return lambda t: op(left(t), right(t))

    def _Compare(self, node):
        ops = [_COMPARE.get(type(op)) or self._operator(node, op) for op in node.ops]
        operands = [self.compile(n) for n in [node.left, *node.comparators]]
        if len(ops) == 1:
            op, left, right = ops[0], operands[0], operands[1]
            return lambda t: op(left(t), right(t))
        return lambda t: _chained(ops, [f(t) for f in operands])

    def _IfExp(self, node):
        test, body, orelse = self.compile(node.test), self.compile(node.body), self.compile(node.orelse)

        def choose(t):
            condition = test(t)
            if isinstance(condition, np.ndarray):
                return np.where(condition, body(t), orelse(t))
            return body(t) if condition else orelse(t)    # scalar: evaluate one branch only
        return choose

    def _Call(self, node):
        functions = f"the functions are {', '.join(FUNCTIONS)}"
        if not isinstance(node.func, ast.Name):
            self._reject(node.func, "calling anything but a function name", functions)
        name = node.func.id
        if name not in FUNCTIONS:
            self._reject(node.func, f"the function '{name}'", functions)
        if node.keywords:
            self._reject(node.keywords[0], "keyword arguments", "pass arguments by position")
        function, n_args = FUNCTIONS[name]
        if len(node.args) != n_args:
            self._reject(node, f"calling {name}() with {len(node.args)} argument(s)", f"{name}() takes {n_args}")
        args = [self.compile(a) for a in node.args]
        if n_args == 1:
            arg = args[0]
            return lambda t: function(arg(t))
        return lambda t: function(*[a(t) for a in args])


_HANDLERS = {ast.Constant: _Compiler._Constant, ast.Name: _Compiler._Name, ast.UnaryOp: _Compiler._UnaryOp,
             ast.BinOp: _Compiler._BinOp, ast.Compare: _Compiler._Compare, ast.IfExp: _Compiler._IfExp,
             ast.Call: _Compiler._Call}


def _chained(ops, values):
    """a < b < c as (a < b) and (b < c), elementwise."""
    result = ops[0](values[0], values[1])
    for op, left, right in zip(ops[1:], values[1:], values[2:]):
        result = np.logical_and(result, op(left, right))
    return result
