"""Trim (SPEC C7, ``m.trim``; Wood & Kennedy 2003, §5): a steady state on the constraint manifold.

Unknowns: the joint coordinates the user does not hold, as a velocity-space step from the
assembled configuration (quaternions by the exponential map), and the inputs left free.
Equations: the position constraints g(q, t) = 0 (every row: redundant ones are satisfied with the
others) and zero accelerations, with the velocities held (zero unless ``fixed`` gives them) and
kept consistent with the constraints. The system is solved by scipy's Levenberg–Marquardt
(trust-region reflective when there are more unknowns than equations).
"""
import numpy as np
from scipy.optimize import least_squares

from ..assembly.assemble import assemble, fixed_items, held_velocities, solve_velocities
from ..dynamics.api import constraint_values, forward_dynamics
from ..dynamics.kernels import normalize_quaternions
from ..dynamics.projection import integrate_coordinates
from ..errors import MechsimError, ModelError, keyword
from ..results.state import State
from ..simulation.options import is_number


FIXED = f"trim(): {keyword('fixed')}"     # what error messages call the fixed argument


def trim(model, fixed=None, free_inputs=None, t=0.0, inputs=None, tol=1e-10):
    """An equilibrium State near q0: max |g| <= tol and max |a| <= tol max(1, |gravity|). ``fixed``
    names held coordinates as m.assemble does ("j.v" entries set velocities); ``free_inputs`` are
    model inputs solved for; ``inputs`` gives the others' values. The State carries ``inputs`` (every
    input's value) and ``residual`` (the largest |g| or |a| left). ModelError if none is found."""
    cm = model.compile()
    values = _input_values(model, inputs, free_inputs)
    free_inputs = list(free_inputs or [])
    positions, velocities = _split_fixed(cm, fixed)
    reference = assemble(model, positions, t, FIXED)
    q_ref = reference.q
    v_held = np.zeros(cm.nv)
    held_v = held_velocities(cm, velocities, q_ref.copy(), v_held, FIXED)
    v_free = np.setdiff1d(np.arange(cm.nv), held_v)
    moving = np.setdiff1d(np.arange(cm.nv), held_velocities(cm, positions, q_ref.copy(), np.zeros(cm.nv),
                                                            FIXED))
    a_tol = tol * max(1.0, float(np.linalg.norm(model.gravity)))

    def state(x):
        q, dq = q_ref.copy(), np.zeros(cm.nv)
        dq[moving] = x[:moving.size]
        integrate_coordinates(cm.node_i, q, dq)
        normalize_quaternions(cm.quat_q, q)
        v = solve_velocities(cm, q, v_held, t, v_free, reference.analysis.active) if cm.n_rows else v_held.copy()
        values.update(zip(free_inputs, x[moving.size:]))
        return q, v

    def evaluate(x):
        """(q, v, accelerations, constraint residuals) at the unknowns x."""
        q, v = state(x)
        a = forward_dynamics(model, q, v, t=t, inputs=values)
        return q, v, a, constraint_values(cm, q, v, t)[0] if cm.n_rows else np.zeros(0)

    def residual(x):
        _, _, a, h = evaluate(x)
        return np.concatenate([h / tol, a / a_tol])

    x = np.concatenate([np.zeros(moving.size), [values[name] for name in free_inputs]])
    if x.size:
        x = _solve(residual, x, moving.size, "lm" if cm.n_rows + cm.nv >= x.size else "trf")
    q, v, a, h = evaluate(x)
    worst_a, worst_h = np.max(np.abs(a), initial=0.0), np.max(np.abs(h), initial=0.0)
    if worst_a > a_tol or worst_h > tol:
        raise ModelError(_failure_message(model, cm, a, worst_a, worst_h, free_inputs))
    return State(cm, q, v, t, inputs=dict(values), residual=float(max(worst_a, worst_h)))


def _solve(residual, x0, n_positions, method, nudge=1e-2):
    """The least-squares solution with max |residual| <= 1 (converged), from x0 or, where x0 is a
    stationary point of |residual| (a pendulum level with its pivot: no gradient to follow), from x0
    with the coordinates nudged by +-nudge; otherwise the best found."""
    best, best_norm = x0, np.inf
    shift = np.zeros_like(x0)
    shift[:n_positions] = nudge
    for start in (x0, x0 + shift, x0 - shift):
        try:
            x = least_squares(residual, start, jac="3-point", method=method, xtol=1e-15, ftol=1e-15, gtol=1e-15,
                              max_nfev=200 * (x0.size + 1)).x
            norm = np.max(np.abs(residual(x)), initial=0.0)
        except MechsimError:            # a singular configuration on the way
            continue
        if norm < best_norm:
            best, best_norm = x, norm
        if norm <= 1.0:
            break
    return best


def _input_values(model, inputs, free_inputs):
    if not (isinstance(inputs or {}, dict) and isinstance(free_inputs or [], (list, tuple))):
        raise ModelError(f"trim(): inputs must be a dict {{input: value}} and free_inputs a list of input names, "
                         f"got inputs={inputs!r}, free_inputs={free_inputs!r}")
    values = dict(model.inputs)
    for name in list(inputs or {}) + list(free_inputs or []):
        if not isinstance(name, str) or name not in model.inputs:
            raise MechsimError(f"trim(): unknown input {name!r}; the model's inputs are "
                               f"{', '.join(model.inputs) or 'none (declare them with m.add_input)'}")
    for name, value in (inputs or {}).items():
        if not is_number(value):
            raise ModelError(f"trim(): input {name!r} must be a finite number, got {value!r}")
    values.update({name: float(value) for name, value in (inputs or {}).items()})
    return values


def _split_fixed(cm, fixed):
    """(position items, velocity items) of a fixed argument: velocity names ("j.v", "j.v[i]") apart."""
    if fixed is None:
        return None, None
    positions, velocities = {}, {}
    for name, value in fixed_items(fixed, FIXED):
        is_velocity = name in cm.v_names or (str(name).endswith(".v") and str(name)[:-2] in cm.joint_v)
        (velocities if is_velocity else positions)[name] = value
    return positions, velocities


def _failure_message(model, cm, a, worst_a, worst_h, free_inputs):
    where = cm.v_names[int(np.argmax(np.abs(a)))] if a.size else ""
    return (f"trim(): no equilibrium of '{model.name}' found near its initial state: the largest acceleration "
            f"left is {worst_a:.3g} (at '{where}'), the largest constraint error {worst_h:.3g}; "
            + ("free an input (free_inputs=), " if not free_inputs else "free other inputs, ")
            + "hold fewer coordinates in fixed, or start from other q0")
