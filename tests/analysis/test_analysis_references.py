"""Issue 4 (analysis modes), the physics that must show: inverse dynamics, kinematics with driver forces
and joint reactions, linearization and trim, each compared with a derivation of its own (sympy Lagrange
equations, closed-form loop kinematics, power balance, Newton-Euler, virtual work) - never with mechsim
itself.

    1. inverse dynamics of a planar double pendulum (offsets, turned frames, products of inertia) vs sympy
       Lagrange; (N, nv) form; round trip tau(t) -> simulate -> q(t); ms.inverse_dynamics(res) on a forward
       and on a kinematics Result; joint reactions vs Newton-Euler/Euler on both links; closed loops refused;
    2. slider-crank driven at constant speed: m.kinematics vs the closed form x(theta) and its exact
       derivatives, the driver torque vs the power balance, every joint reaction vs Newton-Euler on every body;
    3. linearization: compound pendulum hanging / upright and along a Result, the pendulum on a cart of
       Schlotter 2003, eqs. 1-2 hanging and inverted, outputs (C, D), minimal vs full, python-control;
    4. trim: spring-held inverted pendulum (buckled equilibrium, input solved for), a spinning governor
       (fixed velocity), four-bar by virtual work, an impossible trim;
    5. four-bar linearized (minimal and full) vs Lagrange's equation in theta alone, in the crank angle and
       in the rocker angle (exact change of coordinates), at rest and moving.
"""
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from scipy.optimize import brentq

import mechsim as ms

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))
import cart_pendulum as cart_pendulum_example  # noqa: E402  (examples/)
import four_bar  # noqa: E402
import slider_crank  # noqa: E402

G = 9.81


def driven_double_pendulum():
    """The double pendulum with both joints driven along the prescribed motion."""
    driven = double_pendulum()
    for i, j in enumerate(("j1", "j2")):
        driven.add_driver(j, position=lambda t, i=i: motion(t)[0][..., i], velocity=lambda t, i=i: motion(t)[1][..., i],
                          acceleration=lambda t, i=i: motion(t)[2][..., i])
    return driven


