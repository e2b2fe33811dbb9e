"""Compiled evaluation of expression programs of t (:mod:`mechsim.expressions.language`) with exact
first and second time derivatives.

A program is postfix code over a stack of second-order dual numbers (f, f', f''): forward-mode
automatic differentiation in t. ``t`` pushes (t, 1, 0), a constant (c, 0, 0), and every
operation applies the exact chain rule:

    one-argument g(u):   (g(u), g'(u) u', g''(u) u'^2 + g'(u) u'')
    u + v, u - v:        componentwise
    u * v:               (u v, u' v + u v', u'' v + 2 u' v' + u v'')
    w = u / v:           (w, (u' - w v') / v, (u'' - 2 w' v' - w v'') / v)
    w = u ** v:          v constant (v' = v'' = 0): g(u) = u^v, g' = v u^(v-1), g'' = v (v-1) u^(v-2)
                         u constant: w' = w ln(u) v', w'' = w ln(u) (ln(u) v'^2 + v'')
                         else with q = v' ln(u) + v u'/u:  w' = w q,
                         w'' = w (q^2 + v'' ln(u) + 2 v' u'/u + v (u''/u - (u'/u)^2))
    u % v = u - k v:     k = floor(u / v) held fixed: (u % v, u' - k v', u'' - k v'')
    arctan2(y, x):       r = x^2 + y^2, n = x y' - y x':  (atan2, n / r, (x y'' - y x'' - 2 (n / r)(x x' + y y')) / r)
    minimum, maximum, clip, select (c, a, b -> a if c != 0 else b): the dual of the value chosen
    comparisons (1.0 / 0.0), sign, floor, ceil, heaviside:  derivatives 0; abs: g' = sign(u), g'' = 0

Derivative terms use a "strong zero": a product with an exact 0 factor is 0 even when the
other factor is inf or nan (the derivative of (t > 1) * sqrt(t) at t = 0 is 0, not nan), and
an operation whose inputs all have zero derivatives has zero derivatives; an operation whose
value is nan (log(-1), t % 0) has nan derivatives (a selection passes on the chosen dual as it
is, so ``1 if t < 0 else log(t)`` has derivatives 0 at t = -1). Values follow IEEE
(inf, nan) as numpy does and never raise. A discontinuous operation has the derivative of the
branch taken; at its jump (e.g. abs at 0) the derivative is that of one side or 0.
"""
import math

import numpy as np
from numba import njit

from .language import ARITY, OPCODES
from ..spatial.algebra import INLINE, JIT

(_CONST, _T, _NEG, _SIN, _COS, _TAN, _ASIN, _ACOS, _ATAN, _SINH, _COSH, _TANH, _EXP, _LOG, _LOG10, _SQRT, _ABS,
 _SIGN, _FLOOR, _CEIL, _HEAVISIDE, _ADD, _SUB, _MUL, _DIV, _POW, _MOD, _LT, _LE, _GT, _GE, _EQ, _NE, _ATAN2,
 _MIN, _MAX, _SELECT, _CLIP) = (OPCODES[name] for name in (
    "const", "t", "neg", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "exp", "log",
    "log10", "sqrt", "abs", "sign", "floor", "ceil", "heaviside", "+", "-", "*", "/", "**", "%", "<", "<=", ">",
    ">=", "==", "!=", "arctan2", "minimum", "maximum", "select", "clip"))
assert _CONST == 0 and _T == 1 and _NEG == 2 and _ADD == _HEAVISIDE + 1 and _SELECT == _MAX + 1 and _CLIP == len(ARITY) - 1
_LN10 = math.log(10.0)


@njit(**INLINE)
def _p(x, y):
    """x * y with a strong zero: 0 when either factor is exactly 0."""
    return x * y if x != 0.0 and y != 0.0 else 0.0


