"""The event locator of every stepper: where event functions cross zero inside an accepted step, found on the
step's dense output (an Interpolant, dense.py) and the problem's correction and event functions (problem.py).

A scan samples the step at n_samples interior points of its raw dense output and at its corrected end; two
consecutive samples bracket a crossing where the values change sign in the event's direction (``crossing``),
and an event whose rate is an event function too is also tested at its extremum between them, the root of
its rate, where a level reached and left between two samples lies (``bracket``). ``locate`` refines each
bracketed root by Brent's method on the corrected dense output (on the raw one where the correction moves
the crossing out of its bracket) to a few ulps of t; roots within SIMULTANEOUS of the earliest are one instant.

Each function is written once and runs two ways (``two_ways``). Interpreted, as written, for a Python problem:
an object with the methods correct(t, y) and event_values(t, y, g), which problem.py's stubs call from Python.
A Watcher is one: it watches event functions given from Python (a Python condition, values given from Python at
each instant) along any stepper's steps, scipy's included, their dense output evaluated compiled all the same.
And compiled (COMPILED): twins of the functions that call each other's twins, inlined in numba's IR into the
compiled loop (explicit.py) or an entry of it, where the problem's functions are compiled.
"""
from collections import namedtuple
from types import FunctionType

import numpy as np
from numba import njit

from ..status import OK
from .dense import interpolate
from .problem import correct, event_values

SIMULTANEOUS = 1e-12     # event roots within this (relative to max(1, |t|)) of each other: one instant
ROOT_ITERATIONS = 200
# the compiled twins: inlined in numba's IR (as explicit.ONCE) where they call the problem's functions, by LLVM
# (as spatial.algebra.INLINE) the small rules (numba's IR inlining of a short-circuit `and` leaves phi nodes out of
# scope). IR inlining of a plain njit function types it where it is inlined; an overload's (numba's
# register_jitable) compiles it whole first, the problem's functions included: ~60 s more for a closed loop.
IN_IR = dict(inline="always", error_model="numpy", _nrt=False)
BY_LLVM = dict(forceinline=True, error_model="numpy", _nrt=False)
TWO_WAYS = {}            # name -> (the function as written, the options of its compiled twin)

G_OLD, G_NEW, G_PROBE, FROM, TO, ROOT = range(6)
DIRECTION, CROSSED, RATE = range(3)
Watch = namedtuple("Watch", "g events")
Watch.__doc__ = """The locator's arrays, for n_events events watched through m event functions (the events', then
any rates').
g (6, m): G_OLD, the values where a scan starts (where it ended after it; the caller may zero an entry: a
    crossing from 0 never counts), G_NEW, G_PROBE (where the location probed last); per event, FROM and TO,
    the bracket of its crossing in the last scan, and ROOT, its root after ``locate`` (inf: none).
events (3, n_events) int64: DIRECTION per event, CROSSED (the first sample interval of the last scan where it
    crossed, -1: none), RATE (the event function that is its time derivative along solutions, -1: none)."""


NO_EVENTS = Watch(np.zeros((6, 0)), np.zeros((3, 0), dtype=np.int64))     # the Watch of no events (new_watch)


def new_watch(n_events, directions=None, rates=None):
    """A Watch of n_events events: ``directions`` (> 0 rising crossings only, < 0 falling, 0 both; default 0),
    ``rates`` (per event, its rate's index among the event functions, -1: none; default none)."""
    if n_events == 0 and (rates is None or len(rates) == 0) and (directions is None or len(directions) == 0):
        return NO_EVENTS                                  # nothing to write in it: shared
    directions = np.zeros(n_events) if directions is None else np.ravel(directions)
    if directions.shape != (n_events,):
        raise ValueError(f"directions must have {n_events} entries")
    rates = np.full(n_events, -1) if rates is None else np.asarray(rates, dtype=np.int64).ravel()
    if rates.shape != (n_events,) or (rates < -1).any():
        raise ValueError(f"rates must have {n_events} entries, each an event function's index or -1")
    events = np.empty((3, n_events), dtype=np.int64)
    events[DIRECTION], events[CROSSED], events[RATE] = np.sign(directions), -1, rates
    return Watch(np.zeros((6, max(n_events, rates.max(initial=-1) + 1))), events)


