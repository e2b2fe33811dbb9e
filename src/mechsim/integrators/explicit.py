"""One compiled loop for every explicit Runge–Kutta tableau (tableaux.py), generic over the
problem: the right-hand side, the post-step correction and the event functions are those
registered for the problem's class (problem.py), so that a run costs the right-hand side
evaluations and little else.

Adaptive steps follow scipy's RK23/RK45/DOP853 (HNW §II.4; equal up to rounding: see combine): error norm (4.11), the RMS
of err / (atol + rtol max(|y|, |y_new|)) (DOP853: its own norm, HNW §II.10); a step is accepted
when the norm is < 1 and the next |h| is |h| min(10, 0.9 norm^(-1/(q+1))), not growing right
after a rejection; a rejected step shrinks by max(0.2, 0.9 norm^(-1/(q+1))) (4.13); |h| stays
within [10 ulp(t), max_step]. With the PREDICTIVE step control, an accepted step's next |h| is the
smaller of that and Gustafsson's prediction (see predicted_factor), which spares the rejections of a
step that must shrink step after step; STANDARD takes scipy's steps. The starting step is HNW §II.4's
algorithm as scipy's select_initial_step. A fixed step h instead walks the grid t_start + k h (clipped at t_bound).

After an accepted step the state is corrected in place by ``correct``; the derivative is then
taken from the last stage, f(t + h, y_new), when the correction left y unchanged, else
re-evaluated at the corrected state. The dense output of a step is its raw continuous extension, an
Interpolant (dense.py). Events are watched along each step by the event locator (locator.py: scan); on a
crossing the loop returns to its caller, or, for a run with jumps, locates the earliest root itself
(locator.py: locate) and lets the problem's ``jump`` act on it (a bounce), restarting there without
leaving the loop.

Every kernel returns a status (status.py): OK, a failure code of the problem's functions handed
back unchanged, NON_FINITE, STEP_TOO_SMALL, or from rk_advance PAUSED / EVENT.
"""
import warnings
from collections import namedtuple

import numpy as np
from numba import njit, typeof

from ..errors import StepperFailure
from ..spatial.algebra import INLINE, JIT
from . import STEP_CONTROLS
from ..status import EVENT, NON_FINITE, OK, PAUSED, STEP_TOO_SMALL, UNHANDLED, describe
from .base import Stepper, stepper_options
from .dense import RK, Interpolant, interpolate
from .locator import CROSSED, G_OLD, Watch, instant, new_watch
from .locator import locate_compiled as locate, scan_compiled as scan
from .problem import correct, event_values, jump, rhs
from .tableaux import TABLEAUX

# functions that take the problem and are called from compiled code are inlined in numba's IR (ONCE): a
# function compiled on its own compiles again everything it calls (numba links the callees into it and
# optimizes and generates the whole), and what evaluates the problem calls the whole dynamics: a start,
# the dense output and its extra stages compiled apart made a first four-bar run compile 30 % longer;
# the small helpers below are inlined by LLVM (INLINE): a compiled call taking the state tuple copies
# its arrays' structs
ONCE = dict(JIT, inline="always")
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0      # scipy's step-size factors (HNW §II.4 fac, facmin, facmax)
STANDARD, PREDICTIVE = 0, 1                         # the indices of STEP_CONTROLS
MIN_ERROR_HISTORY = 1e-2    # the previous error norm, floored as in RADAU5 (HNW IV.8): a tiny one predicts no growth
MIN_RTOL = 100 * np.finfo(float).eps                # scipy's floor for rtol

RKState = namedtuple("RKState", "scalars flags counts y y_old f atol K Q g events work")
RKState.__doc__ = """The arrays of one run, made by new_state (few fields: each costs compile time).

scalars (11,): T_NOW, T_OLD (end and start of the last step; both the start time before the first),
    H_LAST (the last step, 0 before the first), H_NEXT (|h| proposed for the next step), H_FIXED
    (the fixed step, 0: adaptive), T_GRID (a fixed-step run is on the grid T_GRID + k H_FIXED),
    RTOL, MAX_STEP, T_STOP (an adaptive step ends there rather than pass it: a bounce's apex; inf: none),
    ERR_LAST (the error norm of the last step, floored at MIN_ERROR_HISTORY), FIRST_STEP (an adaptive
    start's first step, 0: initial_step chooses it).
flags (5,) int64: DENSE_READY (Q is valid), N_GRID (k of the last grid point), N_SAMPLES
    (interior points per step where the event functions are sampled), STEP_CONTROL (STANDARD or PREDICTIVE),
    CORRECT_START (the next start corrects st.y first).
counts (4,) int64: rhs evaluations, accepted steps, rejected steps, corrections that changed y.
y, y_old: the states at T_NOW (corrected) and T_OLD; f = f(T_NOW, y); atol (n,).
K (S, n): the stages of the last step, extra dense stages included; Q (n, p) = K^T P, the coefficients of
    its dense output (rk_interpolant).
g, events: the event locator's arrays (locator.Watch) for the steps' scans: g[G_OLD] holds the event
    function values at T_NOW after a step (the caller may zero an entry after firing). The m event functions
    are the events', then any rates' (new_state).
work (5, n): scratch.
"""
Outputs = namedtuple("Outputs", "every_step t_eval T Y")
Outputs.__doc__ = """Where rk_advance records: every_step (bool), the output times t_eval, and the arrays T (N,),
Y (N, n) it fills (Stepper.advance)."""

