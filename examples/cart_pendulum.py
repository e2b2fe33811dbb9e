"""Pendulum on a cart (Schlotter, "Multibody System Simulation with SimMechanics", 2003, §3;
Schlotter 2003): the forward-dynamics example of that paper, built through the Python API.

A uniform cart slides along the world x axis on a prismatic joint, tied to the ground by a linear
spring-damper (k_SD, b_SD); a uniform rod hangs from it on a revolute joint about z. Gravity acts
along -y, in the plane of motion. As in the paper, the run starts with the rod turned by
q2 = 0.1 rad and everything else at rest, over 10 s.

The paper gives the equations of motion (its eqs. 1-2) but no numbers; the parameters below are
ours: cart 1.0 kg (0.2 x 0.1 x 0.1 m box), rod 0.5 kg, 0.5 m long, 0.02 x 0.02 m section,
k_SD = 20 N/m, b_SD = 0.5 N s/m. The swinging rod shakes the cart, and the cart's damper slowly
drains the pendulum's energy: the swing dies down and beats as it passes energy back and forth.

Same model as ``cart_pendulum.yaml``. Run: ``python examples/cart_pendulum.py``
(``MECHSIM_EXAMPLE_T_END`` shortens the run, ``MECHSIM_EXAMPLE_OUT`` moves the plot).

The paper's other analysis modes (its §3.4-3.6), each with its own entry and figure:

``--inverse``    inverse dynamics (§3.4): k_SD = b_SD = 0, the motion q1 = 1 m/s t, q2 = 1 rad/s t
                 prescribed by drivers, ``m.kinematics``; the driver force and torque turned into the
                 paper's F_A (on the cart along A1) and F_B (at the rod tip along B1), against eqs. (1)-(2)
                 solved by hand (``paper_inverse_dynamics``).
``--linearize``  linearization (§3.5) about the hanging position (the forward model above) and about the
                 inverted position (k_SD = b_SD = 0), input the cart force; against the hand-linearized
                 eqs. (1)-(2) (``hand_linearization``), and the linear vs the nonlinear small swing.
``--control``    the inverted pendulum (§3.6) under the paper's PD cascade law, continuous and sampled
                 (10 ms, zero-order hold), pushed at the tip; closed-loop eigenvalues from
                 ``m.linearize``, the linear vs the nonlinear closed loop.
"""
import sys
from pathlib import Path

import numpy as np

try:
    import mechsim as ms
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import mechsim as ms
from _figures import animate, draw, new_figure, save  # noqa: E402  (examples/_figures.py)
import _common as common  # noqa: E402  (examples/_common.py)

# parameters (ours; the paper does not give numbers)
M_CART, CART_BOX = 1.0, (0.2, 0.1, 0.1)          # kg; a_A, b_A, c_A (m)
M_ROD, ROD_LENGTH, ROD_SECTION = 0.5, 0.5, 0.02  # kg; b_B (m); a_B = c_B (m)
K_SD, B_SD = 20.0, 0.5                           # N/m, N s/m
Q2_0 = 0.1                                       # rad, the paper's initial condition
G = 9.81

T_END = common.t_end("10")


def box_inertia(mass, a, b, c):
    """Principal moments of a uniform box with edges a, b, c along x, y, z."""
    return (mass * (b * b + c * c) / 12, mass * (a * a + c * c) / 12, mass * (a * a + b * b) / 12)


def _cart_and_rod(name, q2_0):
    """Cart on the slide, rod on the hinge, no force elements: the mechanism of the paper's Fig. 1."""
    m = ms.Model(name, gravity=(0, -G, 0))
    m.add_body("cart", mass=M_CART, inertia=box_inertia(M_CART, *CART_BOX))
    # rod frame at the hinge; the rod hangs along -y, its COM half-way down
    m.add_body("rod", mass=M_ROD, com=(0, -ROD_LENGTH / 2, 0),
               inertia=box_inertia(M_ROD, ROD_SECTION, ROD_LENGTH, ROD_SECTION),
               frames={"tip": (0, -ROD_LENGTH, 0)})
    m.add_joint("slide", "prismatic", parent="ground", child="cart", axis=(1, 0, 0))            # q1
    m.add_joint("hinge", "revolute", parent="cart", child="rod", axis=(0, 0, 1), q0=q2_0)       # q2
    return m