def two_ways(options):
    """Decorator: the function, as written, runs interpreted; its compiled twin (COMPILED) with ``options``."""
    def register(function):
        TWO_WAYS[function.__name__] = function, options
        return function
    return register


# ------------------------------------------------------------------------------------------ the rules
@two_ways(BY_LLVM)
def crossing(a, b, direction):
    """Whether event values a -> b at consecutive sample points are a crossing in ``direction``
    (> 0 rising only, < 0 falling only, 0 both): a < 0 <= b rising, a > 0 >= b falling. A pair
    starting at exactly 0 never counts (a fired event zeroed at its restart point stays quiet)."""
    if a < 0.0:
        return b >= 0.0 and direction >= 0
    if a > 0.0:
        return b <= 0.0 and direction <= 0
    return False


@two_ways(BY_LLVM)
def rate(watch, i, row):
    """Event i's rate in row ``row`` of watch.g, 0 where it has none."""
    r = watch.events[RATE][i]
    return watch.g[row][r] if r >= 0 else 0.0


@two_ways(IN_IR)
def value(problem, dense, watch, point, k, t, corrected):
    """Event function k at t on the dense output, ``corrected`` by the problem or raw (point: the state there;
    every function's value in G_PROBE). Returns (status, value)."""
    interpolate(dense, t, point)
    if corrected:
        status = correct(problem, t, point)
        if status != OK:
            return status, 0.0
    status = event_values(problem, t, point, watch.g[G_PROBE])
    return status, watch.g[G_PROBE][k]


@two_ways(IN_IR)
def root(problem, dense, watch, point, k, a, b, fa, fb, corrected):
    """The root of event function k in [a, b] on the dense output (``corrected`` or raw, as ``value``), fa and
    fb its values at a and b, of opposite signs, by Brent's method (R. P. Brent, Algorithms for Minimization
    without Derivatives, 1973, ch. 4: inverse quadratic interpolation or secant, bisection when they do not
    shrink the bracket fast enough), to a tolerance of 2 ulp(max(|a|, |b|)) + 2 eps |t| (zeroin's 2 eps |t|
    + xtol/2). Returns (status, root)."""
    c, fc, d, e = a, fa, b - a, b - a
    xtol = 4.0 * np.spacing(max(abs(a), abs(b)))
    for _ in range(ROOT_ITERATIONS):
        if (fb > 0.0) == (fc > 0.0):                  # keep the root between b and c
            c, fc, d, e = a, fa, b - a, b - a
        if abs(fc) < abs(fb):                           # b the best estimate
            a, b, c, fa, fb, fc = b, c, b, fb, fc, fb
        tol = 0.5 * (xtol + 4.0 * np.finfo(np.float64).eps * abs(b))
        m = 0.5 * (c - b)
        if fb == 0.0 or abs(m) <= tol:
            return OK, b
        if abs(e) >= tol and abs(fa) > abs(fb):
            s = fb / fa
            if a == c:                                  # secant
                p, q = 2.0 * m * s, 1.0 - s
            else:                                       # inverse quadratic interpolation
                q, r = fa / fc, fb / fc
                p = s * (2.0 * m * q * (q - r) - (b - a) * (r - 1.0))
                q = (q - 1.0) * (r - 1.0) * (s - 1.0)
            if p > 0.0:
                q = -q
            else:
                p = -p
            if 2.0 * p < min(3.0 * m * q - abs(tol * q), abs(e * q)):
                e, d = d, p / q
            else:
                d = e = m
        else:
            d = e = m
        a, fa = b, fb
        b += d if abs(d) > tol else (tol if m > 0.0 else -tol)
        status, fb = value(problem, dense, watch, point, k, b, corrected)
        if status != OK:
            return status, b
    return OK, b