T_NOW, T_OLD, H_LAST, H_NEXT, H_FIXED, T_GRID, RTOL, MAX_STEP, T_STOP, ERR_LAST, FIRST_STEP = range(11)
DENSE_READY, N_GRID, N_SAMPLES, STEP_CONTROL, CORRECT_START = range(5)
COUNT_RHS, COUNT_STEPS, COUNT_REJECTED, COUNT_CORRECTIONS = range(4)


def new_state(tableau, y0, rtol, atol, **options):
    """An RKState for ``tableau`` (a Tableau or a name in TABLEAUX) holding y0, with the ``options`` of
    CompiledStepper (base.py STEPPER_OPTIONS); h given: fixed steps of h (required when the tableau has no error
    estimate); first_step given: an adaptive start's first step. rtol below 100 eps is raised to it with a warning,
    as scipy does. ``rates``: per event, the index of the event function that is its time derivative along
    solutions (-1: none); the problem's event functions are the n_events events' and then those rates'. Call
    rk_start before stepping."""
    return state_of(tableau, y0, stepper_options(CompiledStepper, dict(options, rtol=rtol, atol=atol)))


def state_of(tableau, y0, opts):
    """new_state with all of CompiledStepper's options ``opts``, checked (stepper_options)."""
    rtol, atol = opts["rtol"], opts["atol"]
    max_step, h, first_step = opts["max_step"], opts["h"], opts["first_step"]
    n_samples, step_control = opts["n_samples"], opts["step_control"]
    tab = TABLEAUX[tableau] if isinstance(tableau, str) else tableau
    y = np.array(y0, dtype=float).ravel()
    n = y.size
    if h is None and not tab.adaptive:
        raise ValueError("a method without error estimate needs a fixed step h")
    if h is not None and not float(h) > 0:
        raise ValueError("the step h must be positive")
    if first_step is not None and not float(first_step) > 0:
        raise ValueError("the first step must be positive")
    if not float(max_step) > 0:
        raise ValueError("max_step must be positive")
    if rtol < MIN_RTOL:
        warnings.warn(f"rtol {rtol:g} is too small, setting it to {MIN_RTOL:g}")
        rtol = MIN_RTOL
    atol_y = np.empty(n)
    atol_y[:] = atol                                      # a number or one per component
    if (atol_y < 0.0).any():
        raise ValueError("atol must be non-negative")
    watch = new_watch(opts["n_events"], opts["directions"], opts["rates"])
    if n_samples < 0:
        raise ValueError("n_samples must be >= 0")
    if step_control not in STEP_CONTROLS:
        raise ValueError(f"step_control must be one of {', '.join(STEP_CONTROLS)}, got {step_control!r}")
    scalars = np.zeros(11)
    scalars[H_FIXED], scalars[RTOL], scalars[MAX_STEP] = 0.0 if h is None else float(h), rtol, float(max_step)
    scalars[FIRST_STEP] = 0.0 if first_step is None else float(first_step)
    flags = np.zeros(5, dtype=np.int64)
    flags[N_SAMPLES], flags[STEP_CONTROL] = n_samples, STEP_CONTROLS.index(step_control)
    return RKState(scalars=scalars, flags=flags, counts=np.zeros(4, np.int64), y=y, y_old=y.copy(), f=np.zeros(n),
                   atol=atol_y, K=np.zeros((tab.A.shape[0], n)), Q=np.zeros((n, tab.P.shape[1])), g=watch.g,
                   events=watch.events, work=np.zeros((5, n)))


