"""Compiled adaptive Runge–Kutta integration: the Dormand–Prince pairs 5(4) (scipy's "RK45") and
8(5,3) ("DOP853") with their continuous extensions, the whole loop — stages, error control, dense
output, drift correction — in machine code, so that a step costs the right-hand side evaluations
and little else (SPEC §6).

References (HNW): E. Hairer, S. P. Nørsett, G. Wanner, Solving Ordinary Differential Equations I,
2nd ed., Springer 1993 — §II.4 automatic step size control and the starting step size,
§II.5 the embedded pairs DOPRI5(4) and DOP853, §II.6 dense output (the continuous DOPRI5 of
order 4; DOP853's of order 7 with three extra stages). DOP853's coefficient tables are taken from
scipy (scipy.integrate._ivp.dop853_coefficients), which publishes Hairer's values.

Error control is scipy's: the error norm is the RMS of err / (atol + rtol max(|y|, |y_new|)), a
step is accepted when that norm is below 1 and the next step is h (0.9 norm^(-1/5)) clipped to
[0.2 h, 10 h] (never growing right after a rejection), at most max_step, at least 10 ulp(t).

The right-hand side and the drift correction are ``derivative(sys, t, y, dy)`` and
``correct(sys, t, y)`` of dynamics/system.py; both return a status, OK = -1 or a failure code
that ends the run and is handed back unchanged.
"""
import warnings

import numpy as np
from numba import njit
from scipy.integrate._ivp import dop853_coefficients as _dop853

from ..dynamics.system import correct, derivative
from ..spatial.algebra import JIT

OK = -1                   # derivative/correct status, and the status of a run that reached t_end
PAUSED = -1000            # step budget or output buffer spent: call the kernel again to resume
NON_FINITE = -1001        # the state (or a stage value) stays non-finite however small the step
STEP_TOO_SMALL = -1002    # the step size fell below 10 ulp(t)

# Dormand–Prince 5(4), HNW §II.5: nodes C, stage coefficients A (row 6 = the 5th-order weights,
# so the last stage is f(t + h, y_new): first same as last), E = 5th- minus 4th-order weights.
C = np.array([0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0])
A = np.array([
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [1 / 5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3 / 40, 9 / 40, 0.0, 0.0, 0.0, 0.0, 0.0],
    [44 / 45, -56 / 15, 32 / 9, 0.0, 0.0, 0.0, 0.0],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0.0, 0.0, 0.0],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0.0, 0.0],
    [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0.0]])
E = np.array([71 / 57600, 0.0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40])
N_STAGES = 7
ERROR_EXPONENT = -1 / 5   # the error estimate is O(h^5) (embedded order 4)
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0

# DOP853, HNW §II.5/§II.10: 12 stages, the 8th-order solution B, the 5th- and 3rd-order error
# estimators E5, E3 (weights over the 12 stages and f(t + h, y_new)), three extra stages and D for
# the dense output of order 7.
A8, B8, C8 = (np.ascontiguousarray(_dop853.A), np.ascontiguousarray(_dop853.B), np.ascontiguousarray(_dop853.C))
E3_8, E5_8, D8 = (np.ascontiguousarray(_dop853.E3), np.ascontiguousarray(_dop853.E5),
                  np.ascontiguousarray(_dop853.D))
N8, N8_EXTENDED = _dop853.N_STAGES, _dop853.N_STAGES_EXTENDED     # 12, 16

RK45, DOP853 = 0, 1
METHODS = {"RK45": RK45, "DOP853": DOP853}
EXPONENT = np.array([ERROR_EXPONENT, -1 / 8])    # DOP853's error estimate is O(h^8)
LAST_STAGE = np.array([N_STAGES - 1, N8])         # the stage holding f(t + h, y_new)
STAGE_ROWS = np.array([N_STAGES, N8_EXTENDED])    # rows of K a method needs


# ------------------------------------------------------------------------------------------ norms
@njit(**JIT)
def rms(x, scale):
    """sqrt(mean((x / scale)^2)), the norm of HNW eq. (4.11)."""
    total = 0.0
    for i in range(x.shape[0]):
        total += (x[i] / scale[i]) ** 2
    return np.sqrt(total / max(x.shape[0], 1))


@njit(**JIT)
def error_norm(y, y_new, h, K, rtol, atol):
    """RMS of the embedded error estimate h sum_j E_j K_j scaled by atol + rtol max(|y|, |y_new|)."""
    total = 0.0
    for i in range(y.shape[0]):
        err = 0.0
        for j in range(N_STAGES):
            err += E[j] * K[j, i]
        total += (h * err / (atol[i] + rtol * max(abs(y[i]), abs(y_new[i])))) ** 2
    return np.sqrt(total / max(y.shape[0], 1))