def build_model(q2_0=Q2_0):
    """The forward-dynamics model of the paper's §3.2 (``cart_pendulum.yaml``), rod at q2_0."""
    m = _cart_and_rod("cart-pendulum", q2_0)
    m.add_force("spring", "joint_spring_damper", joint="slide", stiffness=K_SD, damping=B_SD)
    return m


def simulate(m, t_end=T_END):
    return m.simulate(t_end=t_end, t_eval=np.linspace(0, t_end, int(50 * t_end) + 1), rtol=1e-8, atol=1e-10)


def main(argv=()):
    for flag, entry in (("--inverse", main_inverse), ("--linearize", main_linearize), ("--control", main_control)):
        if flag in argv:
            return entry()
    m = build_model()
    res = simulate(m)
    q1, q2 = res["slide.q"], res["hinge.q"]
    tip = res.point("rod", (0, -ROD_LENGTH, 0))
    print(f"{m!r}: dof = {len(m.coordinates()[1])}, {len(res.t)} samples to t = {res.t[-1]:g} s")
    print(f"cart q1:  max |q1| = {np.abs(q1).max():.5f} m, q1(t_end) = {q1[-1]:+.5f} m")
    print(f"rod  q2:  max |q2| = {np.abs(q2).max():.5f} rad, q2(t_end) = {q2[-1]:+.5f} rad")
    print(f"rod tip at t_end: ({tip[-1, 0]:+.4f}, {tip[-1, 1]:+.4f}) m")
    animate(res, "cart_pendulum", traces=[("rod", (0, -ROD_LENGTH, 0))])
    plot(res, q1, q2)
    return res


def plot(res, q1, q2):
    fig = new_figure(figsize=(7, 4.5))
    if fig is None:
        return
    cart, rod = fig.subplots(2, 1, sharex=True)
    draw(cart, res.t, q1, "m")
    cart.set_ylabel("q1 cart (m)")
    draw(rod, res.t, q2, "rad")
    rod.set_ylabel("q2 rod (rad)")
    rod.set_xlabel("t (s)")
    for ax in (cart, rod):
        ax.grid(True, alpha=0.3)
    fig.suptitle("Pendulum on a cart (cf. Schlotter 2003, Fig. 6)")
    save(fig, "cart_pendulum")


# ==================================================================================== §3.4 inverse dynamics
# The paper asks for F_A(t) (on the cart, along A1 = E1) and F_B(t) (at the rod tip, along B1: in the plane
# of motion, perpendicular to the rod) that make the cart and the rod move as q1 = 1 m/s t, q2 = 1 rad/s t
# with k_SD = b_SD = 0. Drivers give the motion; what a driver applies is a joint force, so (as in the
# paper's Fig. 11) the slide's force and the hinge's torque are converted afterwards.
ROD_COM = ROD_LENGTH / 2                                  # hinge to the rod's centre of mass, b_B / 2
I33_ROD = box_inertia(M_ROD, ROD_SECTION, ROD_LENGTH, ROD_SECTION)[2]
V1, V2 = 1.0, 1.0                                         # the paper's rates: q1 = 1 m/s t, q2 = 1 rad/s t


def build_inverse_model(v1=V1, v2=V2):
    """The model of the paper's Fig. 11: no spring-damper (k_SD = b_SD = 0), drivers q1 = v1 t on the
    slide and q2 = v2 t on the hinge (from 0): dof 0, ready for ``m.kinematics``."""
    m = _cart_and_rod("cart-pendulum-inverse", 0.0)
    m.add_driver("slide", position=lambda t: v1 * t, velocity=lambda t: v1, acceleration=lambda t: 0.0)
    m.add_driver("hinge", position=lambda t: v2 * t, velocity=lambda t: v2, acceleration=lambda t: 0.0)
    return m