# ------------------------------------------------------------------------------------------ helpers
@njit(**INLINE)
def copy(src, dst):
    """dst[:] = src (a loop: numba's slice assignment costs seconds of compile time)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(**INLINE)
def fill(dst, value):
    for i in range(dst.shape[0]):
        dst[i] = value


@njit(**INLINE)
def all_finite(x):
    for i in range(x.shape[0]):
        if not np.isfinite(x[i]):
            return False
    return True


@njit(**INLINE)
def combine(y, K, a, s, h, out, dy):
    """out = y + (sum_{j<s} a_j K_j) h, the point of stage s (dy: scratch); False if it is not
    finite. The sums here and in the norms are loops, not BLAS calls as numpy's in scipy's
    solvers (~0.3 us a call, a tenth of a four-bar evaluation): steps are scipy's up to rounding,
    which the cancellation in the error estimate amplifies to ~1e-7 relative in the step size."""
    weighted_sum(K, a, s, dy)
    for i in range(y.shape[0]):
        out[i] = y[i] + dy[i] * h
    return all_finite(out)


@njit(**INLINE)
def weighted_sum(K, w, s, out):
    """out = sum_{j<s} w_j K_j"""
    for i in range(out.shape[0]):
        out[i] = 0.0
    for j in range(s):
        for i in range(out.shape[0]):
            out[i] += w[j] * K[j, i]


@njit(**INLINE)
def sum_squares(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i] * x[i]
    return total


@njit(**INLINE)
def rms(x):
    """sqrt(mean(x^2)), the norm of HNW (4.11), as scipy's: |x|_2 / sqrt(n)."""
    return np.sqrt(sum_squares(x)) / x.shape[0] ** 0.5


@njit(**INLINE)
def error_norm(tab, st, h, y_new):
    """Norm of the local error estimate of the step y -> y_new (stages in st.K): the RMS of
    h sum e_j K_j / scale (HNW (4.11)); DOP853 (HNW §II.10): |h| E5^2 / sqrt((E5^2 + 0.01 E3^2) n)
    with E5, E3 the 2-norms of sum e_j K_j / scale and sum e3_j K_j / scale. scale = atol +
    max(|y|, |y_new|) rtol."""
    y, n = st.y, st.y.shape[0]
    if n == 0:
        return 0.0
    K = st.K[:tab.n_stages + 1]
    err5, err3 = st.work[3], st.work[4]
    weighted_sum(K, tab.e, K.shape[0], err5)
    if not tab.dop853_norm:
        for i in range(n):
            err5[i] = err5[i] * h / (st.atol[i] + max(abs(y[i]), abs(y_new[i])) * st.scalars[RTOL])
        return rms(err5)
    weighted_sum(K, tab.e3, K.shape[0], err3)
    for i in range(n):
        scale = st.atol[i] + max(abs(y[i]), abs(y_new[i])) * st.scalars[RTOL]
        err5[i] /= scale
        err3[i] /= scale
    sum5, sum3 = sum_squares(err5), sum_squares(err3)
    if sum5 == 0.0 and sum3 == 0.0:
        return 0.0
    return abs(h) * sum5 / np.sqrt((sum5 + 0.01 * sum3) * n)


@njit(**ONCE)
def initial_step(problem, tab, st, t0, t_bound):
    """Starting step of HNW §II.4 as scipy's select_initial_step: h0 = 0.01 |y0| / |f0| (1e-6 when
    either is tiny), y'' estimated from an Euler step of h0, h1 = (0.01 / max(|f0|, |y''|))^(1/(q+1));
    |h| = min(100 h0, h1, t_bound - t0, max_step), norms as in error_norm. Returns (status, |h|)."""
    y0, f0, n = st.y, st.f, st.y.shape[0]
    interval = t_bound - t0
    if n == 0:
        return OK, np.inf
    if interval == 0.0:
        return OK, 0.0
    x = st.work[3]
    for i in range(n):
        x[i] = y0[i] / (st.atol[i] + abs(y0[i]) * st.scalars[RTOL])
    d0 = rms(x)
    for i in range(n):
        x[i] = f0[i] / (st.atol[i] + abs(y0[i]) * st.scalars[RTOL])
    d1 = rms(x)
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, interval)
    y1, f1 = st.work[0], st.work[1]
    for i in range(n):
        y1[i] = y0[i] + h0 * f0[i]
    st.counts[COUNT_RHS] += 1
    status = rhs(problem, t0 + h0, y1, f1)
    if status != OK:
        return status, 0.0
    for i in range(n):
        x[i] = (f1[i] - f0[i]) / (st.atol[i] + abs(y0[i]) * st.scalars[RTOL])
    d2 = rms(x) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1 / (tab.error_order + 1))
    return OK, min(100 * h0, h1, interval, st.scalars[MAX_STEP])