def rel_err(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return np.abs(a - b).max() / max(np.abs(b).max(), 1e-300)


def rot2(angle):
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def lagrange_forces(q, qd, qdd, T, V):
    """Generalized forces d/dt dL/dqd - dL/dq (what must act to produce qdd) as a sympy vector."""
    L = T - V
    out = []
    for qi, qdi in zip(q, qd):
        p = sp.diff(L, qdi)
        dpdt = sum(sp.diff(p, a) * b for a, b in zip(q, qd)) + sum(sp.diff(p, a) * b for a, b in zip(qd, qdd))
        out.append(dpdt - sp.diff(L, qi))
    return sp.Matrix(out)


# ===================================================================================== 1. inverse dynamics
# Double pendulum in the x-y plane, both joints about world z, gravity -y. Joint 1's F frame is offset on
# the ground; joint 2's F frame ("elbow") is offset and turned by BETA about z on link 1, its M frame is
# offset on link 2. Products of inertia (Ixz, Iyz) must not enter the z torques.
P0 = (0.1, 0.2)
M1, C1, I1 = 1.3, (0.42, 0.06), (0.05, 0.09, 0.11, 0.004, -0.006, 0.003)
ELBOW, BETA = (0.9, -0.05), 0.3
M2, C2, I2 = 0.8, (0.35, -0.04), (0.02, 0.05, 0.06, -0.002, 0.005, 0.001)
PM2 = (-0.05, 0.02)


def double_pendulum(q0=(0.0, 0.0), v0=(0.0, 0.0)):
    m = ms.Model("double-pendulum", gravity=(0, -G, 0))
    elbow_rot = np.array([[np.cos(BETA), -np.sin(BETA), 0], [np.sin(BETA), np.cos(BETA), 0], [0, 0, 1]])
    m.add_body("l1", mass=M1, com=(*C1, 0.0), inertia=I1, frames={"elbow": ((*ELBOW, 0.0), elbow_rot)})
    m.add_body("l2", mass=M2, com=(*C2, 0.0), inertia=I2)
    m.add_joint("j1", "revolute", parent="ground", child="l1", parent_frame=(*P0, 0.0), axis=(0, 0, 1),
                q0=q0[0], v0=v0[0])
    m.add_joint("j2", "revolute", parent="l1", child="l2", parent_frame="elbow", child_frame=(*PM2, 0.0),
                axis=(0, 0, 1), q0=q0[1], v0=v0[1])
    return m


@lru_cache(maxsize=None)
def double_pendulum_reference():
    """tau(q, v, a) by Lagrange's equations (sympy), lambdified."""
    q, qd, qdd = sp.symbols("q1 q2"), sp.symbols("v1 v2"), sp.symbols("a1 a2")
    P = sp.Matrix(P0)
    com1 = P + rot2(q[0]) * sp.Matrix(C1)
    elbow = P + rot2(q[0]) * sp.Matrix(ELBOW)
    com2 = elbow + rot2(q[0] + BETA + q[1]) * (sp.Matrix(C2) - sp.Matrix(PM2))
    vel = lambda r: sp.Matrix([sum(sp.diff(r[i], a) * b for a, b in zip(q, qd)) for i in range(2)])  # noqa: E731
    v1, v2 = vel(com1), vel(com2)
    T = (M1 * v1.dot(v1) + I1[2] * qd[0] ** 2 + M2 * v2.dot(v2) + I2[2] * (qd[0] + qd[1]) ** 2) / 2
    V = G * (M1 * com1[1] + M2 * com2[1])
    tau = lagrange_forces(q, qd, qdd, T, V)
    f = sp.lambdify([q, qd, qdd], list(tau), "numpy")
    return lambda q_, v_, a_: np.array(f(q_, v_, a_), dtype=float)


def test_inverse_dynamics_double_pendulum_vs_lagrange():
    m = double_pendulum()
    ref = double_pendulum_reference()
    rng = np.random.default_rng(4)
    Q, V, A = rng.uniform(-3, 3, (8, 2)), rng.uniform(-4, 4, (8, 2)), rng.uniform(-10, 10, (8, 2))
    worst = 0.0
    for q, v, a in zip(Q, V, A):
        tau = ms.inverse_dynamics(m, q, v, a)
        expected = ref(q, v, a)
        assert tau.shape == (2,)
        worst = max(worst, rel_err(tau, expected))
    assert worst < 1e-10, worst
    # arrays over time: (N, nv)
    tau_N = ms.inverse_dynamics(m, Q, V, A)
    assert tau_N.shape == (8, 2)
    expected_N = np.array([ref(q, v, a) for q, v, a in zip(Q, V, A)])
    assert rel_err(tau_N, expected_N) < 1e-10


# prescribed smooth motion for the round trip
def motion(t):
    t = np.asarray(t, dtype=float)
    q = np.stack([0.2 + 0.6 * np.sin(2.1 * t), 0.3 * np.cos(3.0 * t) - 0.7 * np.sin(1.3 * t + 0.5)], axis=-1)
    v = np.stack([0.6 * 2.1 * np.cos(2.1 * t), -0.9 * np.sin(3.0 * t) - 0.7 * 1.3 * np.cos(1.3 * t + 0.5)], axis=-1)
    a = np.stack([-0.6 * 2.1 ** 2 * np.sin(2.1 * t),
                  -2.7 * np.cos(3.0 * t) + 0.7 * 1.3 ** 2 * np.sin(1.3 * t + 0.5)], axis=-1)
    return q, v, a


@lru_cache(maxsize=None)
def round_trip():
    """The torques the prescribed motion needs (ms.inverse_dynamics on the unactuated pendulum), applied as
    joint_force callables of t to the pendulum started on the motion's initial state, simulated 2 s."""
    plain = double_pendulum()
    cache = {}

    def tau(t):
        if t not in cache:
            cache.clear()
            cache[t] = ms.inverse_dynamics(plain, *motion(t))
        return cache[t]

    q0, v0, _ = motion(0.0)
    m = double_pendulum(q0, v0)
    m.add_force("motor1", "joint_force", joint="j1", value=lambda t: tau(t)[0])
    m.add_force("motor2", "joint_force", joint="j2", value=lambda t: tau(t)[1])
    t_eval = np.linspace(0.0, 2.0, 201)
    res = m.simulate(t_end=2.0, t_eval=t_eval, solver="DOP853", rtol=1e-10, atol=1e-12)
    return m, plain, res


def test_inverse_dynamics_round_trip_recovers_the_motion():
    m, plain, res = round_trip()
    q, v, a = motion(res.t)
    # the torques from inverse dynamics are Lagrange's (independent check of what is being applied)
    tau = ms.inverse_dynamics(plain, q, v, a)
    ref = double_pendulum_reference()
    assert rel_err(tau, np.array([ref(*x) for x in zip(q, v, a)])) < 1e-10
    err_q = np.abs(np.column_stack([res["j1.q"], res["j2.q"]]) - q).max()
    err_v = np.abs(np.column_stack([res["j1.v"], res["j2.v"]]) - v).max()
    assert err_q < 1e-7, err_q
    assert err_v < 1e-6, err_v
    # the actuators' generalized forces as signals are the applied torques
    assert np.abs(np.column_stack([res["j1.force"], res["j2.force"]]) - tau).max() < 1e-9 * np.abs(tau).max()


def test_inverse_dynamics_of_a_result():
    """ms.inverse_dynamics(res): the generalized forces that reproduce res's accelerations with res's force
    values acting. (a) On the actuated round trip the actuators are among those force values: nothing more
    is needed. (b) The unactuated pendulum driven along the motion (drivers, m.kinematics): the forces the
    drivers apply, i.e. the Lagrange torques of the motion."""
    m, plain, res = round_trip()
    out = ms.inverse_dynamics(res)
    assert out.shape == (len(res.t), 2)
    q, v, a = motion(res.t)
    ref = double_pendulum_reference()
    tau = np.array([ref(*x) for x in zip(q, v, a)])
    scale = np.abs(tau).max()
    assert np.abs(out).max() < 1e-10 * scale, np.abs(out).max()
    # (b)
    kin = driven_double_pendulum().kinematics(res.t)
    assert np.abs(np.column_stack([kin["j1.q"], kin["j2.q"]]) - q).max() < 1e-12
    assert np.abs(np.column_stack([kin["j1.a"], kin["j2.a"]]) - a).max() < 1e-9
    out = ms.inverse_dynamics(kin)
    assert rel_err(out, tau) < 1e-10, rel_err(out, tau)
    assert rel_err(np.column_stack([kin["j1.force"], kin["j2.force"]]), tau) < 1e-10


def wrench_about(wrench, point, com):
    """(force, torque about com) of wrenches [torque; force] (N, 6) given at points (N, 2) (planar points)."""
    tau, f = wrench[..., :3], wrench[..., 3:]
    arm = np.zeros_like(f)
    arm[..., :2] = point - com
    return f, tau + np.cross(arm, f)


def lambdify_vector(t, exprs):
    """Function of an array of times -> (N, len(exprs)) array."""
    fns = [sp.lambdify(t, e, "numpy") for e in exprs]
    return lambda tt: np.array([np.broadcast_to(fn(tt), np.shape(tt)) for fn in fns], dtype=float).T


@lru_cache(maxsize=None)
def double_pendulum_motion_reference():
    """Along the prescribed motion (sympy in t): joint M origins, COM positions and accelerations, body
    angles with their rates, of the double pendulum."""
    t = sp.Symbol("t")
    q1 = 0.2 + 0.6 * sp.sin(2.1 * t)
    q2 = 0.3 * sp.cos(3 * t) - 0.7 * sp.sin(1.3 * t + 0.5)
    P = sp.Matrix(P0)
    elbow = P + rot2(q1) * sp.Matrix(ELBOW)
    com = {"l1": P + rot2(q1) * sp.Matrix(C1), "l2": elbow + rot2(q1 + BETA + q2) * (sp.Matrix(C2) - sp.Matrix(PM2))}
    angle = {"l1": q1, "l2": q1 + BETA + q2}
    out = {"j1": lambdify_vector(t, P), "j2": lambdify_vector(t, elbow)}
    for b in com:
        out[b + ".com"] = lambdify_vector(t, com[b])
        out[b + ".acom"] = lambdify_vector(t, com[b].diff(t, 2))
        out[b + ".angle"] = lambdify_vector(t, [angle[b], angle[b].diff(t), angle[b].diff(t, 2)])
    return out


def euler_torque(inertia6, angle, w, alpha):
    """World-axes torque about the COM, I_w alpha + omega x I_w omega, of a body turning about world z at
    body angle `angle` (body z = world z), inertia (Ixx, Iyy, Izz, Ixy, Ixz, Iyz) about the COM in body axes."""
    ixx, iyy, izz, ixy, ixz, iyz = inertia6
    I = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    out = np.empty((len(angle), 3))
    for k, (a, wk, ak) in enumerate(zip(angle, w, alpha)):
        R = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
        Iw = R @ I @ R.T
        om = np.array([0, 0, wk])
        out[k] = Iw @ np.array([0, 0, ak]) + np.cross(om, Iw @ om)
    return out


def double_pendulum_newton_euler(res):
    """Worst (force, torque) imbalance of Newton-Euler on both links, relative to the largest reaction, with
    res's j1/j2 reactions and the prescribed motion's accelerations; and the reactions' z torques."""
    ref = double_pendulum_motion_reference()
    t = res.t
    W = {j: np.asarray(res[f"{j}.reaction"]) for j in ("j1", "j2")}
    for w in W.values():
        assert w.shape == (len(t), 6)
    scale = max(np.abs(w).max() for w in W.values())
    worst = []
    for body, mass, inertia, child_of, parent_of in (("l1", M1, I1, "j1", "j2"), ("l2", M2, I2, "j2", None)):
        com = ref[body + ".com"](t)
        f, tq = wrench_about(W[child_of], ref[child_of](t), com)
        if parent_of:
            f2, tq2 = wrench_about(W[parent_of], ref[parent_of](t), com)
            f, tq = f - f2, tq - tq2
        f[:, 1] -= mass * G
        acom = np.zeros((len(t), 3))
        acom[:, :2] = ref[body + ".acom"](t)
        ang = ref[body + ".angle"](t)
        worst.append(np.abs(f - mass * acom).max() / scale)
        worst.append(np.abs(tq - euler_torque(inertia, ang[:, 0], ang[:, 1], ang[:, 2])).max() / scale)
    return max(worst), np.column_stack([W["j1"][:, 2], W["j2"][:, 2]])


def test_reactions_newton_euler_double_pendulum():
    """Joint reactions (parent on child at M's origin, world axes) of the double pendulum moving along the
    prescribed motion: on each link, the reactions plus the weight give m a_com, and their torques about the
    COM are Euler's I alpha + omega x I omega - with products of inertia, so that the revolute joints carry
    x, y torques too; each joint reaction's z torque is the joint torque (Lagrange's). Once on the driven
    pendulum's m.kinematics (exact motion), once on the actuated forward-dynamics round trip (motion within
    ~1e-9 of the prescribed one)."""
    m, plain, res = round_trip()
    q, v, a = motion(res.t)
    tau = np.array([double_pendulum_reference()(*x) for x in zip(q, v, a)])
    kin = driven_double_pendulum().kinematics(res.t)
    err, z = double_pendulum_newton_euler(kin)
    assert err < 1e-10, err
    assert rel_err(z, tau) < 1e-10
    err, z = double_pendulum_newton_euler(res)
    assert err < 1e-8, err
    assert rel_err(z, tau) < 1e-9


def test_inverse_dynamics_refuses_closed_loops():
    m = four_bar.build_model()
    with pytest.raises(ms.MechsimError, match="kinematics"):
        ms.inverse_dynamics(m, m.assemble().q, np.zeros(3), np.zeros(3))


# ============================================================================== 2. slider-crank kinematics
@lru_cache(maxsize=None)
def slider_crank_reference():
    """Closed-form slider-crank driven at theta = OMEGA t: slider x, x', x''; rod angle psi and derivatives;
    COM positions/accelerations; the driver torque from the power balance (sympy in t)."""
    sc = slider_crank
    r, l, W = sc.R, sc.L, sc.OMEGA
    t = sp.Symbol("t")
    th = W * t
    s = sp.sqrt(l ** 2 - r ** 2 * sp.sin(th) ** 2)
    x = r * sp.cos(th) + s
    psi = sp.atan2(-r * sp.sin(th), s)                     # rod angle from the world x axis
    pin = sp.Matrix([r * sp.cos(th), r * sp.sin(th)])
    com = {"crank": pin / 2, "rod": pin + l / 2 * sp.Matrix([sp.cos(psi), sp.sin(psi)]),
           "slider": sp.Matrix([x, 0])}
    angle = {"crank": th, "rod": psi, "slider": sp.Integer(0)}
    mass = {"crank": sc.M_CRANK, "rod": sc.M_ROD, "slider": sc.M_SLIDER}
    izz = {"crank": sc.M_CRANK * r ** 2 / 12, "rod": sc.M_ROD * l ** 2 / 12, "slider": 1e-3}
    T = sum(mass[b] * com[b].diff(t).dot(com[b].diff(t)) / 2 + izz[b] * angle[b].diff(t) ** 2 / 2 for b in com)
    V = sum(mass[b] * G * com[b][1] for b in com)
    torque = (T + V).diff(t) / W                            # torque * omega = d/dt (T + V)
    lam = lambda e: (lambda tt: lambdify_vector(t, [e])(tt)[:, 0])      # noqa: E731
    out = {"x": lam(x), "xd": lam(x.diff(t)), "xdd": lam(x.diff(t, 2)), "torque": lam(torque),
           "pin": lambdify_vector(t, pin), "slider_pos": lambdify_vector(t, [x, 0])}
    for b in com:
        out[b + ".com"] = lambdify_vector(t, com[b])
        out[b + ".acom"] = lambdify_vector(t, com[b].diff(t, 2))
        out[b + ".alpha"] = lam(angle[b].diff(t, 2))
    return sc, out, mass, izz


@lru_cache(maxsize=None)
def slider_crank_kinematics():
    sc, ref, mass, izz = slider_crank_reference()
    m = sc.build_model(driven=True)
    t = np.linspace(0.0, 1.0, 101)                          # one turn, through both dead centres
    return m, m.kinematics(t), ref, mass, izz


def test_slider_crank_kinematics_closed_form():
    m, res, ref, _, _ = slider_crank_kinematics()
    t = res.t
    assert np.allclose(t, np.linspace(0, 1, 101))
    sc = slider_crank
    np.testing.assert_allclose(res["j1.q"], sc.OMEGA * t, rtol=0, atol=1e-12)
    x, xd, xdd = ref["x"](t), ref["xd"](t), ref["xdd"](t)
    assert np.abs(x - sc.slider_position(sc.OMEGA * t)).max() < 1e-14   # the reference agrees with the script
    assert np.abs(res["slide.q"] - x).max() < 1e-9
    assert np.abs(res["slide.v"] - xd).max() < 1e-9 * np.abs(xd).max()
    assert np.abs(res["slide.a"] - xdd).max() < 1e-9 * np.abs(xdd).max()


def test_slider_crank_driver_torque_is_the_power_balance():
    m, res, ref, _, _ = slider_crank_kinematics()
    torque = ref["torque"](res.t)
    err = rel_err(res["j1.force"], torque)
    assert err < 1e-8, err


def test_slider_crank_reactions_newton_euler_on_every_body():
    """Sum of joint reactions (parent on child, at M's origin, world) on each body plus its weight is m a_com;
    their torques about the COM are Izz alpha (z) and 0 (x, y: planar, principal axes). The reaction of the
    slider's prismatic joint balances the slider vertically."""
    m, res, ref, mass, izz = slider_crank_kinematics()
    t = res.t
    # M origins (child body origins, every child_frame is the default): j1 -> crank at the pivot,
    # j2 -> rod at the pin, slide and pin -> slider at (x, 0)
    joints = {"j1": ("ground", "crank", np.zeros((len(t), 2))), "j2": ("crank", "rod", ref["pin"](t)),
              "slide": ("ground", "slider", ref["slider_pos"](t)), "pin": ("rod", "slider", ref["slider_pos"](t))}
    W = {j: np.asarray(res[f"{j}.reaction"]) for j in joints}
    for w in W.values():
        assert w.shape == (len(t), 6)
    scale = max(np.abs(w).max() for w in W.values())
    worst = {}
    for body in ("crank", "rod", "slider"):
        c = ref[body + ".com"](t)
        F, Tq = np.zeros((len(t), 3)), np.zeros((len(t), 3))
        for j, (parent, child, point) in joints.items():
            sign = 1.0 if child == body else -1.0 if parent == body else 0.0
            if sign:
                f, tq = wrench_about(W[j], point, c)
                F += sign * f
                Tq += sign * tq
        F[:, 1] -= mass[body] * G
        a = np.zeros((len(t), 3))
        a[:, :2] = ref[body + ".acom"](t)
        alpha = np.zeros((len(t), 3))
        alpha[:, 2] = ref[body + ".alpha"](t)
        worst[body] = (np.abs(F - mass[body] * a).max() / scale, np.abs(Tq - izz[body] * alpha).max() / scale)
    assert max(max(v) for v in worst.values()) < 1e-9, worst
    # the slider vertically: normal force of the guide - weight + rod's push = 0 (no vertical motion)
    vertical = W["slide"][:, 4] + W["pin"][:, 4] - mass["slider"] * G
    assert np.abs(vertical).max() < 1e-9 * scale
    # the crank joint's reaction about z is the driver torque (its component along the joint's motion)
    assert rel_err(W["j1"][:, 2], ref["torque"](t)) < 1e-8


def test_slider_crank_body_acceleration_signal():
    m, res, ref, _, _ = slider_crank_kinematics()
    acc = np.asarray(res["slider.acceleration"])
    assert acc.shape == (len(res.t), 6)
    xdd = ref["xdd"](res.t)
    assert np.abs(acc[:, 3] - xdd).max() < 1e-9 * np.abs(xdd).max()
    assert np.abs(acc[:, [0, 1, 2, 4, 5]]).max() < 1e-9 * np.abs(xdd).max()
    crank = np.asarray(res["crank.acceleration"])      # crank origin on the axis: zero; alpha = 0
    assert np.abs(crank).max() < 1e-9


def test_kinematics_refuses_undriven_dofs():
    m = slider_crank.build_model(driven=False)
    with pytest.raises(ms.ModelError, match="driver"):
        m.kinematics(np.linspace(0, 1, 5))


# ================================================================================== 3. linearization
def compound_pendulum(q0=0.0):
    """A rod hinged at its body origin, COM 0.6 m below (at q = 0), Izz about the COM 0.09; mass 1.7."""
    mass, d, izz = 1.7, 0.6, 0.09
    m = ms.Model("compound", gravity=(0, -G, 0))
    m.add_body("rod", mass=mass, com=(0, -d, 0), inertia=(0.1, 0.02, izz))
    m.add_joint("j1", "revolute", parent="ground", child="rod", axis=(0, 0, 1), q0=q0)
    return m, G * mass * d / (izz + mass * d * d)             # g / l_eq with l_eq = I_pivot / (m d)


@pytest.mark.parametrize("top", [False, True])
def test_linearize_compound_pendulum(top):
    m, w2 = compound_pendulum(np.pi if top else 0.0)
    lin = m.linearize(m.assemble(fixed=["j1"]))
    assert lin.state_names == ["j1.q", "j1.v"]
    expected_A = np.array([[0.0, 1.0], [w2 if top else -w2, 0.0]])
    assert np.abs(lin.A - expected_A).max() < 1e-8 * w2, lin.A
    eig = np.sort_complex(np.linalg.eigvals(lin.A))
    expected = np.sort_complex(np.array([-1, 1]) * (np.sqrt(w2) if top else 1j * np.sqrt(w2)))
    assert np.abs(eig - expected).max() < 1e-8 * np.sqrt(w2), eig


def cart_pendulum(stiffness=None, damping=None):
    """examples/cart_pendulum.py's model (its spring-damper, or one with the given constants)."""
    cp = cart_pendulum_example
    if stiffness is None:
        return cp, cp.build_model()
    m = ms.Model("cart-pendulum-variant", gravity=(0, -cp.G, 0))
    m.add_body("cart", mass=cp.M_CART, inertia=cp.box_inertia(cp.M_CART, *cp.CART_BOX))
    m.add_body("rod", mass=cp.M_ROD, com=(0, -cp.ROD_LENGTH / 2, 0),
               inertia=cp.box_inertia(cp.M_ROD, cp.ROD_SECTION, cp.ROD_LENGTH, cp.ROD_SECTION))
    m.add_joint("slide", "prismatic", parent="ground", child="cart", axis=(1, 0, 0))
    m.add_joint("hinge", "revolute", parent="cart", child="rod", axis=(0, 0, 1), q0=cp.Q2_0)
    if stiffness or damping:
        m.add_force("spring", "joint_spring_damper", joint="slide", stiffness=stiffness, damping=damping)
    return cp, m


def cart_pendulum_hand_linearization(cp, q2, k, b):
    """Papers/002 eqs. (1)-(2) with F_A = F (the input), F_P1 = 0, linearized at q1 = q2' = q1' = 0 and
    q2 = 0 or pi (cos q2 = +-1, sin q2 = 0; the q2'^2 term drops):
      [mA+mB, mB h c; mB h c, mB h^2 + I33] [q1''; q2''] = [F - k q1 - b q1'; -mB g h sin q2],  h = bB/2.
    State x = [q1, q2, q1', q2'], input F."""
    mA, mB, h = cp.M_CART, cp.M_ROD, cp.ROD_LENGTH / 2
    i33 = mB * (cp.ROD_SECTION ** 2 + cp.ROD_LENGTH ** 2) / 12
    c = np.cos(q2)
    Mq = np.array([[mA + mB, mB * h * c], [mB * h * c, mB * h * h + i33]])
    K = np.array([[-k, 0.0], [0.0, -mB * cp.G * h * c]])      # d(force)/dq
    D = np.array([[-b, 0.0], [0.0, 0.0]])                      # d(force)/dq'
    Minv = np.linalg.inv(Mq)
    A = np.block([[np.zeros((2, 2)), np.eye(2)], [Minv @ K, Minv @ D]])
    B = np.concatenate([np.zeros(2), Minv @ [1.0, 0.0]])[:, None]
    return A, B


def reorder(lin, names, A, B=None):
    """A (and B) of the state order `names` permuted into lin.state_names' order."""
    p = [names.index(s) for s in lin.state_names]
    return A[np.ix_(p, p)], (None if B is None else B[p])


CART_STATES = ["slide.q", "hinge.q", "slide.v", "hinge.v"]


def test_linearize_cart_pendulum_hanging():
    cp, m = cart_pendulum()
    m.add_input("u")
    m.add_force("push", "joint_force", joint="slide", value="u")
    state = m.assemble(fixed={"slide.q": 0.0, "hinge.q": 0.0})
    lin = m.linearize(state, inputs=["u"])
    assert sorted(lin.state_names) == sorted(CART_STATES)
    assert lin.input_names == ["u"]
    A, B = reorder(lin, CART_STATES, *cart_pendulum_hand_linearization(cp, 0.0, cp.K_SD, cp.B_SD))
    assert np.abs(lin.A - A).max() < 1e-8 * np.abs(A).max(), lin.A - A
    assert np.abs(lin.B - B).max() < 1e-8 * np.abs(B).max(), lin.B - B
    assert np.array_equal(lin.C, np.eye(4)) and np.array_equal(lin.D, np.zeros((4, 1)))
    # open tree: the minimal realization is the same system
    lin_min = m.linearize(state, inputs=["u"], minimal=True)
    assert lin_min.state_names == lin.state_names
    assert np.abs(lin_min.A - lin.A).max() < 1e-10 * np.abs(A).max()
    assert np.abs(lin_min.B - lin.B).max() < 1e-10 * np.abs(B).max()
    # python-control
    sys_ = lin.to_control()
    import control
    assert isinstance(sys_, control.StateSpace)
    np.testing.assert_array_equal(sys_.A, lin.A)
    np.testing.assert_array_equal(sys_.B, lin.B)
    np.testing.assert_array_equal(sys_.C, lin.C)
    np.testing.assert_array_equal(sys_.D, lin.D)
    # python-control refuses '.' in signal names: "slide.q" is "slide_q" there
    dots = lambda names: [n.replace(".", "_") for n in names]      # noqa: E731
    assert list(sys_.state_labels) == dots(lin.state_names)
    assert list(sys_.input_labels) == ["u"]
    assert list(sys_.output_labels) == dots(lin.output_names)


@pytest.mark.parametrize("spring", [False, True])
def test_linearize_cart_pendulum_inverted(spring):
    """Upright rod (q2 = pi), cart force 'slide.force' as the input; without the spring-damper (the paper's
    control problem: k_SD = b_SD = 0) and with the example's."""
    cp = cart_pendulum_example
    k, b = (cp.K_SD, cp.B_SD) if spring else (0.0, 0.0)
    _, m = cart_pendulum(k, b)
    state = m.assemble(fixed={"slide.q": 0.0, "hinge.q": np.pi})
    lin = m.linearize(state, inputs=["slide.force"])
    assert lin.input_names == ["slide.force"]
    A, B = reorder(lin, CART_STATES, *cart_pendulum_hand_linearization(cp, np.pi, k, b))
    assert np.abs(lin.A - A).max() < 1e-8 * np.abs(A).max(), lin.A - A
    assert np.abs(lin.B - B).max() < 1e-8 * np.abs(B).max(), lin.B - B
    assert np.max(np.linalg.eigvals(lin.A).real) > 1.0           # unstable upright


def test_linearize_outputs():
    """outputs: C, D of named signals at the hanging cart-pendulum: a coordinate, a velocity, an acceleration
    (its row of the hand linearization: C = A's, D = B's) and a body-velocity component (the rod frame sits on
    the hinge, carried by the cart: its x velocity is q1')."""
    cp, m = cart_pendulum()
    outputs = ["hinge.q", "slide.v", "hinge.a", "rod.velocity[0]"]
    lin = m.linearize(m.assemble(fixed={"slide.q": 0.0, "hinge.q": 0.0}), inputs=["slide.force"], outputs=outputs)
    assert lin.output_names == outputs
    A, B = reorder(lin, CART_STATES, *cart_pendulum_hand_linearization(cp, 0.0, cp.K_SD, cp.B_SD))
    e = lambda name: np.eye(4)[lin.state_names.index(name)]      # noqa: E731
    C = np.array([e("hinge.q"), e("slide.v"), A[lin.state_names.index("hinge.v")], e("slide.v")])
    D = np.zeros((4, 1))
    D[2] = B[lin.state_names.index("hinge.v")]
    assert np.abs(lin.C - C).max() < 1e-8 * np.abs(C).max(), lin.C - C
    assert np.abs(lin.D - D).max() < 1e-8 * np.abs(D).max(), lin.D - D


def test_linearize_along_a_result():
    """A Result: one Linearization per sample; off equilibrium the compound pendulum's
    theta'' = -(g / l_eq) sin(theta) gives A = [[0, 1], [-(g / l_eq) cos(theta_k), 0]]."""
    m, w2 = compound_pendulum(1.2)
    res = m.simulate(t_end=1.0, t_eval=np.linspace(0, 1, 5), solver="DOP853", rtol=1e-10, atol=1e-12)
    lins = m.linearize(res)
    assert len(lins) == 5
    for lin, q in zip(lins, res["j1.q"]):
        expected = np.array([[0.0, 1.0], [-w2 * np.cos(q), 0.0]])
        assert np.abs(lin.A - expected).max() < 1e-8 * w2, (lin.A, expected)


# ========================================================================================== 4. trim
MASS_T, L_T, K_T = 1.2, 0.5, 3.0          # k < m g l = 5.886: upright unstable, buckled equilibria at +-THETA_STAR


def spring_held_inverted_pendulum(q0, with_input=False):
    """COM at distance L_T straight above the pivot at q = 0; torsional spring k (rest 0). Equilibrium:
    k theta = m g l sin(theta) (gravity torque about z for the COM at (-l sin q, l cos q) is m g l sin q)."""
    m = ms.Model("buckled", gravity=(0, -G, 0))
    m.add_body("rod", mass=MASS_T, com=(0, L_T, 0), inertia=(0.02, 0.001, 0.02))
    m.add_joint("j1", "revolute", parent="ground", child="rod", axis=(0, 0, 1), q0=q0)
    m.add_force("spring", "joint_spring_damper", joint="j1", stiffness=K_T, damping=0.1, rest=0.0)
    if with_input:
        m.add_input("u")
        m.add_force("motor", "joint_force", joint="j1", value="u")
    return m


def test_trim_buckled_inverted_pendulum():
    mgl = MASS_T * G * L_T
    theta_star = brentq(lambda th: K_T * th - mgl * np.sin(th), 0.5, 3.0)
    assert theta_star > 1.0
    for q0, expected in ((theta_star + 0.2, theta_star), (-theta_star + 0.15, -theta_star)):
        op = spring_held_inverted_pendulum(q0).trim()
        assert abs(op["j1.q"] - expected) < 1e-10, (op["j1.q"], expected)
        assert abs(K_T * op["j1.q"] - mgl * np.sin(op["j1.q"])) < 1e-10 * mgl
        assert np.abs(op.v).max() < 1e-12
        assert np.max(op.residual) < 1e-9
    # the unstable upright equilibrium from near it
    assert abs(spring_held_inverted_pendulum(0.05).trim()["j1.q"]) < 1e-10


def test_trim_solves_for_a_free_input():
    mgl = MASS_T * G * L_T
    m = spring_held_inverted_pendulum(0.3, with_input=True)
    for theta1 in (0.4, -1.1, 2.0):
        op = m.trim(fixed={"j1.q": theta1}, free_inputs=["u"])
        u = K_T * theta1 - mgl * np.sin(theta1)          # u + (-k theta) + m g l sin(theta) = 0
        assert abs(op["j1.q"] - theta1) < 1e-14
        assert abs(op.inputs["u"] - u) < 1e-10 * mgl, (op.inputs["u"], u)


def test_trim_steady_spin_centrifugal_governor():
    """A fixed velocity: a vertical shaft spinning at OMEGA (fixed "spin.v") carries a pendulum hinged on the
    axis (bob of mass m at distance l, isotropic inertia). Steady state in the rotating frame: the effective
    potential -m g l cos(th) - m OMEGA^2 l^2 sin(th)^2 / 2 is stationary at cos(th) = g / (OMEGA^2 l).
    A joint_force input on the shaft with a damper c on it: the input balances the damper, u = c OMEGA."""
    omega, l, mass, c = 6.0, 0.5, 1.1, 0.3
    m = ms.Model("governor", gravity=(0, -G, 0))
    m.add_body("shaft", mass=2.0, inertia=(0.05, 0.1, 0.05))
    m.add_body("bob", mass=mass, com=(0, -l, 0), inertia=(1e-3, 1e-3, 1e-3))
    m.add_joint("spin", "revolute", parent="ground", child="shaft", axis=(0, 1, 0), v0=omega)
    m.add_joint("swing", "revolute", parent="shaft", child="bob", axis=(0, 0, 1), q0=0.8)
    m.add_force("bearing", "joint_spring_damper", joint="spin", stiffness=0.0, damping=c)
    m.add_input("u")
    m.add_force("motor", "joint_force", joint="spin", value="u")
    op = m.trim(fixed={"spin.q": 0.0, "spin.v": omega}, free_inputs=["u"])
    theta = np.arccos(G / (omega ** 2 * l))
    assert abs(op["swing.q"] - theta) < 1e-10, (op["swing.q"], theta)
    assert abs(op["spin.v"] - omega) < 1e-14 and abs(op["swing.v"]) < 1e-12
    assert abs(op.inputs["u"] - c * omega) < 1e-10, op.inputs["u"]
    assert np.max(op.residual) < 1e-9
    # the shaft's angle is neutral: holding only its velocity gives the same steady state
    op = m.trim(fixed={"spin.v": omega}, free_inputs=["u"])
    assert abs(op["swing.q"] - theta) < 1e-10 and abs(op.inputs["u"] - c * omega) < 1e-10


def test_trim_impossible_raises():
    m = ms.Model("wheel", gravity=(0, -G, 0))
    m.add_body("wheel", mass=2.0, inertia=(0.1, 0.1, 0.2))
    m.add_joint("axle", "revolute", parent="ground", child="wheel", axis=(0, 0, 1))
    m.add_force("motor", "joint_force", joint="axle", value=1.5)
    with pytest.raises(ms.ModelError):
        m.trim()


# ---------------------------------------------------------------- four-bar: closed-form 1-DOF reference
@lru_cache(maxsize=None)
def four_bar_reference():
    """Lagrange's equation of the four-bar in the crank angle theta alone (Khan, Tang & Krovi 2006, geometry), with the
    coupler and rocker angles alpha(theta), phi(theta) implicit in the loop closure
        L1 e(theta) + L2 e(alpha) - (L0, 0) - L3 e(phi) = 0,
    their derivatives found by differentiating the closure (exactly, sympy). Generalized mass
        M(theta) = sum m |dc/dtheta|^2 + I (dangle/dtheta)^2,  V = g sum m c_y,
    and with a crank torque Q(theta, w) = tau0 + u - k (theta - rest) - c w:
        theta'' = f(theta, w) = (Q - V'(theta) - M'(theta) w^2 / 2) / M(theta).
    Returns functions of (theta, alpha, phi, w, tau0, k, rest, c): dict with 'V1' = V', 'f', 'df_dth',
    'df_dw', 'M', plus 'closure'."""
    fb = four_bar
    L0, L1, L2, L3, m_, g = fb.L0, fb.L1, fb.L2, fb.L3, fb.MASS, fb.G
    th, w, tau0, k, rest, c = sp.symbols("theta w tau0 k rest c")
    al, ph = sp.Function("alpha")(th), sp.Function("phi")(th)
    e = lambda a: sp.Matrix([sp.cos(a), sp.sin(a)])        # noqa: E731
    B = L1 * e(th)
    coms = [(L1 / 2 * e(th), th, L1), (B + L2 / 2 * e(al), al, L2), (sp.Matrix([L0, 0]) + L3 / 2 * e(ph), ph, L3)]
    M = sum(m_ * c_.diff(th).dot(c_.diff(th)) + m_ * ln ** 2 / 12 * a.diff(th) ** 2 for c_, a, ln in coms)
    V = sum(m_ * g * c_[1] for c_, _, _ in coms)
    Q = tau0 - k * (th - rest) - c * w
    f = (Q - V.diff(th) - M.diff(th) * w ** 2 / 2) / M
    exprs = {"V1": V.diff(th), "M": M, "f": f, "df_dth": f.diff(th), "df_dw": f.diff(w)}
    closure = B + L2 * e(al) - sp.Matrix([L0, 0]) - L3 * e(ph)
    # derivative k of the closure is linear in alpha^(k), phi^(k)
    dal = [sp.Symbol(f"al{i}") for i in range(4)]
    dph = [sp.Symbol(f"ph{i}") for i in range(4)]

    def plain(expr):
        """alpha^(i), phi^(i) replaced by symbols al_i, ph_i (highest order first)."""
        for i in (3, 2, 1):
            expr = expr.subs({al.diff(th, i): dal[i], ph.diff(th, i): dph[i]})
        return expr.subs({al: dal[0], ph: dph[0]})

    steps = []
    for i in (1, 2, 3):
        eqs = plain(closure.diff(th, i))
        sol = sp.solve(list(eqs), [dal[i], dph[i]], dict=True)[0]
        steps.append((i, sp.lambdify([th] + dal[:i] + dph[:i], [sol[dal[i]], sol[dph[i]]], "math")))
    args = [th, w, tau0, k, rest, c] + dal + dph
    funcs = {name: sp.lambdify(args, plain(ex), "math") for name, ex in exprs.items()}

    def evaluate(theta, omega=0.0, tau=0.0, stiffness=0.0, rest_=0.0, damping=0.0):
        a0, p0 = fb.loop_angles(theta)
        A, P = [a0], [p0]
        for i, step in steps:
            ai, pi_ = step(theta, *A, *P)
            A.append(ai)
            P.append(pi_)
        vals = [theta, omega, tau, stiffness, rest_, damping] + A + P
        return {name: fn(*vals) for name, fn in funcs.items()} | {"alpha": A, "phi": P}

    return fb, evaluate


def four_bar_closure(fb, q):
    """Loop-closure error (m) of the four-bar at mechsim joint angles: C from the crank-coupler side minus
    C from the rocker side (absolute angles theta = j1, alpha = j1 + j2, phi = j4)."""
    theta, alpha, phi = q["j1.q"], q["j1.q"] + q["j2.q"], q["j4.q"]
    c1 = np.array([fb.L1 * np.cos(theta) + fb.L2 * np.cos(alpha), fb.L1 * np.sin(theta) + fb.L2 * np.sin(alpha)])
    c2 = np.array([fb.L0 + fb.L3 * np.cos(phi), fb.L3 * np.sin(phi)])
    return np.abs(c1 - c2).max()


K_FB, REST_FB, C_FB = 40.0, 0.4, 1.5      # torsional spring-damper added on the crank joint j1


def four_bar_with_spring(theta0, with_input=False):
    fb = four_bar
    m = fb.build_model(theta0)                           # the motor's constant TORQUE acts on j1
    m.add_force("crank_spring", "joint_spring_damper", joint="j1", stiffness=K_FB, damping=C_FB, rest=REST_FB)
    if with_input:
        m.add_input("u")
        m.add_force("u_motor", "joint_force", joint="j1", value="u")
    return m


def test_four_bar_reference_is_consistent():
    """Self-check of the reference: loop angle derivatives vs central differences of loop_angles."""
    fb, ev = four_bar_reference()
    h = 1e-5
    th = 1.1
    r = ev(th)
    a_p, p_p = fb.loop_angles(th + h)
    a_m, p_m = fb.loop_angles(th - h)
    assert abs((a_p - a_m) / (2 * h) - r["alpha"][1]) < 1e-8
    assert abs((p_p - p_m) / (2 * h) - r["phi"][1]) < 1e-8
    V = lambda x: ev(x)["V1"]                               # noqa: E731
    r2 = ev(th, omega=0.7, stiffness=K_FB, rest_=REST_FB, damping=C_FB)
    f = lambda x: ev(x, omega=0.7, stiffness=K_FB, rest_=REST_FB, damping=C_FB)["f"]   # noqa: E731
    assert abs((f(th + h) - f(th - h)) / (2 * h) - r2["df_dth"]) < 1e-6 * abs(r2["df_dth"])
    assert np.isfinite(V(th))


def four_bar_equilibrium_angle():
    fb, ev = four_bar_reference()
    Q = lambda th: ev(th, tau=fb.TORQUE, stiffness=K_FB, rest_=REST_FB)["f"]   # noqa: E731 (w = 0: sign of Q - V')
    return brentq(Q, 0.3, 1.2, xtol=1e-15)


def test_trim_four_bar_virtual_work():
    fb, ev = four_bar_reference()
    theta_star = four_bar_equilibrium_angle()
    m = four_bar_with_spring(theta_star + 0.1)
    op = m.trim()
    assert four_bar_closure(fb, op) < 1e-10
    assert np.abs(op.v).max() < 1e-10
    theta = op["j1.q"]
    # virtual work: tau0 - k (theta - rest) - V'(theta) = 0 with V' from the closed-form velocity ratios
    r = ev(theta)
    residual = fb.TORQUE - K_FB * (theta - REST_FB) - r["V1"]
    assert abs(residual) < 1e-9 * K_FB, residual
    assert abs(theta - theta_star) < 1e-10, (theta, theta_star)
    # the other angles are the closed-form loop's
    alpha, phi = fb.loop_angles(theta)
    assert abs(op["j1.q"] + op["j2.q"] - alpha) < 1e-10 and abs(op["j4.q"] - phi) < 1e-10


def test_trim_four_bar_input_at_a_fixed_crank_angle():
    fb, ev = four_bar_reference()
    m = four_bar_with_spring(1.3, with_input=True)
    for theta1 in (1.3, 2.4, -0.8):
        op = m.trim(fixed={"j1.q": theta1}, free_inputs=["u"])
        assert four_bar_closure(fb, op) < 1e-10
        assert abs(op["j1.q"] - theta1) < 1e-14
        u = ev(theta1)["V1"] + K_FB * (theta1 - REST_FB) - fb.TORQUE       # virtual work: total crank torque = V'
        assert abs(op.inputs["u"] - u) < 1e-9 * max(1.0, abs(u)), (theta1, op.inputs["u"], u)


# ========================================================================== 5. four-bar linearization
def expected_four_bar_A_B(theta, omega, coordinate="j1"):
    """(A, B) of the four-bar's 1-DOF equation theta'' = f(theta, w) + u / M(theta) linearized at
    (theta, omega), input u a torque on j1, in the state (c, c') of one joint coordinate c(theta): j1 = theta,
    j4 = phi (the rocker), j2 = alpha - theta. With x = (theta, w) and y = Phi(x) = (c(theta), c1(theta) w):
        J_y = (dDPhi/dt + DPhi J_x) DPhi^-1,  B_y = DPhi B_x,
        DPhi = [[c1, 0], [c2 w, c1]],  dDPhi/dt = [[c2 w, 0], [c3 w^2 + c2 f, c2 w]]
    (ck the k-th derivative of c in theta; the dDPhi/dt term vanishes at an equilibrium)."""
    fb, ev = four_bar_reference()
    r = ev(theta, omega=omega, tau=fb.TORQUE, stiffness=K_FB, rest_=REST_FB, damping=C_FB)
    A = np.array([[0.0, 1.0], [r["df_dth"], r["df_dw"]]])
    B = np.array([[0.0], [1.0 / r["M"]]])
    c = {"j1": (1.0, 0.0, 0.0), "j4": tuple(r["phi"][1:]),
         "j2": (r["alpha"][1] - 1.0, r["alpha"][2], r["alpha"][3])}[coordinate]
    D = np.array([[c[0], 0.0], [c[1] * omega, c[0]]])
    Dd = np.array([[c[1] * omega, 0.0], [c[2] * omega ** 2 + c[1] * r["f"], c[1] * omega]])
    return (Dd + D @ A) @ np.linalg.inv(D), D @ B


def four_bar_state(theta, omega):
    m = four_bar_with_spring(theta)
    fb = four_bar
    state = m.assemble(fixed=["j1"])
    if omega:
        # velocities of the loop from the closed-form ratios (independent of mechsim's assembly)
        _, ev = four_bar_reference()
        r = ev(theta)
        state["j1.v"] = omega
        state["j2.v"] = (r["alpha"][1] - 1.0) * omega
        state["j4.v"] = r["phi"][1] * omega
    assert four_bar_closure(fb, state) < 1e-12
    return m, state


@pytest.mark.parametrize("omega", [0.0, 1.7])
def test_linearize_four_bar_minimal_vs_one_dof_lagrange(omega):
    """At the trimmed equilibrium (omega = 0: A21 = -(k + V'')/M) and at a moving, non-equilibrium state
    (the M' w^2/2 and M'' terms enter), minimal=True with the crank independent, then with the rocker
    independent (a change of coordinates, exact through the loop's closed-form derivatives)."""
    theta = four_bar_equilibrium_angle() if omega == 0.0 else 1.1
    m, state = four_bar_state(theta, omega)
    lin = m.linearize(state, inputs=["j1.force"], minimal=True, independent=["j1"])
    assert lin.independent == ["j1.q"]
    assert lin.state_names == ["j1.q", "j1.v"]
    assert lin.input_names == ["j1.force"]
    assert lin.A.shape == (2, 2) and lin.B.shape == (2, 1)
    A, B = expected_four_bar_A_B(theta, omega)
    err_A = np.abs(lin.A - A).max() / np.abs(A).max()
    err_B = np.abs(lin.B - B).max() / np.abs(B).max()
    assert err_A < 1e-9, (lin.A, A)
    assert err_B < 1e-9, (lin.B, B)
    # the rocker angle as the independent coordinate
    rocker = m.linearize(state, inputs=["j1.force"], minimal=True, independent=["j4.q"])
    assert rocker.independent == ["j4.q"] and rocker.state_names == ["j4.q", "j4.v"]
    A4, B4 = expected_four_bar_A_B(theta, omega, "j4")
    assert np.abs(rocker.A - A4).max() < 1e-9 * np.abs(A4).max(), (rocker.A, A4)
    assert np.abs(rocker.B - B4).max() < 1e-9 * np.abs(B4).max(), (rocker.B, B4)
    # the full (non-minimal) linearization: 2 nv states, the same non-zero eigenvalues
    full = m.linearize(state, inputs=["j1.force"], independent=lin.independent)
    nv = len(m.coordinates()[1])
    assert full.A.shape == (2 * nv, 2 * nv) and full.B.shape == (2 * nv, 1)
    assert sorted(full.state_names) == sorted(f"{j}.{k}" for j in ("j1", "j2", "j4") for k in "qv")
    eig_full = np.linalg.eigvals(full.A)
    eig_full = np.sort_complex(eig_full[np.abs(eig_full) > 1e-6 * np.abs(A).max()])
    eig_min = np.sort_complex(np.linalg.eigvals(A))
    assert len(eig_full) == 2 and np.abs(eig_full - eig_min).max() < 1e-9 * np.abs(eig_min).max(), (eig_full, eig_min)
    # its rows of the independent states are the minimal system's
    i = [full.state_names.index(n) for n in lin.state_names]
    assert np.abs(full.A[np.ix_(i, i)] - A).max() < 1e-9 * np.abs(A).max()
    # the default choice of the independent coordinate: whichever it is, the reference in that coordinate
    auto = m.linearize(state, minimal=True)
    assert auto.A.shape == (2, 2) and len(auto.independent) == 1
    joint = auto.independent[0].split(".")[0]
    assert auto.state_names == [f"{joint}.q", f"{joint}.v"]
    A_auto, _ = expected_four_bar_A_B(theta, omega, joint)
    assert np.abs(auto.A - A_auto).max() < 1e-9 * np.abs(A_auto).max(), (auto.A, A_auto)