@njit(**JIT)
def all_finite(x):
    for i in range(x.shape[0]):
        if not np.isfinite(x[i]):
            return False
    return True


# ---------------------------------------------------------------------------------- starting step
@njit(**JIT)
def error_norm8(y, y_new, h, K, rtol, atol):
    """DOP853's error norm (HNW §II.10): |h| |err5|^2 / sqrt((|err5|^2 + 0.01 |err3|^2) n), both
    estimates scaled by atol + rtol max(|y|, |y_new|)."""
    e5 = e3 = 0.0
    for i in range(y.shape[0]):
        s5 = s3 = 0.0
        for j in range(N8 + 1):
            s5 += E5_8[j] * K[j, i]
            s3 += E3_8[j] * K[j, i]
        scale = atol[i] + rtol * max(abs(y[i]), abs(y_new[i]))
        e5 += (s5 / scale) ** 2
        e3 += (s3 / scale) ** 2
    if e5 == 0.0 and e3 == 0.0:
        return 0.0
    return abs(h) * e5 / np.sqrt((e5 + 0.01 * e3) * y.shape[0])


@njit(**JIT)
def initial_step(sys, t0, y0, f0, t_end, max_step, rtol, atol, y1, f1, exponent):
    """Starting step size of HNW §II.4 ("Starting Step Size"), as scipy's select_initial_step:
    h0 from |y0| / |f0|, then h1 from a difference estimate of y'' after an Euler step of h0.
    y1, f1 are scratch. Returns (status, |h|)."""
    interval = t_end - t0
    scale = np.empty_like(y0)
    for i in range(y0.shape[0]):
        scale[i] = atol[i] + rtol * abs(y0[i])
    d0, d1 = rms(y0, scale), rms(f0, scale)
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, interval)
    for i in range(y0.shape[0]):
        y1[i] = y0[i] + h0 * f0[i]
    status = derivative(sys, t0 + h0, y1, f1)
    if status != OK:
        return status, 0.0
    for i in range(y0.shape[0]):
        f1[i] -= f0[i]
    d2 = rms(f1, scale) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (-exponent)
    return OK, min(100 * h0, h1, interval, max_step)


@njit(**JIT)
def start(method, sys, t0, y0, f0, t_end, max_step, rtol, atol, counts):
    """f0 = f(t0, y0) and the starting step size. Returns (status, |h|)."""
    if not all_finite(y0):
        return NON_FINITE, 0.0
    counts[0] += 1
    status = derivative(sys, t0, y0, f0)
    if status != OK:
        return status, 0.0
    if not all_finite(f0):
        return NON_FINITE, 0.0
    if t_end == t0:
        return OK, 0.0
    counts[0] += 1
    return initial_step(sys, t0, y0, f0, t_end, max_step, rtol, atol, np.empty_like(y0), np.empty_like(y0),
                        EXPONENT[method])


# ------------------------------------------------------------------------------------------- step
@njit(**JIT)
def stage_state(A, y, h, K, s, out):
    """out = y + h sum_{j<s} A[s, j] K_j; False if a component is not finite."""
    finite = True
    for i in range(y.shape[0]):
        acc = 0.0
        for j in range(s):
            acc += A[s, j] * K[j, i]
        out[i] = y[i] + h * acc
        finite = finite and np.isfinite(out[i])
    return finite


@njit(**JIT)
def stages(sys, A, C, n, t, y, h, K, y_new):
    """Stages 1..n-1 of an explicit tableau (A, C) after K[0] = f(t, y); the last stage point stays
    in y_new. Returns the derivative status, or NON_FINITE when a stage point is not finite (the
    derivative never sees it)."""
    for s in range(1, n):
        if not stage_state(A, y, h, K, s, y_new):
            return NON_FINITE
        status = derivative(sys, t + C[s] * h, y_new, K[s])
        if status != OK:
            return status
    return OK


@njit(**JIT)
def rk_stages(sys, t, y, h, K, y_new):
    """Stages 1..6 of DOPRI5 (HNW §II.5); the last stage point is the 5th-order solution, left in
    y_new, and K[6] = f(t + h, y_new)."""
    return stages(sys, A, C, N_STAGES, t, y, h, K, y_new)


