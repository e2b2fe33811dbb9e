"""Joint friction from a coefficient and the joint's load (joint_friction mu=, radius=; issue 10): the
levels are F + mu r |F_perp| (a revolute pin of radius r) or F + mu |F_perp| (a prismatic guide), F_perp
the reaction the joint transmits across its axis. Closed forms where the load is known in advance, an
independent integration where it depends on the friction itself."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import mechsim as ms
from mechsim.simulation.hybrid import iteration
from mechsim.simulation.hybrid.complementarity import complementarity

G = 9.81
TIGHT = dict(solver="DOP853", rtol=1e-11, atol=1e-12)


def wheel(mu=(0.4, 0.3), r=0.02, m=3.0, J=0.05, k=2.0):
    """A balanced wheel (centre of mass on its axle, z) on a pin of radius r, turned by a torque k t: the
    pin carries the weight m g, whatever the motion."""
    model = ms.Model("wheel", gravity=(0, -G, 0))
    model.add_body("wheel", mass=m, inertia=(J / 2, J / 2, J))
    model.add_joint("axle", "revolute", "ground", "wheel", axis=(0, 0, 1))
    model.add_force("drive", "joint_force", joint="axle", value=f"{k}*t")
    model.add_force("pin", "joint_friction", joint="axle", mu=list(mu), radius=r)
    return model


def test_balanced_wheel_breaks_away_at_mu_s_r_m_g_and_spins_up_against_mu_k_r_m_g():
    mu, r, m, J, k = (0.4, 0.3), 0.02, 3.0, 0.05, 2.0
    t_unlock = mu[0] * r * m * G / k                          # k t = mu_s r m g
    res = wheel(mu, r, m, J, k).simulate(t_end=1.0, t_eval=np.linspace(0, 1.0, 101), **TIGHT)
    assert res.success, res.message
    unlocks = [e.time for e in res.events if e.kind == "unlock"]
    assert len(unlocks) == 1 and abs(unlocks[0] - t_unlock) < 1e-9
    t = res.t
    slipping = t > t_unlock
    # J w' = k t - mu_k r m g from t_unlock
    w = (k / 2 * (t ** 2 - t_unlock ** 2) - mu[1] * r * m * G * (t - t_unlock)) / J
    np.testing.assert_allclose(res["axle.v"][slipping], w[slipping], atol=1e-9)
    np.testing.assert_allclose(res["axle.q"][~slipping], 0.0, atol=1e-13)             # stuck: no creep
    np.testing.assert_allclose(res["pin.force"][slipping], -mu[1] * r * m * G, rtol=1e-9)
    np.testing.assert_allclose(res["pin.force"][~slipping], -k * t[~slipping], atol=1e-9)


def test_guide_friction_follows_the_normal_load_of_weight_and_push():
    """A slider on a horizontal guide (x), weight m g and a push P down on it: the guide's load is m g + P;
    pulled by k t along x it breaks away at k t = mu_s (m g + P) and then m x'' = k t - mu_k (m g + P)."""
    mu, m, P, k = (0.5, 0.4), 2.0, 5.0, 10.0
    model = ms.Model("guide", gravity=(0, -G, 0))
    model.add_body("slider", mass=m, inertia=(0.1, 0.1, 0.1))
    model.add_joint("x", "prismatic", "ground", "slider", axis=(1, 0, 0))
    model.add_force("pull", "joint_force", joint="x", value=f"{k}*t")
    model.add_force("push", "body_force", body="slider", force=(0, -P, 0))
    model.add_force("guide", "joint_friction", joint="x", mu=list(mu))
    res = model.simulate(t_end=2.0, t_eval=np.linspace(0, 2.0, 81), **TIGHT)
    N = m * G + P
    t_unlock = mu[0] * N / k
    assert abs([e.time for e in res.events if e.kind == "unlock"][0] - t_unlock) < 1e-9
    t = res.t
    after = t > t_unlock
    x = (k / 6 * (t - t_unlock) ** 3 + (k * t_unlock - mu[1] * N) / 2 * (t - t_unlock) ** 2) / m
    np.testing.assert_allclose(res["x.q"][after], x[after], atol=1e-9)


def pendulum_with_pin_friction(mu, r, l, m, I_c, theta0):
    model = ms.Model("pendulum", gravity=(0, -G, 0))
    model.add_body("rod", mass=m, com=(0, -l, 0), inertia=(I_c, I_c, I_c))
    model.add_joint("pivot", "revolute", "ground", "rod", axis=(0, 0, 1), q0=theta0)
    model.add_force("pin", "joint_friction", joint="pivot", mu=mu, radius=r)
    return model


def reference_swing(mu, r, l, m, I_c, theta0, t_end):
    """The same pendulum integrated independently: I_O th'' = -m g l sin th - s mu r |F|, F = m (a - g) the
    pin's load, a = l th'' t - l w^2 n the centre's acceleration (n = (sin, -cos) out along the rod,
    t = (cos, sin)): |F|^2 = m^2 ((l th'' + g sin)^2 + (l w^2 + g cos)^2) for th (the load depends on th'':
    solved by Newton's method at every evaluation), until w = 0."""
    I_O = I_c + m * l * l

    def accel(th, w):
        s = np.sign(w)
        a = -m * G * l * np.sin(th) / I_O
        for _ in range(50):
            F = m * np.hypot(l * a + G * np.sin(th), l * w * w + G * np.cos(th))
            dF = m * m * l * (l * a + G * np.sin(th)) / F
            f = I_O * a + m * G * l * np.sin(th) + s * mu * r * F
            a_new = a - f / (I_O + s * mu * r * dF)
            if abs(a_new - a) < 1e-15:
                break
            a = a_new
        return a

    stop = lambda t, y: y[1] if t > 1e-9 else 1.0                              # noqa: E731
    stop.terminal, stop.direction = True, 1
    return solve_ivp(lambda t, y: [y[1], accel(y[0], y[1])], (0, t_end), [theta0, -1e-300], method="DOP853",
                     rtol=1e-12, atol=1e-14, events=stop, dense_output=True)


def test_pendulum_with_pin_friction_matches_an_independent_solution_of_its_implicit_load_and_sticks():
    """The swing from theta0 = 1 rad: the friction torque mu r |F| depends on the pin's load, which depends
    on the acceleration the friction gives: the kernels' fixed-point iteration against a Newton solve
    per evaluation in the reference. The first swing ends where w returns to zero; there
    m g l |sin th| < mu r m g (the pin's static load at rest is m g): with mu r / l = 0.6 it sticks."""
    mu, r, l, m, I_c, theta0 = 0.5, 0.3, 0.25, 1.0, 0.01, 1.0
    ref = reference_swing(mu, r, l, m, I_c, theta0, 5.0)
    t_stop, theta_stop = ref.t_events[0][0], ref.y_events[0][0][0]
    assert abs(np.sin(theta_stop)) * l < mu * r                              # the rest is within static friction
    t = np.linspace(0, t_stop, 41)
    res = pendulum_with_pin_friction(mu, r, l, m, I_c, theta0).simulate(t_end=t_stop + 0.5, t_eval=t, **TIGHT)
    assert res.success, res.message
    np.testing.assert_allclose(res["pivot.q"][:41], ref.sol(t)[0], atol=1e-8)
    locks = [e.time for e in res.events if e.kind == "lock"]
    assert len(locks) == 1 and abs(locks[0] - t_stop) < 1e-8
    assert res["pivot.q"][-1] == pytest.approx(theta_stop, abs=1e-8)


@pytest.mark.parametrize("options, message", [
    (dict(mu=0.3), "needs the pin's radius="),
    (dict(mu=[0.2, 0.3], radius=0.01), "need 0 <= kinetic <= static friction coefficients"),
    (dict(mu=[0.2, 0.1, 0.0], radius=0.01), "mu must be one coefficient or"),
    (dict(mu=0.3, radius=0.01, model="regularized"), "needs model='exact'"),
])
def test_bad_load_friction_is_refused_naming_the_element(options, message):
    model = ms.Model("m")
    model.add_body("b", mass=1.0, inertia=(0.1, 0.1, 0.1))
    model.add_joint("j", "revolute", "ground", "b", axis=(0, 0, 1))
    with pytest.raises(ms.ModelError, match=f"force 'f'.*{message}"):
        model.add_force("f", "joint_friction", joint="j", **options)


def test_radius_on_a_prismatic_guide_is_refused():
    model = ms.Model("m")
    model.add_body("b", mass=1.0, inertia=(0.1, 0.1, 0.1))
    model.add_joint("j", "prismatic", "ground", "b", axis=(1, 0, 0))
    with pytest.raises(ms.ModelError, match="radius= is the pin radius of a revolute"):
        model.add_force("f", "joint_friction", joint="j", mu=0.3, radius=0.01)


# ------------------------------------------------------------------ the complementarity solve of the modes
def stacked(F1, F2, P, m1=1.0, m2=1.0):
    """Block 1 on the ground (friction static F1, kinetic F1 / 2), block 2 on block 1 (F2, F2 / 2), block 2
    pushed by P along x; both at rest."""
    model = ms.Model("stack", gravity=(0, -G, 0))
    model.add_body("b1", mass=m1, inertia=(0.1, 0.1, 0.1))
    model.add_body("b2", mass=m2, inertia=(0.1, 0.1, 0.1))
    model.add_joint("x1", "prismatic", "ground", "b1", axis=(1, 0, 0))
    model.add_joint("x2", "prismatic", "b1", "b2", axis=(1, 0, 0))
    model.add_force("push", "body_force", body="b2", force=(P, 0, 0))
    model.add_force("f1", "joint_friction", joint="x1", static=F1, kinetic=F1 / 2)
    model.add_force("f2", "joint_friction", joint="x2", static=F2, kinetic=F2 / 2)
    return model


def started_modes(model):
    """A run's modes at its start, every friction stuck (simulation/driver.py, simulation/hybrid), before its mode
    iteration: (Modes, t0, y0 projected onto the mode's rows)."""
    from mechsim.simulation.driver import Driver
    from mechsim.simulation.simulate import checked_options, initial_state
    opts = checked_options(model, dict(t_end=1.0))
    t0, y0, analysis = initial_state(model, opts)
    driver = Driver(model, opts, t0, y0, analysis)
    driver.inputs.start(t0, y0)
    modes = driver.modes
    for lk in modes.elements.locks:
        modes.mode.lock(lk, y0[lk.qi])
    return modes, t0, modes.use_mode(t0, y0)


@pytest.mark.parametrize("F1, F2, P, mode", [
    (10.0, 5.0, 4.0, {"f1": "stuck", "f2": "stuck"}),      # P below both levels
    (10.0, 5.0, 7.0, {"f1": "stuck", "f2": +1}),           # the top slides; it drags the bottom by 5 < 10
    (3.0, 5.0, 4.0, {"f1": +1, "f2": "stuck"}),            # together: a = (4 - 3) / 2, the top held by 4 - a < 5
    (3.0, 1.0, 8.0, {"f1": "stuck", "f2": +1}),            # together would need 8 - 2.5 > 1 on the top
    (3.0, 4.0, 20.0, {"f1": +1, "f2": +1}),                # apart: together needs 11.5 > 4, the top's drag 4 > 3
])
def test_complementarity_solve_finds_the_stacked_blocks_regime_from_rest(F1, F2, P, mode):
    """The box-constrained LCP of the modes (simulation/hybrid/complementarity.py) at breakaway: each
    friction within [-F_s, F_s], stuck strictly inside; the regimes derived in the comments."""
    modes, t, y = started_modes(stacked(F1, F2, P))
    complementarity(modes.plant, modes, t, y)
    solved = modes.mode
    found = {lk.name: "stuck" if lk.row in solved.closed else solved.slip[lk.name] for lk in modes.elements.locks}
    assert found == mode
    res = stacked(F1, F2, P).simulate(t_end=0.01, t_eval=[0.005], solver="DOP853", rtol=1e-10, atol=1e-12)
    moving = {name: "stuck" if abs(res[f"x{name[1]}.v"][0]) < 1e-12 else 1 for name in ("f1", "f2")}
    assert moving == {k: v if v == "stuck" else 1 for k, v in mode.items()}    # the mode iteration agrees


def test_a_cycling_mode_iteration_falls_back_on_the_complementarity_solve(monkeypatch):
    """Made to cycle (its first rounds toggle the top friction), the mode iteration hands the decision to
    the complementarity solve, whose mode the run then follows: the top block slides at (P - F_k2) / m2."""
    original, rounds = iteration.one_change, []

    def cycling(modes, t, y, dynamics, log):
        if len(rounds) < 2:
            rounds.append(t)
            lk, mode = next(lk for lk in modes.elements.locks if lk.name == "f2"), modes.mode
            if lk.row in mode.closed:
                mode.closed.discard(lk.row)
                mode.slip[lk.name] = 1.0
            else:
                mode.lock(lk, y[lk.qi])
            return True
        return original(modes, t, y, dynamics, log)

    monkeypatch.setattr(iteration, "one_change", cycling)
    F1, F2, P = 10.0, 5.0, 7.0
    res = stacked(F1, F2, P).simulate(t_end=0.5, t_eval=[0.5], solver="DOP853", rtol=1e-10, atol=1e-12)
    assert any("complementarity solve" in e.detail for e in res.events)
    assert res["x2.q"][0] == pytest.approx(0.5 * (P - F2 / 2) * 0.25, rel=1e-9) and abs(res["x1.q"][0]) < 1e-12


def resting(shape, theta, mu):
    """A ball (radius 0.1 m, 1 kg, solid) or a flat box (0.2 m cube) resting on a plane tilted by theta:
    gravity (g sin theta, -g cos theta, 0) against the plane y = 0, friction mu_s = mu_k = mu."""
    model = ms.Model("incline", gravity=(G * np.sin(theta), -G * np.cos(theta), 0))
    model.add_body("b", mass=1.0, inertia=(0.004, 0.004, 0.004) if shape == "sphere" else (1 / 150,) * 3)
    model.add_joint("free", "free", "ground", "b", q0=[0, 0.1, 0, 1, 0, 0, 0])
    size = {"radius": 0.1} if shape == "sphere" else {"size": (0.2, 0.2, 0.2)}
    model.add_contact("c", body="b", shape=shape, normal=(0, 1, 0), static=mu, kinetic=mu, **size)
    return model


@pytest.mark.parametrize("shape, theta, mu, sticks", [
    ("sphere", 0.5, 0.2, True),      # rolling needs mu >= (2/7) tan(theta) = 0.156
    ("sphere", 0.5, 0.12, False),
    ("box", 0.3, 0.35, True),        # the flat box needs mu >= tan(theta) = 0.309
    ("box", 0.3, 0.28, False),
])
def test_complementarity_solve_keeps_contact_friction_within_its_cone(shape, theta, mu, sticks):
    """A ball or box resting on an incline: the complementarity solve's friction cones decide stick (rolling)
    or slide, at the closed-form friction need, (2/7) m g sin(theta) for the rolling ball, m g sin(theta) for
    the box; a sliding point slides down the slope (+x), against its friction force."""
    modes, t, y = started_modes(resting(shape, theta, mu))
    complementarity(modes.plant, modes, t, y)
    mode = modes.mode
    down = [c for c in modes.elements.contacts if c.row in mode.closed]
    assert down and len(down) == (1 if shape == "sphere" else 4)
    for c in down:
        if sticks:
            assert c.t1 in mode.closed and c.key not in mode.sliding
        else:
            assert c.t1 not in mode.closed
            np.testing.assert_allclose(mode.sliding[c.key], (1.0, 0.0), atol=1e-6)