def inverse_dynamics(t_end=T_END, rate=50):
    """(model, Result of m.kinematics, F_A, F_B) over [0, t_end]."""
    m = build_inverse_model()
    res = m.kinematics(np.linspace(0.0, t_end, int(rate * t_end) + 1))
    return (m, res, *paper_forces(res))


def paper_forces(res):
    """The paper's (F_A, F_B) from what the drivers apply: a force F_B B1 at the tip does virtual work
    F_B (B1 . delta r_tip) = F_B (cos q2 delta q1 + b_B delta q2) (tip at q1 E1 + b_B (sin q2, -cos q2),
    B1 = (cos q2, sin q2)), so the hinge torque is b_B F_B and the slide force F_A + F_B cos q2."""
    F_B = res["hinge.force"] / ROD_LENGTH
    F_A = res["slide.force"] - F_B * np.cos(res["hinge.q"])
    return F_A, F_B


def paper_eom_forces(q, qd, qdd, k_sd=0.0, b_sd=0.0):
    """The paper's eqs. (1)-(2) solved by hand for (F_A, F_B), given q = (q1, q2) and its derivatives
    (each a number or an array): (2) gives F_B, then (1) gives F_A."""
    (q1, q2), (u1, u2), (a1, a2) = q, qd, qdd
    c, mB, bB = ROD_COM, M_ROD, ROD_LENGTH
    F_B = (mB * c * np.cos(q2) * a1 + (mB * c * c + I33_ROD) * a2 + mB * G * c * np.sin(q2)) / bB      # (2)
    F_A = ((M_CART + mB) * a1 + mB * c * np.cos(q2) * a2 + b_sd * u1 - mB * c * np.sin(q2) * u2 ** 2
           + k_sd * q1 - F_B * np.cos(q2))                                                               # (1)
    return F_A, F_B


def paper_inverse_dynamics(t, v1=V1, v2=V2):
    """The paper's question in closed form: q1 = v1 t, q2 = v2 t, qdd = 0, k_SD = b_SD = 0:
    F_B = m_B g sin(v2 t) / 2,  F_A = -m_B (b_B / 2) v2^2 sin(v2 t) - F_B cos(v2 t)."""
    t = np.asarray(t, dtype=float)
    zero = np.zeros_like(t)
    return paper_eom_forces((v1 * t, v2 * t), (v1 + zero, v2 + zero), (zero, zero))


def main_inverse():
    m, res, F_A, F_B = inverse_dynamics()
    ref_A, ref_B = paper_inverse_dynamics(res.t)
    print(f"{m!r}: dof = {m.check().dof}; kinematics: {len(res.t)} samples to t = {res.t[-1]:g} s")
    print("closed form (eqs. 1-2, qdd = 0): F_B = m_B g sin t / 2, F_A = -m_B b_B sin t / 2 - F_B cos t")
    for name, F, ref in (("F_A", F_A, ref_A), ("F_B", F_B, ref_B)):
        print(f"{name}: max |{name}| = {np.abs(F).max():.6f} N, "
              f"max |mechsim - closed form| = {np.abs(F - ref).max():.2e} N")
    hinge, slide = res["hinge.reaction"], res["slide.reaction"]
    print(f"hinge reaction (cart on rod, at the hinge): force x in [{hinge[:, 3].min():+.4f}, "
          f"{hinge[:, 3].max():+.4f}] N, y in [{hinge[:, 4].min():+.4f}, {hinge[:, 4].max():+.4f}] N")
    print(f"slide reaction (ground on cart): normal force in [{slide[:, 4].min():.4f}, {slide[:, 4].max():.4f}] N")
    animate(res, "cart_pendulum_inverse")
    plot_inverse(res, F_A, F_B, ref_A, ref_B)
    return res