# -------------------------------------------------------------------------------------------- start
@njit(**INLINE)
def reset(st, t0):
    """A start's bookkeeping at t0 (T_NOW = T_OLD = T_GRID = t0, no last step, no stop, no dense output, no
    crossing); False when st.y is not finite."""
    st.scalars[T_NOW] = st.scalars[T_OLD] = st.scalars[T_GRID] = t0
    copy(st.y, st.y_old)
    st.scalars[H_LAST] = 0.0
    st.scalars[T_STOP] = np.inf
    st.flags[N_GRID] = 0
    st.flags[DENSE_READY] = False
    fill(st.events[CROSSED], -1)
    return all_finite(st.y)


@njit(**ONCE)
def start_with_f(problem, tab, st, t0, t_bound):
    """The rest of a start once st.f = f(t0, st.y): the fixed step on a grid from t0, or an adaptive start's
    first step (the one given, within the span and max_step, as scipy's first_step; else initial_step's),
    g_old = the event values at (t0, y0). Returns the status."""
    if not all_finite(st.f):
        return NON_FINITE
    if st.scalars[H_FIXED] > 0.0:
        st.scalars[H_NEXT] = st.scalars[H_FIXED]
    elif st.scalars[FIRST_STEP] > 0.0:
        st.scalars[H_NEXT] = min(st.scalars[FIRST_STEP], st.scalars[MAX_STEP], max(t_bound - t0, 0.0))
    else:
        status, h_abs = initial_step(problem, tab, st, t0, t_bound)
        if status != OK:
            return status
        st.scalars[H_NEXT] = h_abs
    if st.g[G_OLD].shape[0] > 0:
        return event_values(problem, t0, st.y, st.g[G_OLD])
    return OK


@njit(**ONCE)
def rk_start(problem, tab, st, t0, t_bound):
    """Start (or restart, after an event action changed the state) at (t0, st.y), st.y already
    corrected unless flags[CORRECT_START] asks for it: reset, f0 = f(t0, y0), start_with_f. Returns the status.
    Inlined into rk_advance (ONCE), which CompiledStepper calls for a start alone too (max_steps 0)."""
    if st.flags[CORRECT_START]:
        status = correct(problem, t0, st.y)
        if status != OK:
            return status                       # the flag stays: the start failed correcting y
        st.flags[CORRECT_START] = False
    if not reset(st, t0):
        return NON_FINITE
    st.counts[COUNT_RHS] += 1
    status = rhs(problem, t0, st.y, st.f)
    if status != OK:
        return status
    return start_with_f(problem, tab, st, t0, t_bound)


# --------------------------------------------------------------------------------------------- step
@njit(**ONCE)
def stages(problem, tab, st, t, h, y_new):
    """K_0 = f and the stages K_1..K_n of a step of h from (t, st.y); the last stage point is
    y_new = y + h sum b_j K_j and K_n = f(t + h, y_new). Returns the status of the right-hand side,
    or NON_FINITE when a stage point is not finite (the right-hand side never sees it)."""
    copy(st.f, st.K[0])
    for s in range(1, tab.n_stages + 1):
        if not combine(st.y, st.K, tab.A[s], s, h, y_new, st.work[3]):
            return NON_FINITE
        st.counts[COUNT_RHS] += 1
        status = rhs(problem, t + tab.c[s] * h, y_new, st.K[s])
        if status != OK:
            return status
    return OK


@njit(**INLINE)
def predicted_factor(h, err, h_last, err_last, exponent):
    """Gustafsson's predictive step-size factor (Gustafsson 1994, Control-theoretic techniques for stepsize
    selection in implicit Runge-Kutta methods, ACM TOMS 20, 496-517; HNW IV.8, eq. 8.21, as in RADAU5):
    0.9 (h / h_last) (err_last / err)^(1/k) err^(-1/k), k = q + 1, within [MIN_FACTOR, MAX_FACTOR]: it
    extrapolates the trend of the error constant err / h^k over the last two accepted steps."""
    factor = SAFETY * (h / h_last) * (err_last / err) ** -exponent * err ** exponent
    return min(MAX_FACTOR, max(MIN_FACTOR, factor))


