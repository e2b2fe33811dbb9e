"""Frictional impacts by Newton's law with Coulomb friction and by Smith's law (modeling/contacts.py
``impact_law``; simulation/hybrid/impulses.py contact_impact) against an independent derivation: the double
pendulum of point masses of Gillespie et al. (2005, §6, Table II) striking a conveyor belt.

The oracle (written here, not from mechsim): absolute angles th1, th2 from the downward vertical, rods
l1 = l2 = 1 m, masses m1 = m2 = 1 kg; M(th) = [[(m1 + m2) l1^2, m2 l1 l2 c], [m2 l1 l2 c, m2 l2^2]],
c = cos(th1 - th2); the tip P2 at (l1 sin th1 + l2 sin th2, -l1 cos th1 - l2 cos th2), its velocity
J w with the rows t = x and n = y of J = [[l1 cos th1, l2 cos th2], [l1 sin th1, l2 sin th2]]. An
impact on the belt y = -d (moving at vb along x) keeps th and changes w by M^-1 J^T P, P = (P_t, P_n);
in contact coordinates the velocities change by W P, W = J M^-1 J^T, with v_n+ = -e v_n- and:
  - sticking, v_t+ = vb, when that impulse has |P_t| <= mu_s P_n;
  - else sliding with P_t = -mu_k P_n s: Newton/Coulomb s = sign(a), a = v_t- - vb the slip before;
    Smith (1991, eq. 15) s = (a + b) / (|a| + |b|), b = v_t+ - vb the slip after (a root in s of
    [-1, 1], found by brentq).
"""
import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

import mechsim as ms

L1 = L2 = 1.0
M1 = M2 = 1.0
D, G, VB = 1.2, 9.81, 2.5                           # Table II
START = np.array([-np.pi / 9, -4 * np.pi / 9, 3.0, -0.3])
PART, BELT = (0.9, 0.4978, 0.4), (0.0, 0.2489, 0.2)  # (e, mu_s, mu_k) of the part and of the bare belt
T_PART = 0.45              # the part leaves the tip's reach (ours: the paper gives no layout of the parts)


# ------------------------------------------------------------------------------ the oracle
def mass_matrix(th):
    c = np.cos(th[0] - th[1])
    return np.array([[(M1 + M2) * L1 ** 2, M2 * L1 * L2 * c], [M2 * L1 * L2 * c, M2 * L2 ** 2]])


def jacobian(th):
    return np.array([[L1 * np.cos(th[0]), L2 * np.cos(th[1])], [L1 * np.sin(th[0]), L2 * np.sin(th[1])]])


def bias(th, w):
    """h of M w' + h = J^T P: the velocity product and gravity terms."""
    s = np.sin(th[0] - th[1])
    return np.array([M2 * L1 * L2 * s * w[1] ** 2 + (M1 + M2) * G * L1 * np.sin(th[0]),
                     -M2 * L1 * L2 * s * w[0] ** 2 + M2 * G * L2 * np.sin(th[1])])


def free_flight(t, y):
    return np.concatenate([y[2:], np.linalg.solve(mass_matrix(y[:2]), -bias(y[:2], y[2:]))])


def tip(y):
    th, w = y[:2], y[2:]
    return np.array([L1 * np.sin(th[0]) + L2 * np.sin(th[1]), -L1 * np.cos(th[0]) - L2 * np.cos(th[1])]), \
        jacobian(th) @ w


def impact(y, e, mu_s, mu_k, law, vb=VB):
    """w+ after the tip strikes the belt (module docstring)."""
    th, w = y[:2], y[2:]
    J, Minv = jacobian(th), np.linalg.inv(mass_matrix(th))
    W = J @ Minv @ J.T
    a, vn = J[0] @ w - vb, J[1] @ w
    P = np.linalg.solve(W, [-a, -(1 + e) * vn])
    if abs(P[0]) <= mu_s * P[1]:
        return w + Minv @ J.T @ P

    def impulse(s):                                # P_t = -mu_k P_n s with v_n+ = -e v_n-
        Pn = -(1 + e) * vn / (W[1, 1] - mu_k * s * W[1, 0])
        return np.array([-mu_k * Pn * s, Pn])

    def smith(s):
        b = a + W[0] @ impulse(s)
        return s - (a + b) / (abs(a) + abs(b))

    s = np.sign(a) if law == "newton" else brentq(smith, -1.0, 1.0, xtol=1e-15)
    return w + Minv @ J.T @ impulse(s)