@njit(**JIT)
def dop853_stages(sys, t, y, h, K, y_new):
    """Stages 1..11 of DOP853, y_new = y + h sum B_j K_j and K[12] = f(t + h, y_new) (HNW §II.5).
    Returns the derivative status or NON_FINITE."""
    status = stages(sys, A8, C8, N8, t, y, h, K, y_new)
    if status != OK:
        return status
    for i in range(y.shape[0]):
        acc = 0.0
        for j in range(N8):
            acc += B8[j] * K[j, i]
        y_new[i] = y[i] + h * acc
    if not all_finite(y_new):
        return NON_FINITE
    return derivative(sys, t + h, y_new, K[N8])


@njit(**JIT)
def step(method, sys, t, y, f, h_abs, t_end, rtol, atol, max_step, K, y_new, counts):
    """Attempt steps from (t, y), f = f(t, y), until one is accepted (HNW §II.4, scipy's rules).
    Returns (status, t_new, h, |h| proposed for the next step); on OK, y_new and the stages K
    belong to the accepted step. counts: [f evaluations, accepted steps, rejected steps]."""
    min_step = 10.0 * (np.nextafter(t, np.inf) - t)
    h_abs = min(max(h_abs, min_step), max_step)
    rejected = False
    failure = STEP_TOO_SMALL
    while h_abs >= min_step:
        t_new = min(t + h_abs, t_end)
        h = t_new - t
        K[0] = f
        status = rk_stages(sys, t, y, h, K, y_new) if method == RK45 else dop853_stages(sys, t, y, h, K, y_new)
        counts[0] += LAST_STAGE[method]
        if status != OK and status != NON_FINITE:
            return status, t, h, h_abs
        if status != OK:
            norm = np.inf
        else:
            norm = error_norm(y, y_new, h, K, rtol, atol) if method == RK45 else error_norm8(y, y_new, h, K, rtol, atol)
        exponent = EXPONENT[method]
        if norm < 1.0:
            factor = MAX_FACTOR if norm == 0.0 else min(MAX_FACTOR, SAFETY * norm ** exponent)
            if rejected:
                factor = min(1.0, factor)
            counts[1] += 1
            return OK, t_new, h, abs(h) * factor
        failure = STEP_TOO_SMALL if np.isfinite(norm) else NON_FINITE
        h_abs = abs(h) * (max(MIN_FACTOR, SAFETY * norm ** exponent) if np.isfinite(norm) else MIN_FACTOR)
        rejected = True
        counts[2] += 1
    return failure, t, 0.0, h_abs


# ----------------------------------------------------------------------------------- dense output
@njit(**JIT)
def dense_weights(theta, w):
    """w_i(theta) of the continuous DOPRI5 of order 4 (HNW §II.6, after Shampine), so that
    y(t + theta h) = y + h sum_i w_i(theta) K_i; w_i(1) = A[6, i]."""
    q = theta * theta * (theta - 1.0) ** 2                 # vanishes with its slope at both ends
    p = theta * theta * (3.0 - 2.0 * theta)                # Hermite blend from 0 to 1
    w[0] = p * A[6, 0] + theta * (theta - 1.0) ** 2 - q * 5.0 * (2558722523.0 - 31403016.0 * theta) / 11282082432.0
    w[1] = 0.0
    w[2] = p * A[6, 2] + q * 100.0 * (882725551.0 - 15701508.0 * theta) / 32700410799.0
    w[3] = p * A[6, 3] - q * 25.0 * (443332067.0 - 31403016.0 * theta) / 1880347072.0
    w[4] = p * A[6, 4] + q * 32805.0 * (23143187.0 - 3489224.0 * theta) / 199316789632.0
    w[5] = p * A[6, 5] - q * 55.0 * (29972135.0 - 7076736.0 * theta) / 822651844.0
    w[6] = theta * theta * (theta - 1.0) + q * 10.0 * (7414447.0 - 829305.0 * theta) / 29380423.0


@njit(**JIT)
def dense_point(y, h, K, theta, w, out):
    """out = the continuous extension of the step (y, h, K) at t + theta h."""
    dense_weights(theta, w)
    for i in range(y.shape[0]):
        acc = 0.0
        for j in range(N_STAGES):
            acc += w[j] * K[j, i]
        out[i] = y[i] + h * acc


@njit(**JIT)
def dop853_dense_prepare(sys, t, y, h, K, y_new, F, scratch):
    """The three extra stages of DOP853's dense output and its coefficients F (7, n) (HNW §II.6):
    F0 = dy, F1 = h f0 - dy, F2 = 2 dy - h (f1 + f0), F3.. = h D K. Returns the status."""
    for s in range(N8 + 1, N8_EXTENDED):
        stage_state(A8, y, h, K, s, scratch)
        status = derivative(sys, t + C8[s] * h, scratch, K[s])
        if status != OK:
            return status
    for i in range(y.shape[0]):
        dy = y_new[i] - y[i]
        F[0, i] = dy
        F[1, i] = h * K[0, i] - dy
        F[2, i] = 2.0 * dy - h * (K[N8, i] + K[0, i])
        for k in range(D8.shape[0]):
            acc = 0.0
            for j in range(N8_EXTENDED):
                acc += D8[k, j] * K[j, i]
            F[3 + k, i] = h * acc
    return OK


