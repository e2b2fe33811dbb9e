"""A prescribed scalar motion of time with its first two derivatives: what a driver makes a joint coordinate
follow and a distance constraint's length (SPEC §3)."""
import numpy as np

from ...errors import ModelError
from ...expressions import Expression

FINITE_HINT = "give a motion that stays finite over the run"
BISECTIONS = 60            # halvings of a sign change between two samples: to round-off of t
POLE_GROWTH = 1e6          # a sign change whose values grow by this much as it is bisected is a pole


class Motion:
    """A prescribed scalar motion f(t) with its first two derivatives. Given the position only, the
    derivatives are taken by Richardson-extrapolated central differences (error O(h^4)); given only
    the velocity or only the acceleration, the position is its integral from the value at t = 0."""

    H1, H2 = 1e-3, 5e-3        # difference steps for the first and second derivative (relative to 1 + |t|)
    SAMPLES = 1025             # times at which check_span looks at the motion
    RATE_TOLERANCE = 0.1       # a given velocity or acceleration off its differenced counterpart by more is wrong
    POSITION_LIMIT = 2.0 ** 53   # beyond it a float64 coordinate no longer resolves a unit: the motion overflows

    def __init__(self, position, velocity, acceleration, what, q0=0.0, v0=0.0,
                 quantities=("position", "velocity", "acceleration")):
        self.what, self.quantities = what, quantities
        self.sources = (position, velocity, acceleration)
        self.constant = position.constant if position is not None and velocity is None and acceleration is None \
            and position.is_constant else None
        self.q0, self.v0 = q0, v0

    @property
    def is_constant(self):
        return self.constant is not None

    def position(self, t):
        p, v, a = self.sources
        if p is not None:
            return p(t)
        if v is not None:
            return self.q0 + _integral(v, t)
        return self.q0 + self.v0 * t + _integral(lambda s: (t - s) * a(s), t)

    def velocity(self, t):
        p, v, a = self.sources
        if v is None and p is None:
            return self.v0 + _integral(a, t)
        return self._rate(1, t)

    def acceleration(self, t):
        return self._rate(2, t)

    def _rate(self, k, t):
        """Quantity k (1 velocity, 2 acceleration) at t as given, else differentiated from the lowest one given
        below it."""
        if self.sources[k] is not None:
            return self.sources[k](t)
        if self.sources[k - 1] is not None:
            return _derivative(self.sources[k - 1], t, self.H1 * (1 + abs(t)))
        return _second_derivative(self.sources[k - 2], t, self.H2 * (1 + abs(t)))

    def __call__(self, t):
        """(f, f', f'') at t."""
        if self.is_constant:
            return self.constant, 0.0, 0.0
        values = (self.position(t), self.velocity(t), self.acceleration(t))
        if not np.all(np.isfinite(values)):
            raise ModelError(f"{self.what}: the prescribed motion is not finite at t = {t:.6g}")
        return values

    def check_span(self, t0, t_end):
        """ModelError naming the motion if, sampled over [t0, t_end] (and from 0, where the integrals
        start), its position, velocity or acceleration is not finite, its position grows beyond
        POSITION_LIMIT or a given velocity or acceleration is not the rate of what is given below it: a run
        would crawl at ever smaller steps instead of failing."""
        if self.is_constant:
            return
        t = np.linspace(min(t0, 0.0), t_end, self.SAMPLES)
        self._check_values(t)
        self._check_rates(t)

    def _check_values(self, t):
        """ModelError at the first time the motion is not finite (at a sample, or at a pole of a given
        quantity between samples) or its position overflows."""
        with np.errstate(all="ignore"):
            found = [self._first_problem(k, t, x) for k, x in enumerate(self._sampled(t)) if x is not None]
        found = [problem for problem in found if problem is not None]
        if found:
            raise ModelError(f"{self.what}: the motion given by {self._given()} {min(found)[1]}")

    def _first_problem(self, k, t, x):
        """(time, what is wrong) of quantity k sampled as x at the times t: its first value that is not finite
        or (a position) overflows, or a pole of a given quantity between samples; None if neither."""
        quantity, found = self.quantities[k], []
        bad = ~np.isfinite(x) | (k == 0) & (np.abs(x) > self.POSITION_LIMIT)
        i = np.argmax(bad)
        if bad[i] and np.isfinite(x[i]):
            found.append((t[i], f"overflows: its {quantity} reaches {x[i]:.3g} at t = {t[i]:.6g}, beyond "
                                f"{self.POSITION_LIMIT:.3g} where coordinates no longer resolve a unit; give a motion "
                                "of sensible size"))
        elif bad[i]:
            found.append((t[i], f"is not finite: its {quantity} is {x[i]} at t = {t[i]:.6g}; {FINITE_HINT}"))
        pole = None if self.sources[k] is None else _pole(self.sources[k], t, x)
        if pole is not None:
            found.append((pole, f"is not finite: its {quantity} changes sign through infinity at t = {pole:.6g}; "
                                f"{FINITE_HINT}"))
        return min(found, default=None)

    def _check_rates(self, t):
        """A given velocity or acceleration against the differences of the quantity given below it, at the
        times t: wrong where most disagree (a switching motion disagrees near its jumps only)."""
        for k in (1, 2):
            lower, given = self.sources[k - 1], self.sources[k]
            if lower is None or given is None:
                continue
            with np.errstate(all="ignore"):
                rate = _derivative(lambda s: _source_values(lower, s), t, self.H1 * (1 + np.abs(t)))
                value = _source_values(given, t)
                off = ~(np.abs(value - rate) <= self.RATE_TOLERANCE * np.maximum(np.abs(value), np.abs(rate)) + 1e-9)
            if off.mean() > 0.5:
                i = np.argmax(off)
                below = self.quantities[k - 1]
                raise ModelError(f"{self.what}: its {self.quantities[k]} {_described(given)} is not the rate of its "
                                 f"{below} {_described(lower)}: {value[i]:.6g} against {rate[i]:.6g} at t = "
                                 f"{t[i]:.6g}; give ones that agree, or the {below} alone")

    def _sampled(self, t):
        """[position, velocity, acceleration] at the times t: each given one sampled, each one that the
        motion integrates its integral (trapezoidal rule, from the value at t = 0), the others (derivatives) None."""
        values = [None if source is None else _source_values(source, t) for source in self.sources]
        if values[0] is None and values[1] is None:
            values[1] = self.v0 + _cumulative_integral(values[2], t)
        if values[0] is None:
            values[0] = self.q0 + _cumulative_integral(values[1], t)
        return values

    def _given(self):
        """What the motion is given by: "acceleration '1e308*t'", "position a function of t", ..."""
        return ", ".join(f"{quantity} {_described(source)}"
                         for quantity, source in zip(self.quantities, self.sources) if source is not None)