def kinetic_energy(y):
    return 0.5 * y[2:] @ mass_matrix(y[:2]) @ y[2:]


# ------------------------------------------------------------------------------ mechsim
def pendulum(law, material=PART, d=D, vb=VB, start=START):
    """Table II in mechsim: relative joint angles q1 = th1, q2 = th2 - th1; the point masses at the rods'
    ends (no inertia of their own); the tip a point contact on the belt plane y = -d."""
    e, mu_s, mu_k = material
    m = ms.Model("conveyor", gravity=(0, -G, 0))
    m.add_body("rod1", mass=M1, com=(0, -L1, 0), inertia=(0, 0, 0))
    m.add_body("rod2", mass=M2, com=(0, -L2, 0), inertia=(0, 0, 0))
    m.add_joint("j1", "revolute", parent="ground", child="rod1", axis=(0, 0, 1), q0=start[0], v0=start[2])
    m.add_joint("j2", "revolute", parent="rod1", child="rod2", parent_frame=(0, -L1, 0), axis=(0, 0, 1),
                q0=start[1] - start[0], v0=start[3] - start[2])
    m.add_contact("belt", body="rod2", point=(0, -L2, 0), origin=(0, -d, 0), normal=(0, 1, 0),
                  surface_velocity=vb, restitution=e, static=mu_s, kinetic=mu_k, impact_law=law)
    return m


def absolute(res, k):
    """Oracle state (th1, th2, w1, w2) of Result sample k."""
    q1, q2, v1, v2 = res["j1.q"][k], res["j2.q"][k], res["j1.v"][k], res["j2.v"][k]
    return np.array([q1, q1 + q2, v1, v1 + v2])


def impact_samples(res):
    """Indices (before, after) of the Result's samples at each impact (the same time twice)."""
    times = {e.time for e in res.events if e.kind == "impact"}
    return [(k, k + 1) for k in np.flatnonzero(np.diff(res.t) == 0) if res.t[k] in times]


def sliding(t, y):
    """The tip sliding on the belt (y = -d held by the normal force N, kinetic friction -mu_k N sign(slip)):
    [[M, -(J_n + sigma J_t)^T], [J_n, 0]] [w'; N] = [-h; -(l1 cos th1 w1^2 + l2 cos th2 w2^2)]."""
    th, w = y[:2], y[2:]
    J = jacobian(th)
    sigma = -BELT[2] * np.sign(J[0] @ w - VB)
    K = np.zeros((3, 3))
    K[:2, :2], K[:2, 2], K[2, :2] = mass_matrix(th), -(J[1] + sigma * J[0]), J[1]
    x = np.linalg.solve(K, [*-bias(th, w), -(L1 * np.cos(th[0]) * w[0] ** 2 + L2 * np.cos(th[1]) * w[1] ** 2)])
    return np.concatenate([w, x[:2]])


def oracle_run(law):
    """[(impact time, state after)] of the three strikes, and the time the slip on the belt ends."""
    y, t, strikes = START.copy(), 0.0, []
    hit = lambda t, y: tip(y)[0][1] + D
    hit.terminal, hit.direction = True, -1
    for material in (PART, PART, BELT):
        flight = solve_ivp(free_flight, (t, 1.0), y, events=hit, method="DOP853", rtol=1e-12, atol=1e-12)
        t, y = flight.t_events[0][0], flight.y_events[0][0]
        y = np.concatenate([y[:2], impact(y, *material, law)])
        strikes.append((t, y))
    stuck = lambda t, y: tip(y)[1][0] - VB
    stuck.terminal = True
    slide = solve_ivp(sliding, (t, 2.0), y, events=stuck, method="DOP853", rtol=1e-12, atol=1e-12)
    return strikes, slide.t_events[0][0]