@njit(**INLINE)
def _unary(op, u):
    """(g(u), g'(u), g''(u)) of a one-argument operation."""
    if op == _NEG:
        return -u, -1.0, 0.0
    if op == _SIN:
        s = np.sin(u)
        return s, np.cos(u), -s
    if op == _COS:
        c = np.cos(u)
        return c, -np.sin(u), -c
    if op == _TAN:
        g = np.tan(u)
        g1 = 1.0 + g * g
        return g, g1, 2.0 * g * g1
    if op == _ASIN or op == _ACOS:
        s = (1.0 - u) * (1.0 + u)
        g1 = 1.0 / np.sqrt(s)
        if op == _ASIN:
            return np.arcsin(u), g1, u * g1 / s
        return np.arccos(u), -g1, -u * g1 / s
    if op == _ATAN:
        g1 = 1.0 / (1.0 + u * u)
        return np.arctan(u), g1, -2.0 * u * g1 * g1
    if op == _SINH:
        return np.sinh(u), np.cosh(u), np.sinh(u)
    if op == _COSH:
        return np.cosh(u), np.sinh(u), np.cosh(u)
    if op == _TANH:
        g, c = np.tanh(u), np.cosh(u)
        g1 = 1.0 / (c * c)                             # = 1 - tanh^2 without its cancellation
        return g, g1, -2.0 * g * g1
    if op == _EXP:
        g = np.exp(u)
        return g, g, g
    if op == _LOG:
        return np.log(u), 1.0 / u, -1.0 / (u * u)
    if op == _LOG10:
        g1 = 1.0 / (u * _LN10)
        return np.log10(u), g1, -g1 / u
    if op == _SQRT:
        g = np.sqrt(u)
        g1 = 0.5 / g
        return g, g1, -0.5 * g1 / u
    sign = 1.0 if u > 0.0 else -1.0 if u < 0.0 else u      # 0 at 0, nan at nan
    if op == _ABS:
        return abs(u), sign, 0.0
    if op == _SIGN:
        return sign, 0.0, 0.0
    if op == _FLOOR:
        return np.floor(u), 0.0, 0.0
    if op == _CEIL:
        return np.ceil(u), 0.0, 0.0
    return (1.0 if u >= 0.0 else 0.0 if u < 0.0 else u), 0.0, 0.0   # heaviside(u, 1)


@njit(**INLINE)
def _power(a, da, dda, b, db, ddb):
    """(a ** b, d/dt, d2/dt2); see the module docstring for the three cases."""
    w = a ** b
    if db == 0.0 and ddb == 0.0:                       # constant exponent: the power rule
        g1 = _p(b, a ** (b - 1.0))
        g2 = _p(b * (b - 1.0), a ** (b - 2.0))
        return w, _p(g1, da), _p(g2, da * da) + _p(g1, dda)
    log_a = np.log(a)
    if da == 0.0 and dda == 0.0:                       # constant base: an exponential
        wl = _p(w, log_a)
        return w, _p(wl, db), _p(wl, _p(log_a, db * db) + ddb)
    r = da / a
    q = _p(db, log_a) + b * r
    dq = _p(ddb, log_a) + 2.0 * db * r + b * (dda / a - r * r)
    return w, _p(w, q), _p(w, q * q + dq)


@njit(**INLINE)
def _binary(op, a, da, dda, b, db, ddb):
    """The dual number of a two-argument operation on duals (a, a', a'') and (b, b', b'')."""
    if op == _ADD:
        return a + b, da + db, dda + ddb
    if op == _SUB:
        return a - b, da - db, dda - ddb
    if op == _MUL:
        return a * b, _p(da, b) + _p(a, db), _p(dda, b) + 2.0 * _p(da, db) + _p(a, ddb)
    if op == _DIV:
        w = a / b
        dw = (da - _p(w, db)) / b
        return w, dw, (dda - 2.0 * _p(dw, db) - _p(w, ddb)) / b
    if op == _POW:
        return _power(a, da, dda, b, db, ddb)
    if op == _MOD:                                     # numpy's remainder: the sign of b
        r = np.fmod(a, b)
        if b != 0.0:
            if r == 0.0:
                r = np.copysign(0.0, b)
            elif (b < 0.0) != (r < 0.0):
                r += b
        if db == 0.0 and ddb == 0.0:
            return r, da, dda
        k = np.round((a - r) / b)
        return r, da - _p(k, db), dda - _p(k, ddb)
    if op == _ATAN2:
        r2 = a * a + b * b
        d = (_p(b, da) - _p(a, db)) / r2
        dd = (_p(b, dda) - _p(a, ddb) - 2.0 * _p(d, _p(b, db) + _p(a, da))) / r2
        return np.arctan2(a, b), d, dd
    if op == _MIN or op == _MAX:                       # numpy: nan wins, a on ties
        if (a <= b if op == _MIN else a >= b) or a != a:
            return a, da, dda
        return b, db, ddb
    if op == _LT:
        c = a < b
    elif op == _LE:
        c = a <= b
    elif op == _GT:
        c = a > b
    elif op == _GE:
        c = a >= b
    elif op == _EQ:
        c = a == b
    else:
        c = a != b
    return 1.0 if c else 0.0, 0.0, 0.0