@njit(**JIT)
def dop853_dense_point(y, F, x, out):
    """out = y + the nested product of F at x = (t - t_old) / h, alternating x and 1 - x."""
    for i in range(y.shape[0]):
        acc = 0.0
        for k in range(F.shape[0] - 1, -1, -1):
            acc += F[k, i]
            acc *= x if (F.shape[0] - 1 - k) % 2 == 0 else 1.0 - x
        out[i] = y[i] + acc


@njit(**JIT)
def record_dense(method, sys, t, y, t_new, h, K, y_new, t_eval, n_out, T, Y, w, F, counts):
    """Record the t_eval points in (t, t_new] from the step (y, h, K) just accepted, each
    corrected; y_new (already corrected) is used as it is at t_new. Returns (status, n_out)."""
    prepared = method == RK45
    while n_out < t_eval.shape[0] and t_eval[n_out] <= t_new:
        T[n_out] = t_eval[n_out]
        if t_eval[n_out] == t_new:
            Y[n_out] = y_new
        else:
            if not prepared:
                counts[0] += N8_EXTENDED - N8 - 1
                status = dop853_dense_prepare(sys, t, y, h, K, y_new, F, Y[n_out])
                if status != OK:
                    return status, n_out
                prepared = True
            if method == RK45:
                dense_point(y, h, K, (t_eval[n_out] - t) / h, w, Y[n_out])
            else:
                dop853_dense_point(y, F, (t_eval[n_out] - t) / h, Y[n_out])
            status = correct(sys, t_eval[n_out], Y[n_out])
            if status != OK:
                return status, n_out
        n_out += 1
    return OK, n_out


# ------------------------------------------------------------------------------------------- loop
@njit(**JIT)
def finish_step(method, sys, t_new, y_new, K, f, saved, counts):
    """Drift correction of the accepted y_new in place; f becomes f(t_new, y_new). When correct()
    changed y_new, f is re-evaluated at the corrected state (not taken from the last stage), so
    the next step starts exactly from a point on the manifold with its own derivative.
    Returns the status."""
    saved[:] = y_new
    status = correct(sys, t_new, y_new)
    if status != OK:
        return status
    if not all_finite(y_new):
        return NON_FINITE
    for i in range(y_new.shape[0]):
        if y_new[i] != saved[i]:
            counts[0] += 1
            return derivative(sys, t_new, y_new, f)
    f[:] = K[LAST_STAGE[method]]
    return OK


@njit(**JIT)
def rk_loop(method, sys, t, y, f, h_abs, t_end, rtol, atol, max_step, every_step, t_eval, n_out, T, Y, max_steps,
            counts):
    """Advance (t, y) towards t_end by at most max_steps accepted steps; y and f = f(t, y) are
    updated in place. Records (T[n_out], Y[n_out]) after every accepted step when every_step
    (pausing when T is full), else at the points t_eval[n_out:] the steps pass (dense output).
    Returns (status, t, |h| for the next step, n_out): OK at t_end, PAUSED to be called again
    with these values (the resumed run is bitwise the uninterrupted one), or a failure code."""
    n = y.shape[0]
    K = np.empty((STAGE_ROWS[method], n))
    y_new, saved, w = np.empty(n), np.empty(n), np.empty(N_STAGES)
    F = np.empty((_dop853.INTERPOLATOR_POWER, n))
    for _ in range(max_steps):
        if t >= t_end:
            return OK, t, h_abs, n_out
        if every_step and n_out == T.shape[0]:
            return PAUSED, t, h_abs, n_out
        status, t_new, h, h_next = step(method, sys, t, y, f, h_abs, t_end, rtol, atol, max_step, K, y_new, counts)
        if status != OK:
            return status, t, h_abs, n_out
        status = finish_step(method, sys, t_new, y_new, K, f, saved, counts)
        if status == OK and not every_step:
            status, n_out = record_dense(method, sys, t, y, t_new, h, K, y_new, t_eval, n_out, T, Y, w, F, counts)
        if status != OK:
            return status, t, h_abs, n_out
        t, h_abs = t_new, h_next
        y[:] = y_new
        if every_step:
            T[n_out], Y[n_out] = t, y
            n_out += 1
    return (OK if t >= t_end else PAUSED), t, h_abs, n_out