@njit(**ONCE)
def rk_step(problem, tab, st, t_bound):
    """One accepted step from st.t towards t_bound (nothing when st.t >= t_bound), then the
    correction of the new state. Adaptive: attempts until the error norm is < 1 (scipy's rules);
    STEP_TOO_SMALL (NON_FINITE if the last attempt was not finite) when |h| falls below
    10 ulp(t). On failure before acceptance t, y, f are unchanged (the stages and dense output
    are not); a failing correction leaves the accepted step with its status."""
    t = st.scalars[T_NOW]
    if t >= t_bound:
        return OK
    y_new = st.work[0]
    fixed = st.scalars[H_FIXED] > 0.0
    exponent = -1 / (tab.error_order + 1)
    min_step = 10 * abs(np.nextafter(t, np.inf) - t)
    h_abs = st.scalars[H_NEXT]
    if not fixed:
        if h_abs > st.scalars[MAX_STEP]:
            h_abs = st.scalars[MAX_STEP]
        elif h_abs < min_step:
            h_abs = min_step
    rejected = False
    failure = STEP_TOO_SMALL
    on_grid = True
    while True:
        if fixed:                                   # the grid point, t_bound when it is beyond or within rounding
            t_new = st.scalars[T_GRID] + (st.flags[N_GRID] + 1) * st.scalars[H_FIXED]
            if t_new > t_bound or t_bound - t_new <= 1e-9 * st.scalars[H_FIXED]:
                on_grid = t_new - t_bound <= 1e-9 * st.scalars[H_FIXED]
                t_new = t_bound
        else:
            if h_abs < min_step:
                st.scalars[H_NEXT] = h_abs
                return failure
            t_new = t + h_abs
            if t_new > t_bound:
                t_new = t_bound
            if t < st.scalars[T_STOP] < t_new:
                t_new = st.scalars[T_STOP]
        h = t_new - t
        h_abs = abs(h)
        status = stages(problem, tab, st, t, h, y_new)
        if fixed:
            if status != OK:
                return status
            if not all_finite(st.K[tab.n_stages]):
                return NON_FINITE
            st.flags[N_GRID] += on_grid
            h_abs = st.scalars[H_FIXED]
            break
        norm = error_norm(tab, st, h, y_new) if status == OK else np.inf
        if norm < 1.0:
            factor = MAX_FACTOR if norm == 0.0 else min(MAX_FACTOR, SAFETY * norm ** exponent)
            if st.flags[STEP_CONTROL] == PREDICTIVE and st.scalars[H_LAST] > 0.0 and norm > 0.0:
                factor = min(factor, predicted_factor(h_abs, norm, st.scalars[H_LAST], st.scalars[ERR_LAST], exponent))
            if rejected:
                factor = min(1.0, factor)
            st.scalars[ERR_LAST] = max(norm, MIN_ERROR_HISTORY)
            h_abs *= factor
            break
        if np.isfinite(norm):
            h_abs *= max(MIN_FACTOR, SAFETY * norm ** exponent)
            failure = STEP_TOO_SMALL
        else:                                       # a stage failed (a state far off, e.g. deep in a stiff
            h_abs *= MIN_FACTOR                     # contact): a smaller step; the failure if none succeeds
            failure = NON_FINITE if status == OK else status
        rejected = True
        st.counts[COUNT_REJECTED] += 1
    st.counts[COUNT_STEPS] += 1
    st.scalars[T_OLD], st.scalars[H_LAST], st.scalars[H_NEXT], st.scalars[T_NOW] = t, h, h_abs, t_new
    copy(st.y, st.y_old)
    copy(y_new, st.y)
    st.flags[DENSE_READY] = False
    return corrected(problem, tab, st)


@njit(**ONCE)
def corrected(problem, tab, st):
    """Correct the new state in place; f = f(t, y) from the last stage if y is unchanged, else
    evaluated at the corrected state (both counted). Returns the status."""
    saved = st.work[1]
    copy(st.y, saved)
    status = correct(problem, st.scalars[T_NOW], st.y)
    if status != OK:
        return status
    if not all_finite(st.y):
        return NON_FINITE
    for i in range(st.y.shape[0]):
        if st.y[i] != saved[i]:
            st.counts[COUNT_CORRECTIONS] += 1
            st.counts[COUNT_RHS] += 1
            status = rhs(problem, st.scalars[T_NOW], st.y, st.f)
            if status == OK and not all_finite(st.f):
                return NON_FINITE
            return status
    copy(st.K[tab.n_stages], st.f)
    return OK


# -------------------------------------------------------------------------------------------- dense
@njit(**ONCE)
def dense_stages(problem, tab, st):
    """The tableau's extra stages of the last step (DOP853: 3, counted) and Q = K^T P, once per step."""
    h = st.scalars[H_LAST]
    for s in range(tab.n_stages + 1, tab.A.shape[0]):
        if not combine(st.y_old, st.K, tab.A[s], s, h, st.work[0], st.work[3]):
            return NON_FINITE
        st.counts[COUNT_RHS] += 1
        status = rhs(problem, st.scalars[T_OLD] + tab.c[s] * h, st.work[0], st.K[s])
        if status != OK:
            return status
    for i in range(st.Q.shape[0]):
        for j in range(st.Q.shape[1]):
            acc = 0.0
            for k in range(tab.A.shape[0]):
                acc += st.K[k, i] * tab.P[k, j]
            st.Q[i, j] = acc
    st.flags[DENSE_READY] = True
    return OK