@njit(**JIT)
def evaluate(ops, consts, start, end, t, stack):
    """(f(t), f'(t), f''(t)) of the program in rows [start, end) of ``ops`` (int64 (n, 2):
    opcode, argument) with constants ``consts``; ``stack`` is scratch of shape (depth, 3),
    depth at least :func:`max_stack_depth`."""
    sp = 0                                             # stack[:sp] holds the duals pushed so far
    for i in range(start, end):
        op = ops[i, 0]
        if op == _CONST:
            stack[sp, 0], stack[sp, 1], stack[sp, 2] = consts[ops[i, 1]], 0.0, 0.0
            sp += 1
        elif op == _T:
            stack[sp, 0], stack[sp, 1], stack[sp, 2] = t, 1.0, 0.0
            sp += 1
        elif op < _ADD:                                # one argument: chain rule through g
            u, du, ddu = stack[sp - 1, 0], stack[sp - 1, 1], stack[sp - 1, 2]
            g, g1, g2 = _unary(op, u)
            if g != g:
                stack[sp - 1, 0], stack[sp - 1, 1], stack[sp - 1, 2] = g, g, g
            elif du == 0.0 and ddu == 0.0:
                stack[sp - 1, 0], stack[sp - 1, 1], stack[sp - 1, 2] = g, 0.0, 0.0
            else:
                stack[sp - 1, 0], stack[sp - 1, 1], stack[sp - 1, 2] = g, _p(g1, du), _p(g2, du * du) + _p(g1, ddu)
        elif op < _SELECT:
            sp -= 1
            a, da, dda = stack[sp - 1, 0], stack[sp - 1, 1], stack[sp - 1, 2]
            b, db, ddb = stack[sp, 0], stack[sp, 1], stack[sp, 2]
            f, df, ddf = _binary(op, a, da, dda, b, db, ddb)
            if f != f:
                df, ddf = f, f
            elif da == 0.0 and dda == 0.0 and db == 0.0 and ddb == 0.0:
                df, ddf = 0.0, 0.0
            stack[sp - 1, 0], stack[sp - 1, 1], stack[sp - 1, 2] = f, df, ddf
        else:
            sp -= 2
            c = stack[sp - 1, 0]
            if op == _SELECT:
                k = sp if c != 0.0 else sp + 1         # c, a, b -> a if c else b (nan counts as true)
            else:                                      # clip(c, a, b) = minimum(maximum(c, a), b)
                k = sp - 1
                if not (c >= stack[sp, 0] or c != c):
                    k = sp
                if not (stack[k, 0] <= stack[sp + 1, 0] or stack[k, 0] != stack[k, 0]):
                    k = sp + 1
            stack[sp - 1, 0], stack[sp - 1, 1], stack[sp - 1, 2] = stack[k, 0], stack[k, 1], stack[k, 2]
    return stack[0, 0], stack[0, 1], stack[0, 2]


def max_stack_depth(ops, spans):
    """The stack depth :func:`evaluate` needs for every span (start, end) of ``ops`` (at least 1)."""
    effect = 1 - np.asarray(ARITY)[np.asarray(ops)[:, 0]] if len(ops) else np.zeros(0, dtype=np.int64)
    depth = 1
    for start, end in np.asarray(spans).reshape(-1, 2):
        if end > start:
            depth = max(depth, int(np.cumsum(effect[start:end]).max()))
    return depth