# ----------------------------------------------------------------------------------------- driver
MESSAGES = {OK: "The solver successfully reached the end of the integration interval.",
            NON_FINITE: "the state became non-finite at t = {t:.6g}",
            STEP_TOO_SMALL: "required step size is less than spacing between numbers at t = {t:.6g}"}


def message_for(status, t):
    """A sentence for a run's final status; failure codes of the right-hand side name the code."""
    return MESSAGES.get(status, "the right-hand side failed with status {status} at t = {t:.6g}").format(
        status=status, t=t)


def _checked_tolerances(rtol, atol, n):
    """(rtol, atol as an array of n), scipy's checks: rtol raised to 100 eps with a warning."""
    rtol = float(rtol)
    if rtol < 100 * np.finfo(float).eps:
        warnings.warn(f"rtol {rtol:g} is too small, setting it to {100 * np.finfo(float).eps:g}")
        rtol = 100 * np.finfo(float).eps
    atol = np.ascontiguousarray(np.broadcast_to(np.asarray(atol, dtype=float), (n,)))
    if np.any(atol < 0):
        raise ValueError("atol must be non-negative")
    return rtol, atol


def _checked_t_eval(t_eval, t0, t_end):
    t_eval = np.ascontiguousarray(t_eval, dtype=float).ravel()
    if np.any(np.diff(t_eval) < 0) or (t_eval.size and (t_eval[0] < t0 or t_eval[-1] > t_end)):
        raise ValueError("t_eval must be sorted and lie within [t0, t_end]")
    return t_eval


def integrate_compiled(sys, t0, y0, t_end, method="RK45", rtol=1e-3, atol=1e-6, max_step=np.inf, t_eval=None,
                       progress=None, *, chunk=2000, counts=None):
    """Integrate dy/dt = derivative(sys, t, y) from (t0, y0) to t_end with ``method`` ("RK45":
    Dormand–Prince 5(4); "DOP853": Dormand–Prince 8(5,3)), correcting the state after every accepted step and at every output.

    Outputs are every accepted step (t0 included) when t_eval is None, else the t_eval points
    (sorted, within [t0, t_end]) from the dense output. The compiled loop runs in chunks of
    ``chunk`` accepted steps; ``progress(t)``, if given, is called after each. ``counts``, if a
    dict, receives nfev, n_accepted and n_rejected.

    Returns (times (N,), states (N, len(y0)), status, message): status OK (-1) when t_end was
    reached, else NON_FINITE, STEP_TOO_SMALL or the failure code of derivative/correct; the
    outputs computed before a failure are kept.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; the compiled integrator has {', '.join(METHODS)}")
    t0, t_end = float(t0), float(t_end)
    if t_end < t0:
        raise ValueError("the compiled integrator runs forward in time: t_end must be >= t0")
    max_step = float(max_step)
    if not max_step > 0:
        raise ValueError("max_step must be positive")
    y = np.array(y0, dtype=float).ravel()
    rtol, atol = _checked_tolerances(rtol, atol, y.size)
    every_step = t_eval is None
    t_eval = np.empty(0) if every_step else _checked_t_eval(t_eval, t0, t_end)
    f = np.empty_like(y)
    tally = np.zeros(3, dtype=np.int64)
    code = METHODS[method]
    status, h_abs = start(code, sys, t0, y, f, t_end, max_step, rtol, atol, tally)
    t, n_out = t0, 0
    if every_step:
        T, Y = np.empty(chunk), np.empty((chunk, y.size))
        times, states = [np.array([t0])], [y[None].copy()]
    else:
        T, Y = np.empty(t_eval.size), np.empty((t_eval.size, y.size))
        n_out = int(np.searchsorted(t_eval, t0, side="right"))          # the points at t0: y0 itself
        T[:n_out], Y[:n_out] = t_eval[:n_out], y
    if status == OK:
        status = PAUSED                                                  # started: run the loop
    while status == PAUSED:
        status, t, h_abs, n_out = rk_loop(code, sys, t, y, f, h_abs, t_end, rtol, atol, max_step, every_step,
                                          t_eval, n_out, T, Y, chunk, tally)
        if every_step:
            times.append(T[:n_out].copy())
            states.append(Y[:n_out].copy())
            n_out = 0
        if progress is not None:
            progress(t)
    if counts is not None:
        counts.update(nfev=int(tally[0]), n_accepted=int(tally[1]), n_rejected=int(tally[2]))
    if every_step:
        return np.concatenate(times), np.concatenate(states), status, message_for(status, t)
    return T[:n_out], Y[:n_out], status, message_for(status, t)
