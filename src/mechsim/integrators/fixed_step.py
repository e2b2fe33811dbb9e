"""Fixed-step explicit Euler and classical RK4, compiled with the dynamics kernels so a whole
open-loop run is one call into machine code (deterministic, real-time style). The drift control
of the system (dynamics/system.py: projection or the iteration-free stabilization) follows every step."""
import numpy as np
from numba import njit

from ..dynamics.kernels import OK
from ..dynamics.system import correct, derivative
from ..spatial.algebra import JIT

EULER, RK4 = 0, 1
FIXED_METHODS = {"Euler": EULER, "RK4": RK4}


@njit(**JIT)
def axpy(y, a, k, out):
    """out = y + a k, without temporaries."""
    for i in range(y.shape[0]):
        out[i] = y[i] + a * k[i]


@njit(**JIT)
def stage_derivative(sys, t, u, con_t, y, dy):
    """The system's derivative with the force values u and constraint targets con_t of time t."""
    sys.u[:] = u
    sys.con_t[:, :] = con_t
    return derivative(sys, t, y, dy)


@njit(**JIT)
def fixed_step(method, sys, t, h, u_stage, con_stage, y, k, y_new):
    """One step of size h from (t, y) to y_new, then the drift correction; u_stage and con_stage rows
    are the force values and constraint targets at t, t + h/2, t + h. k is (4, ny) scratch.
    Returns OK or the failing status."""
    status = stage_derivative(sys, t, u_stage[0], con_stage[0], y, k[0])
    if method == EULER:
        axpy(y, h, k[0], y_new)
    else:                                                # classical Runge-Kutta 4
        for s, (c, row) in enumerate(((0.5, 1), (0.5, 1), (1.0, 2))):
            if status != OK:
                return status
            axpy(y, c * h, k[s], y_new)
            status = stage_derivative(sys, t + c * h, u_stage[row], con_stage[row], y_new, k[s + 1])
        for i in range(y.shape[0]):
            y_new[i] = y[i] + (h / 6.0) * (k[0, i] + 2.0 * k[1, i] + 2.0 * k[2, i] + k[3, i])
    if status != OK:
        return status
    sys.u[:] = u_stage[2]
    sys.con_t[:, :] = con_stage[2]
    return correct(sys, t + h, y_new)


@njit(**JIT)
def run_fixed(method, sys, t0, h, u_half, con_half, y0, n_steps, Y):
    """n_steps steps from y0, Y[s] the state after step s (Y[0] = y0); u_half[j] and con_half[j] are the
    force values and constraint targets at t0 + j h/2. Returns (steps done, status): stops at a failed
    or non-finite state."""
    k = np.empty((4, y0.shape[0]))
    Y[0] = y0
    for s in range(n_steps):
        status = fixed_step(method, sys, t0 + s * h, h, u_half[2 * s:2 * s + 3], con_half[2 * s:2 * s + 3], Y[s], k,
                            Y[s + 1])
        if status != OK:
            return s, status
        if not np.all(np.isfinite(Y[s + 1])):
            return s + 1, OK
    return n_steps, OK


def integrate_fixed(sys, method, y0, t0, h, n_steps, values_at, step_inputs, progress, chunk=2000):
    """Fixed-step run; returns (times, states, u at the step times, status). ``values_at(t)`` gives the
    force values u and constraint targets at t; ``step_inputs(t, y)``, when given (a controller in
    the loop), is called before every step and the loop runs one compiled step at a time."""
    code = FIXED_METHODS[method]
    times = t0 + h * np.arange(n_steps + 1)
    Y = np.empty((n_steps + 1, y0.size))
    Y[0] = y0
    U = np.empty((n_steps + 1, sys.u.size))
    done, status = 0, OK
    if step_inputs is None:                               # open loop: tabulate u on the half-step grid
        half = t0 + 0.5 * h * np.arange(2 * n_steps + 1)
        u_half, con_half = _tabulate(values_at, half, sys)
        U[:] = u_half[::2]
        while done < n_steps and status == OK:
            n = min(chunk, n_steps - done)
            steps, status = run_fixed(code, sys, times[done], h, u_half[2 * done:], con_half[2 * done:], Y[done], n,
                                      Y[done:done + n + 1])
            done += steps
            progress(times[done])
            if steps < n:
                break
    else:
        k = np.empty((4, y0.size))
        for s in range(n_steps):
            step_inputs(times[s], Y[s])
            u_stage, con_stage = _tabulate(values_at, times[s] + np.array([0.0, 0.5 * h, h]), sys)
            U[s] = u_stage[0]
            status = fixed_step(code, sys, times[s], h, u_stage, con_stage, Y[s], k, Y[s + 1])
            if status != OK or not np.all(np.isfinite(Y[s + 1])):
                break
            done = s + 1
            progress(times[done])
        U[done] = values_at(times[done])[0]
    return times[:done + 1], Y[:done + 1], U[:done + 1], status


def _tabulate(values_at, times, sys):
    u = np.empty((len(times), sys.u.size))
    con = np.empty((len(times),) + sys.con_t.shape)
    for j, t in enumerate(times):
        u[j], con[j] = values_at(t)
    return u, con