def plot_inverse(res, F_A, F_B, ref_A, ref_B):
    fig = new_figure(figsize=(7, 3.5))
    if fig is None:
        return
    ax = fig.subplots()
    every = max(1, len(res.t) // 60)
    for F, ref, name in ((F_A, ref_A, "F_A"), (F_B, ref_B, "F_B")):
        line, = draw(ax, res.t, F, "N", label=f"{name} from m.kinematics")
        draw(ax, res.t[::every], ref[::every], "N", ls="", marker="o", ms=3, color=line.get_color(),
             label=f"{name} eqs. (1)-(2)")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("force (N)")
    ax.set_title("Inverse dynamics, q1 = t, q2 = t (cf. Schlotter 2003, §3.4)")
    ax.set_ylim(-3.2, 4.2)
    ax.legend(fontsize=8, ncol=2, loc="upper center")
    ax.grid(True, alpha=0.3)
    save(fig, "cart_pendulum_inverse")


# ==================================================================================== §3.5 linearization
def build_paper_model(q2_0=np.pi, tip_force=None):
    """The model of the paper's §3.6 (its Fig. 12): no spring-damper, the cart pushed by the input
    ``u`` (F_A, a joint_force on the slide), the rod at q2_0 (pi: upright). ``tip_force``: callable(t)
    -> a horizontal force (N, along +x) at the rod tip, the perturbation."""
    m = _cart_and_rod("cart-pendulum-control", q2_0)
    m.add_input("u")
    m.add_force("push", "joint_force", joint="slide", value="u")
    if tip_force is not None:
        m.add_force("tip_push", "body_force", body="rod", point=(0, -ROD_LENGTH, 0),
                    force=lambda t: (tip_force(t), 0.0, 0.0))
    return m


def hand_linearization(q2, k_sd=0.0, b_sd=0.0):
    """(A, B) of eqs. (1)-(2) linearized at rest at q2 (0 hanging, pi upright), input F_A, state
    x = (q1, q2, q1', q2'): M0 x'' + D x' + K x = e1 F_A with M0 the mass matrix at q2,
    K = diag(k_SD, m_B g c cos q2), D = diag(b_SD, 0) (the q2'^2 term has no first-order part at rest)."""
    c, mB = ROD_COM, M_ROD
    M0 = np.array([[M_CART + mB, mB * c * np.cos(q2)], [mB * c * np.cos(q2), mB * c * c + I33_ROD]])
    K, D = np.diag([k_sd, mB * G * c * np.cos(q2)]), np.diag([b_sd, 0.0])
    Minv = np.linalg.inv(M0)
    A = np.block([[np.zeros((2, 2)), np.eye(2)], [-Minv @ K, -Minv @ D]])
    B = np.concatenate([np.zeros(2), Minv[:, 0]])[:, None]
    return A, B


def pendulum_rate_squared(q2):
    """Without the spring the linearization has a double zero (the free cart) and s^2 = this:
    -(m_A + m_B) m_B g c / det M0 hanging (a swing at that frequency squared), + upright (unstable)."""
    c, mB = ROD_COM, M_ROD
    det = (M_CART + mB) * (mB * c * c + I33_ROD) - (mB * c) ** 2
    return -np.cos(q2) * (M_CART + mB) * mB * G * c / det


STATES = ["slide.q", "hinge.q", "slide.v", "hinge.v"]        # the hand formulas' state order


def reorder(lin, names=STATES):
    """(A, B) of a Linearization with its states in the order ``names``."""
    idx = [lin.state_names.index(n) for n in names]
    return lin.A[np.ix_(idx, idx)], lin.B[idx]


def linearizations():
    """{"hanging": Linearization of the forward model (spring-damper on) at its trimmed rest,
        "inverted": of the paper's §3.6 model (k_SD = b_SD = 0) trimmed upright}; input the cart force."""
    hanging = build_model()
    op_h = hanging.trim()                         # from q2 = 0.1: the rest nearest q0, hanging
    inverted = build_paper_model(np.pi)
    op_i = inverted.trim()                        # upright is an (unstable) equilibrium too
    return {"hanging": hanging.linearize(op_h, inputs=["slide.force"]),
            "inverted": inverted.linearize(op_i, inputs=["u"])}


def swing(amplitude=0.01, t_end=T_END, rate=50):
    """The forward model released at q2 = amplitude: (its Result, nonlinear states, linear states) in STATES
    order, the linear from x(t) = expm(A t) x0 about the hanging rest."""
    from scipy.linalg import expm
    m = build_model(q2_0=amplitude)
    res = simulate(m, t_end)
    lin = m.linearize(m.trim(), inputs=["slide.force"])
    A, _ = reorder(lin)
    x0 = np.array([0.0, amplitude, 0.0, 0.0])
    x_lin = np.array([expm(A * t) @ x0 for t in res.t])
    x_nl = np.column_stack([res[n] for n in STATES])
    return res, x_nl, x_lin


def main_linearize():
    lins = linearizations()
    for case, q2, k, b in (("hanging", 0.0, K_SD, B_SD), ("inverted", np.pi, 0.0, 0.0)):
        lin = lins[case]
        A, B = reorder(lin)
        A_hand, B_hand = hand_linearization(q2, k, b)
        eig = np.sort_complex(np.linalg.eigvals(A))
        print(f"{case} (q2 = {lin.state.q[1]:.6f} rad, k_SD = {k:g}, b_SD = {b:g}): states {lin.state_names}")
        print(f"  eig(A) = {np.array2string(eig, precision=6)}")
        print(f"  max |A - A_hand| = {np.abs(A - A_hand).max():.2e}, max |B - B_hand| = {np.abs(B - B_hand).max():.2e}")
    s2 = pendulum_rate_squared(np.pi)
    print(f"inverted, closed form: s = 0, 0, +-sqrt({s2:.6f}) = +-{np.sqrt(s2):.6f} 1/s; hanging (k_SD = b_SD = 0): "
          f"s = +-{np.sqrt(-pendulum_rate_squared(0.0)):.6f} i")
    res, x_nl, x_lin = swing()
    print(f"small swing (q2(0) = 0.01 rad) {len(res.t)} samples to t = {res.t[-1]:g} s: max |q2 nonlinear - linear| = "
          f"{np.abs(x_nl[:, 1] - x_lin[:, 1]).max():.2e} rad, |q1| {np.abs(x_nl[:, 0] - x_lin[:, 0]).max():.2e} m")
    animate(res, "cart_pendulum_linearize")
    plot_linearize(lins, res.t, x_nl, x_lin)
    return lins


def plot_linearize(lins, t, x_nl, x_lin):
    fig = new_figure(figsize=(10, 5))
    if fig is None:
        return
    axes = fig.subplot_mosaic([["rod", "eig"], ["cart", "eig"]], gridspec_kw={"width_ratios": [2, 1]})
    a2 = axes["eig"]
    for key, k, unit, label in (("rod", 1, "rad", "q2 rod (rad)"), ("cart", 0, "m", "q1 cart (m)")):
        draw(axes[key], t, x_nl[:, k], unit, label="nonlinear")
        draw(axes[key], t, x_lin[:, k], unit, ls="--", label="linear")
        axes[key].set_ylabel(label)
        axes[key].legend(fontsize=8)
        axes[key].grid(True, alpha=0.3)
    axes["rod"].sharex(axes["cart"])
    axes["cart"].set_xlabel("t (s)")
    axes["rod"].set_title("small swing about the hanging rest")
    for case, marker in (("hanging", "o"), ("inverted", "x")):
        e = np.linalg.eigvals(lins[case].A)
        draw(a2, e.real, e.imag, "1/s", x_unit="1/s", ls="", marker=marker, label=case)
    a2.set_xlabel("Re s (1/s)")
    a2.set_ylabel("Im s (1/s)")
    a2.set_title("eig(A)")
    a2.legend(fontsize=8)
    a2.grid(True, alpha=0.3)
    fig.suptitle("Pendulum on a cart, linearized (cf. Schlotter 2003, §3.5)")
    save(fig, "cart_pendulum_linearize")


# ==================================================================================== §3.6 inverted pendulum
# The paper's PD cascade law F_A = Kp^P q1 + Kd^P q1' + Kp^R q2 + Kd^R q2' with the gains 25, 50, 500, 75
# (the text is garbled as to which is which). Which gains go with which signal follows from the paper's
# closed-loop eigenvalues 1e2 * [-2.0456, -0.0831, -0.0054 +- 0.0053i]: the linearized closed loop has the
# characteristic polynomial det M0 s^4 + (...) s^3 + (...) s^2 - m_B g c (Kd_cart s + Kp_cart) (cart gains
# with the sign of positive feedback), so Kd_cart / Kp_cart = (s^1 / s^0 coefficient) = 2.01 for those
# eigenvalues: the cart gains are 25 (on q1) and 50 (on q1'), the rod gains 500 (on the angle) and 75 (on its
# rate). All four enter with a plus sign when the rod's angle theta is measured from upright and is positive
# with the tip ahead of the cart (+x): theta = pi - q2 in our coordinates (q2 = pi upright). That the cart
# position is fed back "the wrong way" is the classical non-minimum-phase feature of the cart pendulum.
KP_CART, KD_CART = 25.0, 50.0       # N/m, N s/m on q1, q1'        (the paper's Kp^P, Kd^P)
KP_ROD, KD_ROD = 500.0, 75.0        # N/rad, N s/rad on theta, theta'  (the paper's Kp^R, Kd^R)
PAPER_EIG = 1e2 * np.array([-2.0456, -0.0831, -0.0054 + 0.0053j, -0.0054 - 0.0053j])
SAMPLE_TIME = 0.01                  # s, the sampled controller (zero-order hold)
PULSE = (1.0, 0.5, 0.1)             # N, s, s: the tip push: force along +x from 0.5 s for 0.1 s
T_CONTROL = common.t_end("15")


def control_law(q1, v1, q2, v2):
    """F_A = Kp^P q1 + Kd^P q1' + Kp^R theta + Kd^R theta', theta = pi - q2 (rod lean from upright)."""
    return KP_CART * q1 + KD_CART * v1 + KP_ROD * (np.pi - q2) - KD_ROD * v2


def controller(t, outputs):
    """The controller in mechsim's loop: joint outputs -> {"u": F_A}."""
    return {"u": control_law(outputs["slide.q"], outputs["slide.v"], outputs["hinge.q"], outputs["hinge.v"])}


def gain_row(state_names):
    """K (1 x n) with u = K x for the linearization states (deviations from upright)."""
    gains = {"slide.q": KP_CART, "slide.v": KD_CART, "hinge.q": -KP_ROD, "hinge.v": -KD_ROD}
    return np.array([[gains.get(name, 0.0) for name in state_names]])


def pulse(t):
    size, start, width = PULSE
    return size if start <= t < start + width else 0.0


def closed_loop(lin_inputs=("u", "hinge.force")):
    """(Linearization of the open loop about upright with inputs u and the hinge torque, A_cl, B_tip):
    A_cl = A + B_u K; B_tip the input column of a horizontal tip force (generalized force (1, b_B cos q2))."""
    m = build_paper_model(np.pi)
    lin = m.linearize(m.trim(), inputs=list(lin_inputs))
    A_cl = lin.A + lin.B[:, [0]] @ gain_row(lin.state_names)
    B_tip = lin.B[:, [0]] + ROD_LENGTH * np.cos(np.pi) * lin.B[:, [1]]
    return lin, A_cl, B_tip


def hand_closed_loop():
    """A_cl of the hand linearization (STATES order) with the same gains."""
    A, B = hand_linearization(np.pi)
    return A + B @ gain_row(STATES)


def control_run(q2_0=np.pi + 0.1, tip_force=None, sample_time=None, t_end=T_CONTROL, rate=100):
    """The nonlinear closed loop: the paper's model under ``controller``, continuous or sampled."""
    m = build_paper_model(q2_0, tip_force)
    t_eval = np.linspace(0.0, t_end, int(rate * t_end) + 1)
    return m, m.simulate(t_end=t_end, t_eval=t_eval, controller=controller, sample_time=sample_time,
                         rtol=1e-9, atol=1e-11, max_step=0.01)


def linear_closed_loop(A_cl, t, x0=None, B_tip=None, force=None):
    """The linear closed loop x' = A_cl x + B_tip force(t) from x0, by scipy (DOP853, tight), at t."""
    from scipy.integrate import solve_ivp
    n = A_cl.shape[0]
    x0 = np.zeros(n) if x0 is None else np.asarray(x0, float)

    def rhs(time, x):
        dx = A_cl @ x
        return dx if force is None else dx + B_tip[:, 0] * force(time)

    sol = solve_ivp(rhs, (t[0], t[-1]), x0, t_eval=t, method="DOP853", rtol=1e-11, atol=1e-13, max_step=0.005)
    return sol.y.T


def small_perturbation(epsilon=0.01, t_end=T_CONTROL):
    """Start upright + epsilon: (t, nonlinear STATES, linear closed-loop STATES) (deviations from upright)."""
    lin, A_cl, _ = closed_loop()
    idx = [lin.state_names.index(n) for n in STATES]
    A = A_cl[np.ix_(idx, idx)]
    _, res = control_run(np.pi + epsilon, t_end=t_end)
    x_nl = np.column_stack([res[n] for n in STATES]) - [0.0, np.pi, 0.0, 0.0]
    return res.t, x_nl, linear_closed_loop(A, res.t, [0.0, epsilon, 0.0, 0.0])


def zoh_closed_loop(sample_time=SAMPLE_TIME):
    """The sampled loop, linear: x_{k+1} = (Ad + Bd K) x_k with (Ad, Bd) the zero-order-hold
    discretization of the open loop about upright (STATES order), by one augmented matrix exponential."""
    from scipy.linalg import expm
    lin, _, _ = closed_loop()
    idx = [lin.state_names.index(n) for n in STATES]
    A, B = lin.A[np.ix_(idx, idx)], lin.B[idx][:, [0]]
    aug = np.zeros((5, 5))
    aug[:4, :4], aug[:4, 4:] = A, B
    E = expm(aug * sample_time)
    return E[:4, :4] + E[:4, 4:] @ gain_row(STATES)


def sampled_small_perturbation(epsilon=0.01, sample_time=SAMPLE_TIME, t_end=T_CONTROL):
    """Start upright + epsilon under the sampled controller: (t, nonlinear STATES at the sample instants,
    the linear sampled loop (zoh_closed_loop) at the same instants), deviations from upright."""
    n = int(round(t_end / sample_time))
    _, res = control_run(np.pi + epsilon, sample_time=sample_time, t_end=n * sample_time, rate=1 / sample_time)
    Phi = zoh_closed_loop(sample_time)
    x = [np.array([0.0, epsilon, 0.0, 0.0])]
    for _ in range(len(res.t) - 1):
        x.append(Phi @ x[-1])
    x_nl = np.column_stack([res[name] for name in STATES]) - [0.0, np.pi, 0.0, 0.0]
    return res.t, x_nl, np.array(x)


def main_control():
    lin, A_cl, B_tip = closed_loop()
    eig = np.sort_complex(np.linalg.eigvals(A_cl))
    print(f"open loop upright: eig(A) = {np.array2string(np.sort_complex(np.linalg.eigvals(lin.A)), precision=4)}")
    print(f"closed loop (Kp^P = {KP_CART:g}, Kd^P = {KD_CART:g}, Kp^R = {KP_ROD:g}, Kd^R = {KD_ROD:g}): "
          f"eig(A + B K) = {np.array2string(eig, precision=4)} (paper, own parameters: "
          f"{np.array2string(PAPER_EIG, precision=2)})")
    runs = {"continuous": control_run(), f"sampled {1e3 * SAMPLE_TIME:g} ms": control_run(sample_time=SAMPLE_TIME)}
    for name, (m, res) in runs.items():
        print(f"{name}: {m!r}: {len(res.t)} samples to t = {res.t[-1]:g} s; q2(0) - pi = 0.1 rad -> "
              f"|q2 - pi| = {abs(res['hinge.q'][-1] - np.pi):.2e} rad, |q1| = {abs(res['slide.q'][-1]):.2e} m "
              "at the end")
    m, res_pulse = control_run(np.pi, tip_force=pulse)
    idx = [lin.state_names.index(n) for n in STATES]
    x_lin = linear_closed_loop(A_cl, res_pulse.t, B_tip=B_tip, force=pulse)[:, idx]
    x_nl = np.column_stack([res_pulse[n] for n in STATES]) - [0.0, np.pi, 0.0, 0.0]
    print(f"tip push {PULSE[0]:g} N for {PULSE[2]:g} s: max |q2 - pi| = {np.abs(x_nl[:, 1]).max():.4f} rad, "
          f"max |nonlinear - linear| = {np.abs(x_nl[:, 1] - x_lin[:, 1]).max():.2e} rad (q2), "
          f"{np.abs(x_nl[:, 0] - x_lin[:, 0]).max():.2e} m (q1)")
    t, s_nl, s_lin = small_perturbation()
    print(f"q2(0) - pi = 0.01 rad: max |nonlinear - linear| = {np.abs(s_nl[:, 1] - s_lin[:, 1]).max():.2e} rad (q2), "
          f"{np.abs(s_nl[:, 0] - s_lin[:, 0]).max():.2e} m (q1)")
    t, d_nl, d_lin = sampled_small_perturbation()
    print(f"sampled, q2(0) - pi = 0.01 rad: max |nonlinear - linear zero-order-hold loop| = "
          f"{np.abs(d_nl[:, 1] - d_lin[:, 1]).max():.2e} rad (q2); |eig(Ad + Bd K)| = "
          f"{np.array2string(np.sort(np.abs(np.linalg.eigvals(zoh_closed_loop()))), precision=4)}")
    animate(res_pulse, "cart_pendulum_control", traces=[("rod", (0, -ROD_LENGTH, 0))])
    plot_control(runs, res_pulse, x_nl, x_lin)
    return runs


def plot_control(runs, res_pulse, x_nl, x_lin):
    fig = new_figure(figsize=(11, 7))
    if fig is None:
        return
    axes = fig.subplot_mosaic([["rod", "pushed rod"], ["cart", "pushed cart"], [".", "push"]])
    for name, (_, res) in runs.items():
        draw(axes["rod"], res.t, res["hinge.q"] - np.pi, "rad", label=name)
        draw(axes["cart"], res.t, res["slide.q"], "m", label=name)
    axes["rod"].set_title("released 0.1 rad from upright")
    t = res_pulse.t
    for key, k, unit in (("pushed rod", 1, "rad"), ("pushed cart", 0, "m")):
        draw(axes[key], t, x_nl[:, k], unit, label="nonlinear")
        draw(axes[key], t, x_lin[:, k], unit, color="k", ls="--", lw=0.8, label="linear closed loop")
    draw(axes["push"], t, [pulse(s) for s in t], "N")
    axes["pushed rod"].set_title("push at the tip (cf. Fig. 13)")
    for key, label in (("rod", "q2 − π (rad)"), ("cart", "q1 (m)"), ("pushed rod", "q2 − π (rad)"),
                       ("pushed cart", "q1 (m)"), ("push", "tip force (N)")):
        axes[key].set_ylabel(label)
        axes[key].grid(True, alpha=0.3)
    for key in ("rod", "cart", "pushed rod", "pushed cart"):
        axes[key].legend(fontsize=8)
    for above, below in (("rod", "cart"), ("pushed rod", "push"), ("pushed cart", "push")):
        axes[above].sharex(axes[below])
    for key in ("cart", "push"):
        axes[key].set_xlabel("t (s)")
    fig.suptitle("Inverted pendulum on a cart, PD cascade control (cf. Schlotter 2003, §3.6)")
    save(fig, "cart_pendulum_control")


if __name__ == "__main__":
    main(sys.argv[1:])
