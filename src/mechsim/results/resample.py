"""A run's Result at other times than its samples: the frames of an animation (viz/animate.py), more
times between its samples for a plot (viz/plot.py)."""
import numpy as np

from ..dynamics.kernels import kinematic_map, normalize_quaternions
from ..errors import MechsimError
from .result import JoinedResult, Outcome, Result


def resample(res, times):
    """The Result of the same run at ``times`` (within its first and last sample): the coordinates q
    by cubic Hermite interpolation between the two samples around each time, with the rates
    qdot = H(q) v at both (quaternions renormalized after), so that the error is O(h^4) in the
    sample spacing h; v, the force values and tau linearly. A JoinedResult resamples its parts."""
    times = np.asarray(times, dtype=float).ravel()
    if not len(res.t):
        raise MechsimError("the result has no samples")
    slack = 1e-9 * max(1.0, abs(res.t[-1]))
    if times.size and (times.min() < res.t[0] - slack or times.max() > res.t[-1] + slack):
        raise MechsimError(f"times {times.min():g} to {times.max():g} s lie outside the result's "
                           f"{res.t[0]:g} to {res.t[-1]:g} s")
    times = np.clip(times, res.t[0], res.t[-1])
    if isinstance(res, JoinedResult):
        part = np.minimum(np.searchsorted([p.t[-1] for p in res.parts], times), len(res.parts) - 1)
        # a time between two parts (a t_eval grid leaves the switch between them unsampled) takes the first
        # sample of the part after it
        return JoinedResult([resample(p, np.clip(times[part == i], p.t[0], p.t[-1]))
                             for i, p in enumerate(res.parts) if np.any(part == i)])
    k0 = np.clip(np.searchsorted(res.t, times, side="right") - 1, 0, len(res.t) - 1)
    h = res.t[np.minimum(k0 + 1, len(res.t) - 1)] - res.t[k0]
    return _hermite(res, k0, np.divide(times - res.t[k0], h, out=np.ones_like(times), where=h > 0))


def densify(res, tolerance=3e-4, most=20_000):
    """The Result of the same run with times added between its samples wherever a straight segment
    between two of them strays from the motion by more than ``tolerance`` times a coordinate's range
    over the run (for drawing: a flight's parabola as a curve, a phase portrait as a smooth loop).
    Every sample is kept as it is (both of an impact's pair); at the added times q and v are cubic
    Hermite between the samples around them, with their rates qdot = H(q) v and vdot from the
    dynamics. The cubic through a step of length h strays from the chord by at most
    h max(|ydot0 - c|, |ydot1 - c|) / 4, c the chord's slope (h^2 |yddot| / 8 on a parabola), and by
    the square of the spacing less once split: a step gets ceil(sqrt(stray / (tolerance * range))) - 1
    times; at most ``most`` in all (fewer in each step when more are asked)."""
    if not len(res.t):
        raise MechsimError("the result has no samples")
    parts = res.parts if isinstance(res, JoinedResult) else [res]
    states = np.hstack([res.q, res.v])
    scale = tolerance * np.maximum(np.ptp(states, axis=0), 1e-9 * (1.0 + np.abs(states).max(axis=0)))
    rates = [_state_rates(part) for part in parts]
    added = [_times_wanted(part.t, np.hstack([part.q, part.v]), rate, scale) for part, rate in zip(parts, rates)]
    total = sum(int(a.sum()) for a in added)
    if total > most:
        added = [a * most // total for a in added]
    dense = [_hermite(part, *_steps_split(part, a), rate) for part, a, rate in zip(parts, added, rates)]
    if isinstance(res, JoinedResult):
        return JoinedResult(dense, Outcome(res.success, res.message, res.events, res.stats))
    dense[0].events, dense[0].stats = res.events, res.stats
    return dense[0]


def _state_rates(res):
    """(qdot, vdot) at every sample, side by side; where the dynamics cannot give vdot (a failed run's
    last samples), the slope of v to the next sample."""
    vdot = res._node_dynamics()[0].copy()
    missing = np.isnan(vdot).any(axis=1)
    if missing.any():
        h = np.maximum(np.diff(res.t, append=res.t[-1]), 1e-300)[:, None]
        vdot[missing] = (np.diff(res.v, axis=0, append=res.v[-1:]) / h)[missing]
    return np.hstack([_rates(res._cm, res.q, res.v, range(len(res.t))), vdot])


def _times_wanted(t, y, ydot, scale):
    """How many times each step needs inside it (densify), for states y with rates ydot at times t."""
    h = np.diff(t)[:, None]
    slope = np.divide(np.diff(y, axis=0), h, out=np.zeros_like(y[1:]), where=h > 0)
    stray = h * np.maximum(np.abs(ydot[:-1] - slope), np.abs(ydot[1:] - slope)) / 4
    wanted = np.ceil(np.sqrt((stray / scale).max(axis=1, initial=0.0))) - 1
    return np.maximum(wanted, 0).astype(int)


def _steps_split(res, added):
    """(k0, s) of every sample of ``res`` followed by ``added[k]`` times evenly inside its step to the next."""
    per_sample = np.append(added, 0) + 1
    k0 = np.repeat(np.arange(len(res.t)), per_sample)
    first = np.repeat(np.cumsum(per_sample) - per_sample, per_sample)
    return k0, (np.arange(len(k0)) - first) / np.repeat(per_sample, per_sample)


def _hermite(res, k0, s, rates=None):
    """The Result at the fractions ``s`` of the steps from samples ``k0`` to the next: q cubic Hermite
    (module docstring); v too when ``rates``, (qdot, vdot) side by side at every sample, are given,
    else linear."""
    cm, t = res._cm, res.t
    k1 = np.minimum(k0 + 1, len(t) - 1)
    h = (t[k1] - t[k0])[:, None]
    s = s[:, None]
    cubic = lambda y, ydot: ((2 * s ** 3 - 3 * s ** 2 + 1) * y[k0] + (s ** 3 - 2 * s ** 2 + s) * h * ydot[k0]
                             + (3 * s ** 2 - 2 * s ** 3) * y[k1] + (s ** 3 - s ** 2) * h * ydot[k1])
    linear = lambda a: (1 - s) * a[k0] + s * a[k1]
    q = cubic(res.q, _rates(cm, res.q, res.v, np.union1d(k0, k1)) if rates is None else rates[:, :cm.nq])
    for row in q:
        normalize_quaternions(cm.quat_q, row)
    v = linear(res.v) if rates is None else cubic(res.v, rates[:, cm.nq:])
    return Result(cm, t[k0] + s[:, 0] * h[:, 0], q, v, linear(res.u_force), tau=linear(res.tau),
                  mode=res.mode, outcome=Outcome(res.success, res.message))


def _rates(cm, Q, V, samples):
    """qdot = H(q) v at the given sample indices (other rows left zero)."""
    rates = np.zeros_like(Q)
    for k in samples:
        kinematic_map(cm.node_i, np.ascontiguousarray(Q[k]), np.ascontiguousarray(V[k]), rates[k])
    return rates
