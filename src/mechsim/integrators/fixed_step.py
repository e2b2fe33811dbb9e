"""Fixed-step explicit Euler and classical RK4, compiled with the dynamics kernels so a whole
open-loop run is one call into machine code (deterministic, real-time style)."""
import numpy as np
from numba import njit

from ..dynamics.kernels import OK, normalize_quaternions, state_derivative
from ..spatial.algebra import JIT

EULER, RK4 = 0, 1
FIXED_METHODS = {"Euler": EULER, "RK4": RK4}


@njit(**JIT)
def axpy(y, a, k, out):
    """out = y + a k, without temporaries."""
    for i in range(y.shape[0]):
        out[i] = y[i] + a * k[i]


@njit(**JIT)
def fixed_step(method, node_i, node_f, force_i, force_f, gravity, u_stage, tau, y, nq, quat_q, ws, h, k, y_new):
    """One step of size h from y to y_new; u_stage rows are the force values at t, t + h/2, t + h.
    k is (4, ny) scratch. Returns OK or a singular node."""
    status = state_derivative(node_i, node_f, force_i, force_f, gravity, u_stage[0], tau, y, nq, ws, k[0])
    if method == EULER:
        axpy(y, h, k[0], y_new)
    else:                                                # classical Runge-Kutta 4
        for s, (c, row) in enumerate(((0.5, 1), (0.5, 1), (1.0, 2))):
            if status != OK:
                return status
            axpy(y, c * h, k[s], y_new)
            status = state_derivative(node_i, node_f, force_i, force_f, gravity, u_stage[row], tau, y_new, nq,
                                      ws, k[s + 1])
        for i in range(y.shape[0]):
            y_new[i] = y[i] + (h / 6.0) * (k[0, i] + 2.0 * k[1, i] + 2.0 * k[2, i] + k[3, i])
    normalize_quaternions(quat_q, y_new)
    return status


@njit(**JIT)
def run_fixed(method, node_i, node_f, force_i, force_f, gravity, u_half, tau, y0, nq, quat_q, ws, h, n_steps,
              Y):
    """n_steps steps from y0, Y[s] the state after step s (Y[0] = y0); u_half[j] are the force
    values at t0 + j h/2. Returns (steps done, status): stops at a singular or non-finite state."""
    k = np.empty((4, y0.shape[0]))
    Y[0] = y0
    for s in range(n_steps):
        status = fixed_step(method, node_i, node_f, force_i, force_f, gravity, u_half[2 * s:2 * s + 3], tau,
                            Y[s], nq, quat_q, ws, h, k, Y[s + 1])
        if status != OK:
            return s, status
        if not np.all(np.isfinite(Y[s + 1])):
            return s + 1, OK
    return n_steps, OK


def integrate_fixed(cm, method, y0, t0, h, n_steps, force_values, tau, step_inputs, progress, chunk=2000):
    """Fixed-step run; returns (times, states, u at the step times, status). ``force_values(t)``
    gives the force-value vector u at t; ``step_inputs(t, y)``, when given (a controller in the
    loop), is called before every step and the loop runs one compiled step at a time."""
    code = FIXED_METHODS[method]
    times = t0 + h * np.arange(n_steps + 1)
    Y = np.empty((n_steps + 1, y0.size))
    Y[0] = y0
    U = np.empty((n_steps + 1, cm.n_slots))
    args = (cm.node_i, cm.node_f, cm.force_i, cm.force_f, cm.gravity)
    done, status = 0, OK
    if step_inputs is None:                               # open loop: tabulate u on the half-step grid
        half = t0 + 0.5 * h * np.arange(2 * n_steps + 1)
        u_half = np.array([force_values(t) for t in half]).reshape(len(half), cm.n_slots)
        U[:] = u_half[::2]
        while done < n_steps and status == OK:
            n = min(chunk, n_steps - done)
            steps, status = run_fixed(code, *args, u_half[2 * done:], tau, Y[done], cm.nq, cm.quat_q,
                                      cm.workspace, h, n, Y[done:done + n + 1])
            done += steps
            progress(times[done])
            if steps < n:
                break
    else:
        k = np.empty((4, y0.size))
        u_stage = np.empty((3, cm.n_slots))
        for s in range(n_steps):
            step_inputs(times[s], Y[s])
            for row, t in enumerate((times[s], times[s] + 0.5 * h, times[s] + h)):
                u_stage[row] = force_values(t)
            U[s] = u_stage[0]
            status = fixed_step(code, *args, u_stage, tau, Y[s], cm.nq, cm.quat_q, cm.workspace, h, k, Y[s + 1])
            if status != OK or not np.all(np.isfinite(Y[s + 1])):
                break
            done = s + 1
            progress(times[done])
        U[done] = force_values(times[done])
    return times[:done + 1], Y[:done + 1], U[:done + 1], status
