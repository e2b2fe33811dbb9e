"""Pendulum on a cart (Schlotter, "Multibody System Simulation with SimMechanics", 2003, §3;
papers/002): the forward-dynamics example of that paper, built through the Python API.

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
"""
import sys
from pathlib import Path

import numpy as np

try:
    import mechsim as ms
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import mechsim as ms
from _figures import new_figure, save  # noqa: E402  (examples/_figures.py)
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


def build_model():
    m = ms.Model("cart-pendulum", gravity=(0, -G, 0))
    m.add_body("cart", mass=M_CART, inertia=box_inertia(M_CART, *CART_BOX))
    # rod frame at the hinge; the rod hangs along -y, its COM half-way down
    m.add_body("rod", mass=M_ROD, com=(0, -ROD_LENGTH / 2, 0),
               inertia=box_inertia(M_ROD, ROD_SECTION, ROD_LENGTH, ROD_SECTION),
               frames={"tip": (0, -ROD_LENGTH, 0)})
    m.add_joint("slide", "prismatic", parent="ground", child="cart", axis=(1, 0, 0))            # q1
    m.add_joint("hinge", "revolute", parent="cart", child="rod", axis=(0, 0, 1), q0=Q2_0)       # q2
    m.add_force("spring", "joint_spring_damper", joint="slide", stiffness=K_SD, damping=B_SD)
    return m


def simulate(m, t_end=T_END):
    return m.simulate(t_end=t_end, t_eval=np.linspace(0, t_end, int(50 * t_end) + 1), rtol=1e-8, atol=1e-10)


def main():
    m = build_model()
    res = simulate(m)
    q1, q2 = res["slide.q"], res["hinge.q"]
    tip = res.point("rod", (0, -ROD_LENGTH, 0))
    print(f"{m!r}: dof = {len(m.coordinates()[1])}, {len(res.t)} samples to t = {res.t[-1]:g} s")
    print(f"cart q1:  max |q1| = {np.abs(q1).max():.5f} m, q1(t_end) = {q1[-1]:+.5f} m")
    print(f"rod  q2:  max |q2| = {np.abs(q2).max():.5f} rad, q2(t_end) = {q2[-1]:+.5f} rad")
    print(f"rod tip at t_end: ({tip[-1, 0]:+.4f}, {tip[-1, 1]:+.4f}) m")
    plot(res, q1, q2)
    return res


def plot(res, q1, q2):
    fig = new_figure(figsize=(7, 3.5))
    if fig is None:
        return
    ax = fig.subplots()
    ax.plot(res.t, q1, label="q1 cart (m)")
    ax.plot(res.t, q2, label="q2 rod (rad)")
    ax.set_xlabel("t (s)")
    ax.set_title("Pendulum on a cart (cf. Schlotter 2003, Fig. 6)")
    ax.legend()
    ax.grid(True, alpha=0.3)
    save(fig, "cart_pendulum")


if __name__ == "__main__":
    main()