def _described(source):
    """A Source as given: its expression or number, or 'a function of t'."""
    return "a function of t" if callable(source.raw) else repr(source.raw)


def _source_values(source, t):
    """A Source's values at the times t (an expression evaluated on the whole array at once)."""
    if source.is_constant:
        return np.full(t.shape, source.constant)
    if isinstance(source.function, Expression):
        return source.function(t)
    return np.array([source(x) for x in t])


def _pole(source, t, x):
    """The first time where a source sampled as x at the times t changes sign through infinity between two
    samples (a pole, as 1/(t - c) has at c), else None: each sign change bisected to round-off, a pole
    where the values there are POLE_GROWTH times those at the samples."""
    k = np.flatnonzero(np.sign(x[:-1]) * np.sign(x[1:]) < 0)
    if not k.size:
        return None
    a, b, fa = t[k], t[k + 1], x[k]
    for _ in range(BISECTIONS):
        middle = (a + b) / 2
        f = _source_values(source, middle)
        left = np.sign(f) == np.sign(fa)
        a, fa, b = np.where(left, middle, a), np.where(left, f, fa), np.where(left, b, middle)
    fb = _source_values(source, b)
    grew = np.minimum(np.abs(fa), np.abs(fb)) > POLE_GROWTH * np.maximum(np.abs(x[k]), np.abs(x[k + 1]))
    return float(a[grew][0]) if grew.any() else None


def _cumulative_integral(f, t):
    """The integral of the samples f from 0 to each time t (trapezoidal rule)."""
    integral = np.concatenate([[0.0], np.cumsum((f[1:] + f[:-1]) / 2 * np.diff(t))])
    return integral - np.interp(0.0, t, integral)


def _integral(f, t):
    """The integral of f from 0 to t (adaptive quadrature)."""
    from scipy.integrate import quad        # imported here, not at start-up: scipy.integrate takes ~0.4 s
    return quad(f, 0.0, t, epsabs=1e-13, epsrel=1e-12, limit=200)[0]


def _derivative(f, t, h):
    """f'(t) by central differences at h and h/2, Richardson-extrapolated."""
    d1 = (f(t + h) - f(t - h)) / (2 * h)
    d2 = (f(t + h / 2) - f(t - h / 2)) / h
    return (4 * d2 - d1) / 3


def _second_derivative(f, t, h):
    """f''(t) by second central differences at h and h/2, Richardson-extrapolated."""
    f0 = f(t)
    d1 = (f(t + h) - 2 * f0 + f(t - h)) / h ** 2
    d2 = (f(t + h / 2) - 2 * f0 + f(t - h / 2)) / (h / 2) ** 2
    return (4 * d2 - d1) / 3
