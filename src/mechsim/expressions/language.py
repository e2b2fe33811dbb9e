"""Safe math expressions of time for model files (SPEC §4) — never Python ``eval``.

An expression is parsed with :mod:`ast`, every node is checked against a whitelist (numbers,
the name ``t``, the constants ``pi`` and ``e``, arithmetic, comparisons, ``a if cond else b``
and calls of a fixed set of numpy functions), and the checked tree is turned into a tree of
small closures. The result works for a float ``t`` and elementwise for a numpy array ``t``.

The same checked tree also compiles to a flat postfix program (``Expression.program``) that
:mod:`mechsim.expressions.evaluator` evaluates in compiled code, with exact time derivatives.
A program is ``ops`` (int64, shape (n, 2): opcode, argument) and ``consts`` (float64): each row
pops ``ARITY[opcode]`` values and pushes one; the argument is the index into ``consts`` for
``const`` and 0 otherwise. Opcodes are the indices of ``OPS`` (``OPCODES`` maps name -> index):

    const, t                                  push consts[argument] / push t
    neg and the one-argument FUNCTIONS        u -> f(u)
    + - * / ** %  < <= > >= == !=             a, b -> a op b   (comparisons give 1.0 or 0.0)
    arctan2, minimum, maximum                 a, b -> f(a, b)  (min and max compile to these)
    select, clip                              c, a, b -> (a if c != 0 else b) / clip(c, a, b)

``a < b < c`` compiles to ``(a < b) * (b < c)`` (the code of b twice). Every subtree without t
is folded at compile time into one constant, computed with the same numpy scalar operations
as the callable, and ``x if c else y`` with a constant c compiles to the branch chosen. ``0*t``
is not folded (it is nan for an infinite t). A comparison is the number 1.0 or 0.0, in programs
and in the callable alike: (t > 1) + (t > 2) is 2.0 at t = 3.
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


# Opcodes of expression programs, grouped by arity (the compiled evaluator relies on the grouping).
_UNARY_OPS = ("neg", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
              "exp", "log", "log10", "sqrt", "abs", "sign", "floor", "ceil", "heaviside")
_BINARY_OPS = ("+", "-", "*", "/", "**", "%", "<", "<=", ">", ">=", "==", "!=", "arctan2", "minimum", "maximum")
OPS = ("const", "t", *_UNARY_OPS, *_BINARY_OPS, "select", "clip")
OPCODES = {name: code for code, name in enumerate(OPS)}
ARITY = tuple(0 if name in ("const", "t") else 1 if name in _UNARY_OPS else 2 if name in _BINARY_OPS else 3
              for name in OPS)


_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")


class Expression:
    """A compiled expression of ``t``: ``f(t)`` gives a float for a float ``t`` and an
    array of the same shape for an array ``t``. ``source`` is the original text.
    ``program`` is its postfix program (see the module docstring) for compiled evaluation."""

    __slots__ = ("source", "_function", "_program")

    def __init__(self, source, function, program=None):
        self.source = source
        self._function = function
        self._program = program

    @property
    def program(self):
        """(ops, consts): read-only int64 (n, 2) opcode/argument rows and float64 constants."""
        if self._program is None:
            self._program = parse_expression(self.source).program
        return self._program

    @property
    def is_constant(self):
        """True when the expression folds to one constant (it does not depend on t)."""
        ops = self.program[0]
        return len(ops) == 1 and ops[0, 0] == OPCODES["const"]

    @property
    def breakpoints(self):
        """The times c where a comparison of t with a constant (t >= c, c < t, ...) switches: where the
        expression may jump, so that an integrator stops and restarts there."""
        (ops, consts), t, const = self.program, OPCODES["t"], OPCODES["const"]
        found = set()
        for k in range(2, len(ops)):
            if OPS[ops[k, 0]] in _COMPARISONS:
                first, second = ops[k - 2], ops[k - 1]
                if {first[0], second[0]} == {t, const}:
                    found.add(float(consts[(first if first[0] == const else second)[1]]))
        return sorted(found)

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
        program = _program(_Programmer().emit(tree.body))
    except SyntaxError as exc:
        raise ModelError(f"{what}: invalid expression {_quote(text)}: syntax error ({exc.msg})") from None
    except _Rejected as exc:
        raise ModelError(f"{what}: invalid expression {_quote(text)}: {exc}") from None
    except (RecursionError, MemoryError):
        raise ModelError(f"{what}: invalid expression {_quote(text)}: too deeply nested") from None
    return Expression(text, function, program)


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
            return lambda t: _as_number(op(left(t), right(t)))
        return lambda t: _as_number(_chained(ops, [f(t) for f in operands]))

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


def _as_number(condition):
    """A comparison as 1.0 / 0.0 (so that (t > 1) + (t > 2) counts, as the compiled program does)."""
    return np.asarray(condition, dtype=float) if isinstance(condition, np.ndarray) else np.float64(condition)


def _chained(ops, values):
    """a < b < c as (a < b) and (b < c), elementwise."""
    result = ops[0](values[0], values[1])
    for op, left, right in zip(ops[1:], values[1:], values[2:]):
        result = np.logical_and(result, op(left, right))
    return result


def _fold_compare(op):
    return lambda a, b: np.float64(1.0 if op(a, b) else 0.0)


_FOLD = {  # opcode name -> the numpy scalar operation that folds it (the callable's arithmetic)
    "neg": operator.neg, **{name: f for name, (f, _) in FUNCTIONS.items()},
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "**": operator.pow,
    "%": operator.mod,
    **{name: _fold_compare(_COMPARE[kind]) for kind, name in (
        (ast.Lt, "<"), (ast.LtE, "<="), (ast.Gt, ">"), (ast.GtE, ">="), (ast.Eq, "=="), (ast.NotEq, "!="))},
}
_OP_NAMES = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.Mod: "%",
             ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_FUNCTION_OPS = {"min": "minimum", "max": "maximum"}


class _Programmer:
    """Turns a checked expression AST (already accepted by :class:`_Compiler`) into postfix code:
    a list of (opcode name, constant) pairs, the constant used by 'const' rows only."""

    def emit(self, node):
        if isinstance(node, ast.Constant):
            return [("const", np.float64(node.value))]
        if isinstance(node, ast.Name):
            return [("t", 0.0)] if node.id == "t" else [("const", CONSTANTS[node.id])]
        if isinstance(node, ast.UnaryOp):
            operand = self.emit(node.operand)
            return operand if isinstance(node.op, ast.UAdd) else self._apply("neg", operand)
        if isinstance(node, ast.BinOp):
            return self._apply(_OP_NAMES[type(node.op)], self.emit(node.left), self.emit(node.right))
        if isinstance(node, ast.Compare):      # a < b < c: (a < b) * (b < c)
            operands = [self.emit(n) for n in [node.left, *node.comparators]]
            code = None
            for op, left, right in zip(node.ops, operands, operands[1:]):
                test = self._apply(_OP_NAMES[type(op)], left, right)
                code = test if code is None else self._apply("*", code, test)
            return code
        if isinstance(node, ast.IfExp):
            test = self.emit(node.test)
            if _is_const(test):                # the branch is known: compile only that one
                return self.emit(node.body if test[0][1] else node.orelse)
            return self._apply("select", test, self.emit(node.body), self.emit(node.orelse))
        name = node.func.id                    # ast.Call (the only node left after checking)
        return self._apply(_FUNCTION_OPS.get(name, name), *[self.emit(a) for a in node.args])

    @staticmethod
    def _apply(name, *operands):
        """The code of ``name`` applied to ``operands``: one folded constant if they all are."""
        if all(_is_const(code) for code in operands):
            with np.errstate(all="ignore"):
                return [("const", np.float64(_FOLD[name](*(code[0][1] for code in operands))))]
        return [row for code in operands for row in code] + [(name, 0.0)]


def _is_const(code):
    return len(code) == 1 and code[0][0] == "const"


def _program(code):
    """(ops, consts) arrays, read-only, of postfix ``code`` from :class:`_Programmer`."""
    consts = np.array([value for name, value in code if name == "const"], dtype=np.float64)
    ops = np.zeros((len(code), 2), dtype=np.int64)
    k = 0
    for row, (name, _) in enumerate(code):
        ops[row, 0] = OPCODES[name]
        if name == "const":
            ops[row, 1], k = k, k + 1
    ops.flags.writeable = consts.flags.writeable = False
    return ops, consts


def compile_programs(expressions):
    """Concatenate the programs of ``expressions`` (Expression objects, expression strings or
    numbers) into one table for the compiled evaluator.

    Returns ``(ops, consts, spans)``: ops int64 (n, 2), consts float64 (m,) and spans int64
    (k, 2) with the [start, end) rows of expression i in ``ops``; constant indices are shifted
    to point into the joint ``consts``.
    """
    all_ops, all_consts, spans, row, n_consts = [], [], [], 0, 0
    for item in expressions:
        if isinstance(item, str):
            item = parse_expression(item)
        if isinstance(item, Expression):
            ops, consts = item.program
        else:
            ops, consts = np.array([[OPCODES["const"], 0]], dtype=np.int64), np.array([float(item)])
        ops = ops.copy()
        ops[ops[:, 0] == OPCODES["const"], 1] += n_consts
        all_ops.append(ops)
        all_consts.append(consts)
        spans.append((row, row + len(ops)))
        row, n_consts = row + len(ops), n_consts + len(consts)
    return (np.concatenate(all_ops) if all_ops else np.zeros((0, 2), dtype=np.int64),
            np.concatenate(all_consts) if all_consts else np.zeros(0),
            np.array(spans, dtype=np.int64).reshape(-1, 2))
