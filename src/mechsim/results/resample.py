"""A run's Result at other times than its samples (the frames of an animation, viz/animate.py)."""
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
    return _hermite(res, times)


def _hermite(res, times):
    cm, t = res._cm, res.t
    k0 = np.clip(np.searchsorted(t, times, side="right") - 1, 0, len(t) - 1)
    k1 = np.minimum(k0 + 1, len(t) - 1)
    h = t[k1] - t[k0]
    s = np.divide(times - t[k0], h, out=np.ones_like(times), where=h > 0)[:, None]
    h = h[:, None]
    rates = _rates(cm, res.q, res.v, np.union1d(k0, k1))
    q = ((2 * s ** 3 - 3 * s ** 2 + 1) * res.q[k0] + (s ** 3 - 2 * s ** 2 + s) * h * rates[k0]
         + (3 * s ** 2 - 2 * s ** 3) * res.q[k1] + (s ** 3 - s ** 2) * h * rates[k1])
    for row in q:
        normalize_quaternions(cm.quat_q, row)
    linear = lambda a: (1 - s) * a[k0] + s * a[k1]
    return Result(cm, times, q, linear(res.v), linear(res.u_force), tau=linear(res.tau), mode=res.mode,
                  outcome=Outcome(res.success, res.message))


def _rates(cm, Q, V, samples):
    """qdot = H(q) v at the given sample indices (other rows left zero)."""
    rates = np.zeros_like(Q)
    for k in samples:
        kinematic_map(cm.node_i, np.ascontiguousarray(Q[k]), np.ascontiguousarray(V[k]), rates[k])
    return rates