@njit(**ONCE)
def dense_ready(problem, tab, st):
    """The last step's dense output made (dense_stages, once per step); nothing to make before a first step.
    Returns the status."""
    if st.flags[DENSE_READY] or st.scalars[H_LAST] == 0.0:
        return OK
    return dense_stages(problem, tab, st)


@njit(**INLINE)
def rk_interpolant(st):
    """The dense output of the last step as an Interpolant (dense.py), once dense_ready: y_old + h sum_j Q_j
    x^(j+1), x = (t - t_old) / h (HNW §II.6); before any step, y."""
    return Interpolant(RK, st.scalars[T_OLD], st.scalars[T_NOW], st.scalars[H_LAST], st.y_old, st.Q)


@njit(**ONCE)
def rk_dense(problem, tab, st, t, out):
    """out = the raw continuous extension of the last step at t in [t_old, t] (rk_interpolant). Inlined: a
    call passing the problem costs ~0.2 us, ten times the polynomial (measured). Returns the status."""
    status = dense_ready(problem, tab, st)
    if status == OK:
        interpolate(rk_interpolant(st), t, out)
    return status


# ---------------------------------------------------------------------------------- outputs, events
@njit(**ONCE)
def corrected_dense(problem, tab, st, t, out):
    """out = the dense output at t (rk_dense), corrected (the problem's correct). Returns the status."""
    status = rk_dense(problem, tab, st, t, out)
    return correct(problem, t, out) if status == OK else status


@njit(**ONCE)
def record(problem, tab, st, t_eval, n_out, T, Y):
    """(T, Y)[n_out..] = the points t_eval[n_out..] up to t (in [t_old, t]) of the last step:
    the dense output, corrected; y itself at t. Returns (status, n_out)."""
    t = st.scalars[T_NOW]
    while n_out < t_eval.shape[0] and t_eval[n_out] <= t:
        T[n_out] = t_eval[n_out]
        if t_eval[n_out] == t:
            copy(st.y, Y[n_out])
        else:
            status = corrected_dense(problem, tab, st, t_eval[n_out], Y[n_out])
            if status != OK:
                return status, n_out
        n_out += 1
    return OK, n_out


@njit(**ONCE)
def scan_step(problem, tab, st):
    """The event locator's scan of the last step (locator.scan: from g_old at its start to its corrected end),
    its dense output made first. Returns (status, whether an event crossed)."""
    status = dense_ready(problem, tab, st)
    if status != OK:
        return status, False
    return scan(problem, rk_interpolant(st), Watch(st.g, st.events), st.work[2], st.scalars[T_OLD],
                st.scalars[T_NOW], st.y, st.flags[N_SAMPLES])


@njit(**ONCE)
def locate_step(problem, tab, st):
    """The earliest root of the last step's crossings (locator.locate on its dense output). Returns (status, t, k,
    alone)."""
    status = dense_ready(problem, tab, st)
    if status != OK:
        return status, np.inf, -1, False
    return locate(problem, rk_interpolant(st), Watch(st.g, st.events), st.work[2])


@njit(**JIT)
def rk_locate(problem, tab, st):
    """locate_step for CompiledStepper.locate, after rk_advance returned EVENT: one compiled call instead of the
    locator interpreted, each probe a call from Python. Returns (status, t, k, alone)."""
    return locate_step(problem, tab, st)