@two_ways(IN_IR)
def bracket(problem, dense, watch, point, i, a, b):
    """Whether event i crosses in the sample interval [a, b], from its values (G_OLD, G_NEW) and its rate's
    there, and the bracket of the crossing: [a, b] when the values are one (``crossing``); else, where the
    rate changes sign, the event function's extremum t_e, the rate's root on the corrected dense output:
    beyond the level it makes two crossings, in [a, t_e] and [t_e, b], and the first one in the event's
    direction is taken. Returns (status, whether it crossed, start, end)."""
    ga, gb, direction = watch.g[G_OLD][i], watch.g[G_NEW][i], watch.events[DIRECTION][i]
    if crossing(ga, gb, direction):
        return OK, True, a, b
    ra, rb = rate(watch, i, G_OLD), rate(watch, i, G_NEW)
    if not ra * rb < 0.0:
        return OK, False, a, b
    status, t_e = root(problem, dense, watch, point, watch.events[RATE][i], a, b, ra, rb, True)
    if status != OK:
        return status, False, a, b
    status, g_e = value(problem, dense, watch, point, i, t_e, True)
    if status != OK:
        return status, False, a, b
    if crossing(ga, g_e, direction):
        return OK, True, a, t_e
    return OK, crossing(g_e, gb, direction), t_e, b


# --------------------------------------------------------------------------------- scan and location
@two_ways(IN_IR)
def scan(problem, dense, watch, point, t_from, t, y, n_samples):
    """The event functions along [t_from, t] of the step of ``dense``: at n_samples interior points t_from +
    (k / (n_samples + 1)) (t - t_from) of the raw dense output and at the corrected end (t, y), each pair of
    consecutive samples from G_OLD (the values at t_from) tested with ``bracket``. Per event, CROSSED = the
    first pair (0-based) where it crossed, -1 if none, and its bracket in FROM, TO; G_OLD ends as the values
    at (t, y). Returns (status, whether any crossed)."""
    g, events = watch.g, watch.events
    m, h, fired = n_samples + 1, t - t_from, False
    for i in range(events.shape[1]):
        events[CROSSED][i] = -1
    for k in range(1, m + 1):
        a = t_from + ((k - 1) / m) * h
        if k < m:
            b = t_from + (k / m) * h
            interpolate(dense, b, point)
            status = event_values(problem, b, point, g[G_NEW])
        else:
            b = t
            status = event_values(problem, b, y, g[G_NEW])
        if status != OK:
            return status, fired
        for i in range(events.shape[1]):
            if events[CROSSED][i] >= 0:
                continue
            status, crossed, start, end = bracket(problem, dense, watch, point, i, a, b)
            if status != OK:
                return status, fired
            if crossed:
                events[CROSSED][i], g[FROM][i], g[TO][i] = k - 1, start, end
                fired = True
        for j in range(g.shape[1]):
            g[G_OLD][j] = g[G_NEW][j]
    return OK, fired


@two_ways(IN_IR)
def crossing_root(problem, dense, watch, point, i):
    """Event i's root in its bracket [FROM, TO]: refined on the corrected dense output where the values at the
    bracket's ends cross there, else on the raw output where those do (the correction moved the crossing out
    of the bracket), else the bracket's end (the crossing is at the step's corrected end, the raw output's
    end is off it). Returns (status, root)."""
    a, b, direction = watch.g[FROM][i], watch.g[TO][i], watch.events[DIRECTION][i]
    for corrected in (True, False):
        status, fa = value(problem, dense, watch, point, i, a, corrected)
        if status != OK:
            return status, b
        status, fb = value(problem, dense, watch, point, i, b, corrected)
        if status != OK:
            return status, b
        if crossing(fa, fb, direction):
            return root(problem, dense, watch, point, i, a, b, fa, fb, corrected)
    return OK, b


