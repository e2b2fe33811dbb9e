"""Kinematics of a fully driven machine (SPEC C6, ``m.kinematics``; Schlotter 2003, §3.4, "Kinematics"
mode): every degree of freedom follows a driver, so the motion comes from the constraints alone —
positions by Newton on g(q, t) = 0 continued from sample to sample, velocities from G v = f'
(Wood & Kennedy 2003, eq. 48 with zero perturbation) — and the forces from the equations of motion at that
motion: the Result's lazy signals give the accelerations (G a = gamma), the drivers' forces, the
multipliers and every joint's reaction, as for a forward-dynamics run.
"""
import numpy as np

from ..assembly.assemble import solve_positions, solve_velocities
from ..dynamics.kernels import normalize_quaternions
from ..dynamics.projection import integrate_coordinates
from ..errors import MechsimError, ModelError, SimulationError
from ..results.result import Mode, Outcome, Result
from ..simulation.run_inputs import input_sources


def kinematics(model, t_eval, inputs=None):
    """A Result over ``t_eval`` for a model whose drivers take up every degree of freedom; inputs
    (name -> number or callable of t) set the force elements' inputs (default: their defaults)."""
    t_eval = np.asarray(t_eval, dtype=float).ravel()
    if t_eval.size == 0 or np.any(np.diff(t_eval) <= 0) or not np.all(np.isfinite(t_eval)):
        raise MechsimError("kinematics(): t_eval must be a non-empty increasing sequence of times")
    cm = model.compile()
    sources = input_sources(model, inputs, "kinematics()")
    state = model.assemble(t=t_eval[0])
    _require_fully_driven(model, cm, state.analysis)
    active = None if state.analysis is None else state.analysis.active     # the rows the motion keeps
    free = np.arange(cm.nv)
    Q, V = [state.q], [state.v]
    for k in range(1, t_eval.size):
        q = Q[-1].copy()                                    # predictor: q(t_k-1) (+) v dt
        integrate_coordinates(cm.node_i, q, V[-1] * (t_eval[k] - t_eval[k - 1]))
        normalize_quaternions(cm.quat_q, q)
        try:
            q = solve_positions(cm, q, V[-1], t_eval[k], free)
        except ModelError as exc:
            partial = _result(cm, (t_eval[:k], Q, V, active), sources, False, str(exc))
            raise SimulationError(f"kinematics of '{model.name}' failed at t = {t_eval[k]:.6g}: {exc}",
                                  partial=partial) from None
        Q.append(q)
        V.append(solve_velocities(cm, q, V[-1], t_eval[k], free, active))
    return _result(cm, (t_eval, Q, V, active), sources, True, "ok")


def _require_fully_driven(model, cm, analysis):
    dof = cm.nv if analysis is None else analysis.dof
    if dof > 0:
        driven = {d.joint for d in model.drivers.values()}
        undriven = [j for j in cm.joint_order if model.joints[j].nv and j not in driven]
        raise ModelError(f"kinematics(): '{model.name}' has {dof} degree(s) of freedom left that no driver "
                         f"prescribes; add drivers (m.add_driver) on {dof} more joint coordinate(s), e.g. of "
                         f"{', '.join(undriven[:4])}, or simulate it instead")


def _result(cm, motion, sources, success, message):
    """The Result of the ``motion`` (times, positions Q, velocities V, the active rows)."""
    times, Q, V, active = motion
    values = {}
    U = []
    for t in times:
        values.update({name: source(t) for name, source in sources.items()})
        U.append(cm.force_values(t, values or None))
    return Result(cm, times, np.array(Q), np.array(V), np.array(U).reshape(len(times), cm.n_slots),
                  mode=Mode(active), outcome=Outcome(success, message))