@njit(**ONCE)
def jumped(problem, tab, st, t_bound, out, n_out):
    """After a crossing in the last step: its earliest event, located (locate_step), acted on compiled by
    the problem's jump when it is the only one at that instant. The outputs past the event are dropped;
    every_step records (t, y) before and after the jump, as the driver does. The run then restarts
    there (rk_start) with that event quiet at its restart point, and a step ends at the jump's t_stop
    if the first step would pass it: a first step over a whole small bounce (its condition back below
    zero at every sample) would see no crossing. Returns (status, n_out): UNHANDLED when the driver
    must handle the crossing."""
    every_step, t_eval, T, Y = out
    point, before, f_after = st.work[2], st.work[1], st.work[0]
    status, t_hit, k, alone = locate_step(problem, tab, st)
    if status != OK or not alone:
        return UNHANDLED, n_out
    if corrected_dense(problem, tab, st, t_hit, point) != OK:
        return UNHANDLED, n_out
    copy(point, before)
    status, t_stop = jump(problem, t_hit, point, k, f_after)
    if status != OK:
        return UNHANDLED, n_out
    if every_step:                                      # the step's end recorded last: replaced
        n_out -= 1
        T[n_out], T[n_out + 1] = t_hit, t_hit
        copy(before, Y[n_out])
        copy(point, Y[n_out + 1])
        n_out += 2
    else:
        while n_out > 0 and t_eval[n_out - 1] > t_hit:
            n_out -= 1
    copy(point, st.y)
    copy(f_after, st.f)
    status = start_with_f(problem, tab, st, t_hit, t_bound) if reset(st, t_hit) else NON_FINITE   # f is f_after
    st.g[G_OLD][k] = 0.0
    if t_stop < t_hit + st.scalars[H_NEXT]:     # else the first step ends before t_stop, where the condition
        st.scalars[T_STOP] = t_stop              # is off its zero: later steps see any crossing by sign
    return status, n_out


@njit(**JIT)
def rk_advance(problem, tab, st, t_bound, max_steps, out, n_out, watch, jumps, start_bound):
    """Accepted steps until st.t >= t_bound (OK), max_steps steps or T full (PAUSED: call again,
    the resumed run is bitwise the uninterrupted one), a failure, or an event (EVENT). First, unless
    start_bound is nan, the start CompiledStepper deferred: rk_start at (st.t, st.y), start_bound the run's end.

    Recording after each step into ``out`` (an Outputs record (every_step, t_eval, T, Y)): every_step ->
    (t, y) into (T, Y)[n_out] (two entries kept free for
    a jump's before and after); else the t_eval points up to t (see record; t_eval[n_out] >= st.t on
    entry, T as long as t_eval). Then, with events (``watch`` True), scan_step: on a crossing, with ``jumps``
    True, the problem's jump acts on it where it can (jumped) and the run goes on; else the step stays accepted
    with its outputs recorded and EVENT is returned (the caller has it located: rk_locate). ``watch`` None
    (no events) compiles no event scan, ``jumps`` None no jump: numba drops the branches on their types, and a
    run without events compiles ~2 s less (the scan's dense output, its calls of the problem). Returns
    (status, n_out)."""
    if not np.isnan(start_bound):
        status = rk_start(problem, tab, st, st.scalars[T_NOW], start_bound)
        if status != OK:
            return status, n_out
    every_step, t_eval, T, Y = out
    room = 1 if watch is None or jumps is None else 2
    for _ in range(max_steps):
        if st.scalars[T_NOW] >= t_bound:
            return OK, n_out
        if every_step and n_out + room > T.shape[0]:
            return PAUSED, n_out
        status = rk_step(problem, tab, st, t_bound)
        if status == OK:
            if every_step:
                T[n_out] = st.scalars[T_NOW]
                copy(st.y, Y[n_out])
                n_out += 1
            else:
                status, n_out = record(problem, tab, st, t_eval, n_out, T, Y)
        if status != OK:
            return status, n_out
        if watch is not None:
            status, fired = scan_step(problem, tab, st)
            if status != OK:
                return status, n_out
            if not fired:
                continue
            if jumps is None:
                return EVENT, n_out
            status, n_out = jumped(problem, tab, st, t_bound, out, n_out)
            if status == UNHANDLED:
                return EVENT, n_out
            if status != OK:
                return status, n_out
    return (OK if st.scalars[T_NOW] >= t_bound else PAUSED), n_out