@two_ways(IN_IR)
def locate(problem, dense, watch, point):
    """The roots of the events that crossed in the last scan (crossing_root), in ROOT (inf for the others).
    Returns (status, t, k, alone): the earliest root t (inf: none), its event k, and whether no other
    event's root is within SIMULTANEOUS of it."""
    g, events = watch.g, watch.events
    first, second, k_first = np.inf, np.inf, -1
    for i in range(events.shape[1]):
        g[ROOT][i] = np.inf
    for i in range(events.shape[1]):
        if events[CROSSED][i] < 0:
            continue
        status, t = crossing_root(problem, dense, watch, point, i)
        if status != OK:
            return status, first, k_first, False
        g[ROOT][i] = t
        if t < first:
            first, second, k_first = t, first, i
        elif t < second:
            second = t
    return OK, first, k_first, second - first > SIMULTANEOUS * max(1.0, abs(first))


def compiled_twins(functions):
    """The compiled twins of ``functions`` (TWO_WAYS): copies of the functions whose globals are the module's with
    each name bound to its twin, so that compiled twins call compiled twins, njit-compiled with their options."""
    names = dict(globals())
    for name, (function, options) in functions.items():
        twin = FunctionType(function.__code__, names, name, function.__defaults__, function.__closure__)
        names[name] = njit(**options)(twin)
    return {name: names[name] for name in functions}


COMPILED = compiled_twins(TWO_WAYS)
scan_compiled, locate_compiled = COMPILED["scan"], COMPILED["locate"]    # explicit.py's


# ----------------------------------------------------------------------------------------- from Python
def instant(watch, first):
    """(first, the events whose roots ``locate`` put within SIMULTANEOUS of it), or None when first is inf."""
    if not first < np.inf:
        return None
    last, roots = first + SIMULTANEOUS * max(1.0, abs(first)), watch.g[ROOT]
    return float(first), [i for i in range(watch.events.shape[1]) if roots[i] <= last]


class Watcher:
    """The locator from Python along any stepper's steps, for event functions given in Python: ``events(t, y)``,
    their values (n_events events', then any rates' as ``rates`` indexes them), and ``correct(t, y)``, the
    correction of y in place (None: none). It is the Python problem the locator runs on, interpreted: its
    functions raise on a failure, so that every status is OK. The steps are given by their dense outputs
    (Interpolants)."""

    def __init__(self, correct, events, n_events, directions=None, rates=None, n_samples=4):
        self._correct, self._events, self.n_samples = correct, events, int(n_samples)
        self.watch = new_watch(n_events, directions, rates)

    def correct(self, t, y):
        if self._correct is not None:
            self._correct(t, y)
        return OK

    def event_values(self, t, y, g):
        g[:] = self._events(t, y)
        return OK

    def start(self, t, y):
        """At a (re)start: the values at (t, y) in G_OLD, no crossing."""
        self.event_values(t, y, self.watch.g[G_OLD])
        self.watch.events[CROSSED] = -1

    def scan(self, dense, t, y):
        """Scan the step of ``dense`` from G_OLD to its corrected end (t, y) (``scan``); whether an event crossed."""
        return scan(self, dense, self.watch, np.empty_like(y), dense.t_old, t, y, self.n_samples)[1]

    def locate(self, dense):
        """After a scan that crossed: (t, events) of its earliest root (``locate``, ``instant``)."""
        return instant(self.watch, locate(self, dense, self.watch, np.empty(dense.C.shape[0]))[1])

    def roots(self, dense, t_from, quiet, t, y):
        """(t, events) of the earliest root in [t_from, t] of the step of ``dense``, from the values at t_from on
        its raw dense output with the events ``quiet`` counted as zero there (they fired at t_from), or None."""
        point = np.empty_like(y)
        interpolate(dense, t_from, point)
        self.event_values(t_from, point, self.watch.g[G_OLD])
        self.watch.g[G_OLD][list(quiet)] = 0.0
        fired = scan(self, dense, self.watch, point, t_from, t, y, self.n_samples)[1]
        return self.locate(dense) if fired else None