# ------------------------------------------------------------------------------ tests
@pytest.mark.parametrize("law", ["newton", "smith"])
def test_table_ii_strikes_match_the_independent_derivation(law):
    """Two rebounds on the part (e = 0.9, sticking impulses: both laws alike); the part gone at 0.45 s; a
    plastic strike on the bare belt whose sticking impulse lies outside the cone: Coulomb's impulse along
    the slip before reverses it (slip +0.029 -> -0.524 m/s), Smith's mean direction does not overshoot
    (-> -0.195 m/s); the tip slides on the belt until the belt carries it again (Smith: at 0.860 s; the
    paper, with its fixed 0.01 s steps: 0.88 s). Impact and sticking times to 1e-9 s, velocities to 1e-9."""
    m = pendulum(law)
    m.add_event(lambda t, s: t - T_PART, direction=1, name="bare belt",
                action=lambda sim, t, s: sim.set("belt", restitution=BELT[0], static=BELT[1], kinetic=BELT[2]))
    res = m.simulate(t_end=1.1, solver="DOP853", rtol=1e-12, atol=1e-12)
    assert res.success, res.message
    strikes, t_stick = oracle_run(law)
    samples = impact_samples(res)
    assert len(samples) == 3
    for (t_k, y_k), (before, after) in zip(strikes, samples):
        assert abs(res.t[after] - t_k) < 1e-9
        np.testing.assert_allclose(absolute(res, after), y_k, atol=1e-9)
    slip_after = tip(strikes[2][1])[1][0] - VB
    assert slip_after == pytest.approx(-0.5239 if law == "newton" else -0.1952, abs=1e-4)
    sticks = [e.time for e in res.events if e.kind == "stick" and e.time > strikes[2][0]]
    assert sticks and abs(sticks[0] - t_stick) < 1e-9


def test_smith_never_gives_energy_and_agrees_with_the_oracle():
    """Random strikes of the pendulum on a floor at rest (no belt to feed energy in): the kinetic energy
    after a Smith impact never exceeds that before, for e in [0, 1] and mu up to 1.5; mechsim's post-
    impact velocities equal the oracle's (1e-9). Where Coulomb's sliding impulse would reverse the slip,
    the laws differ; where it does not, they agree."""
    rng = np.random.default_rng(3)
    differ = agree = 0
    for _ in range(16):
        th = np.array([rng.uniform(-0.6, 0.6), rng.uniform(-1.2, 1.2)])
        tip_velocity = [rng.uniform(-0.5, 0.5), rng.uniform(-3.0, -1.0)]      # slow slips reverse more often
        start = np.concatenate([th, np.linalg.solve(jacobian(th), tip_velocity)])
        (x, y), _ = tip(start)
        e, mu = rng.uniform(0, 1), rng.uniform(0.05, 1.5)
        material = (e, mu, mu)
        m = pendulum("smith", material, d=-y + 1e-3, vb=0.0, start=start)
        res = m.simulate(t_end=0.3, solver="DOP853", rtol=1e-12, atol=1e-12)
        samples = impact_samples(res)
        if not samples:
            continue                                  # it swung away without striking
        before, after = samples[0]
        y_before = absolute(res, before)
        y_after = np.concatenate([y_before[:2], impact(y_before, *material, "smith", vb=0.0)])
        np.testing.assert_allclose(absolute(res, after), y_after, atol=1e-9)
        assert kinetic_energy(y_after) <= kinetic_energy(y_before) * (1 + 1e-12)
        coulomb = np.concatenate([y_before[:2], impact(y_before, *material, "newton", vb=0.0)])
        reversed_slip = tip(coulomb)[1][0] * tip(y_before)[1][0] < 0
        if np.allclose(coulomb, y_after, atol=1e-12):
            agree += 1
        else:
            differ += 1
            assert reversed_slip
    assert agree and differ                           # both kinds of strike were met


def test_impact_law_is_checked():
    with pytest.raises(ms.ModelError, match="contact 'belt': impact_law must be one of 'newton', 'smith', got "
                                            "'poisson'"):
        pendulum("poisson")
    m = ms.Model()
    m.add_body("b", mass=1.0, inertia=(1, 1, 1))
    m.add_joint("j", "free", parent="ground", child="b")
    with pytest.raises(ms.ModelError, match="impact_law is not for a compliant contact"):
        m.add_contact("c", body="b", model="compliant", stiffness=1e5, impact_law="smith")