# ------------------------------------------------------------------------------------------ stepper
class CompiledStepper(Stepper):
    """The Stepper protocol (base.py) on the compiled kernels for a registered ``problem`` and a
    method of TABLEAUX; h given: fixed steps with any tableau (required for Euler and RK4); first_step given: an
    adaptive start's first step. A start (or restart) is made by the next advance, in the same compiled call, or
    at once where something needs it first (start_status, watch, interpolant, locate): a failing start is
    ``start_status`` and is what advance returns."""

    KNOWN = ("rtol", "atol", "max_step", "h", "first_step", "n_samples", "n_events", "directions", "rates", "jumps",
             "step_control", "correct_start")

    def __init__(self, problem, method, t0, y0, t_bound, **options):
        """``options``: those of KNOWN (base.py STEPPER_OPTIONS). ``jumps``: event actions run compiled where the
        problem's jump can (rk_advance); ``step_control``: "standard" takes scipy's steps; ``correct_start``: y0
        is corrected by the start (rk_start; restarts are given corrected states), so that a run compiles no other
        entry to the correction; ``rates``: per event, its rate's index among the event functions, -1: none."""
        if method not in TABLEAUX:
            raise ValueError(f"unknown method {method!r}; compiled methods: {', '.join(TABLEAUX)}")
        if t_bound < t0:
            raise ValueError("steppers run forward in time: t_bound must be >= t0")
        opts = stepper_options(CompiledStepper, options)
        self.problem, self.method, self.tableau = problem, method, TABLEAUX[method]
        self.state = state_of(self.tableau, y0, opts)
        self.watching = True if opts["n_events"] else None                  # rk_advance
        self.jumps = True if opts["jumps"] else None
        self.t_bound, self.message = float(t_bound), None
        self.restart(t0, self.state.y)
        self.state.flags[CORRECT_START] = opts["correct_start"]

    t = property(lambda self: float(self.state.scalars[T_NOW]))
    t_old = property(lambda self: float(self.state.scalars[T_OLD]))
    y = property(lambda self: self.state.y)
    watch = property(lambda self: Watch(self.started().g, self.state.events))
    n_samples = property(lambda self: int(self.state.flags[N_SAMPLES]))

    @property
    def start_status(self):
        self.started()
        return self._start_status

    @property
    def correction_failed(self):
        """Whether the start failed correcting y0 (``correct_start``), leaving y as it was given."""
        return bool(self.started().flags[CORRECT_START])

    def restart(self, t, y, t_bound=None):
        """Start again at (t, y), deferred (see the class); returns OK."""
        if t_bound is not None:
            self.t_bound = float(t_bound)
        self.state.y[:] = y
        self.state.scalars[T_NOW] = self.state.scalars[T_OLD] = t
        self.state.flags[CORRECT_START] = False
        self._pending, self._start_status, self.message = True, OK, None
        return OK

    def started(self):
        """The state, after the deferred start if one is pending: rk_advance making the start alone (no step),
        with outputs of the types a run passes, so that it is the run's compiled specialization."""
        if self._pending:
            self._pending = False
            status, _ = rk_advance(*self._start_arguments())
            self._start_status = int(status)                   # OK: t_bound is the start, reached
            self.message = None if self._start_status == OK else describe(self._start_status)
        return self.state

    def _start_arguments(self):
        """rk_advance's arguments for the start alone (no step), with outputs of the types a run passes."""
        nothing = Outputs(False, np.empty(0), np.empty(0), np.empty((0, self.state.y.shape[0])))
        return self.problem, self.tableau, self.state, self.t, 0, nothing, 0, self.watching, self.jumps, self.t_bound

    def load(self):
        """The compiled loop of ``started`` and ``advance`` (rk_advance for this problem's types) loaded into this
        process from numba's cache, or compiled, without running it: for a process that forks runs
        (distributed/cosim.py), whose children then start with it in memory."""
        rk_advance.compile(tuple(typeof(a) for a in self._start_arguments()))

    def advance(self, t_bound, max_steps, every_step, t_eval, n_out, T, Y):
        if self._start_status != OK:
            return self._start_status, n_out
        t_eval = self._checked_outputs(every_step, t_eval, n_out, T)
        start_bound, self._pending = (self.t_bound if self._pending else np.nan), False
        out = Outputs(bool(every_step), t_eval, T, Y)
        status, n_out = rk_advance(self.problem, self.tableau, self.state, float(t_bound), int(max_steps), out,
                                   int(n_out), self.watching, self.jumps, start_bound)
        if status not in (OK, PAUSED, EVENT):
            self.message = describe(status)
            if not np.isnan(start_bound) and not self.state.scalars[H_LAST]:
                self._start_status = int(status)          # failed at its start: that stays the answer
        return int(status), int(n_out)

    def dense(self, t):
        out = np.empty_like(self.state.y)
        status = rk_dense(self.problem, self.tableau, self.started(), float(t), out)
        if status != OK:
            raise StepperFailure(status, describe(status))
        return out

    def interpolant(self):
        self.dense(self.t)          # the step's dense output made by the entry the outputs compile: no other entry
        return rk_interpolant(self.state)

    def locate(self):
        status, t, _, _ = rk_locate(self.problem, self.tableau, self.started())
        return instant(self.watch, t) if status == OK else None

    @property
    def stats(self):
        counts = self.state.counts
        return dict(steps=int(counts[COUNT_STEPS]), rejected=int(counts[COUNT_REJECTED]),
                    rhs_evaluations=int(counts[COUNT_RHS]), projections=int(counts[COUNT_CORRECTIONS]))
