"""Double pendulum: two rods hinged about z, released from the horizontal (chaotic motion).

Two nearly uniform rods, 1 kg and 1 m each, hang from each other on revolute joints about the
world z axis; gravity along -y. At q = 0 both hang straight down. The run starts with the first
rod horizontal (q1 = pi/2) and the second continuing it (q2 = 0, the angle relative to the first
rod), at rest. The motion is chaotic: the lower rod flips over the top again and again. Total
energy is conserved (no friction) — tests/examples checks it.

Same model as ``double_pendulum.yaml``. Run: ``python examples/double_pendulum.py``
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
from _figures import animate, draw, new_figure, save  # noqa: E402  (examples/_figures.py)
import _common as common  # noqa: E402  (examples/_common.py)

MASS, LENGTH = 1.0, 1.0
INERTIA = (0.0834, 0.0001, 0.0834)       # about the COM: ~ m (L^2 + a^2) / 12 for a 0.02 m section
G = 9.81
Q0 = (np.pi / 2, 0.0)

T_END = common.t_end("10")


def build_model():
    m = ms.Model("double-pendulum", gravity=(0, -G, 0))
    for name in ("upper", "lower"):       # body frame at the upper end, rod along -y
        m.add_body(name, mass=MASS, com=(0, -LENGTH / 2, 0), inertia=INERTIA, frames={"tip": (0, -LENGTH, 0)})
    m.add_joint("j1", "revolute", parent="ground", child="upper", axis=(0, 0, 1), q0=Q0[0])
    m.add_joint("j2", "revolute", parent="upper", child="lower", parent_frame="tip", axis=(0, 0, 1), q0=Q0[1])
    return m


def simulate(m, t_end=T_END):
    return m.simulate(t_end=t_end, t_eval=np.linspace(0, t_end, int(100 * t_end) + 1), rtol=1e-9, atol=1e-11)


def energy(m, res):
    """Kinetic plus potential energy (J) at every sample, from the body signals."""
    return common.energy(m, res, ("upper", "lower"))


def main():
    m = build_model()
    res = simulate(m)
    E = energy(m, res)
    tip = res.point("lower", (0, -LENGTH, 0))
    flips = np.count_nonzero(np.diff(np.floor((res["j1.q"] + res["j2.q"] + np.pi) / (2 * np.pi))))
    print(common.run_line(m, res))
    print(f"j1.q(t_end) = {res['j1.q'][-1]:+.6f} rad, j2.q(t_end) = {res['j2.q'][-1]:+.6f} rad")
    print(f"lower tip at t_end: ({tip[-1, 0]:+.4f}, {tip[-1, 1]:+.4f}) m; lower rod flipped over the top {flips} times")
    print(common.energy_line(E))
    animate(res, "double_pendulum", traces=[("lower", (0, -LENGTH, 0))])
    plot(res, tip)
    return res


def plot(res, tip):
    fig = new_figure(figsize=(10, 4))
    if fig is None:
        return
    a1, a2 = fig.subplots(1, 2)
    draw(a1, res.t, res["j1.q"], "rad", label="j1.q")
    draw(a1, res.t, res["j2.q"], "rad", label="j2.q")
    a1.set_xlabel("t (s)")
    a1.set_ylabel("joint angle (rad)")
    a1.legend()
    a1.grid(True, alpha=0.3)
    draw(a2, tip[:, 0], tip[:, 1], "m", x_unit="m", lw=0.6)
    a2.set_aspect("equal")
    a2.set_title("tip of the lower rod")
    a2.set_xlabel("x (m)")
    a2.set_ylabel("y (m)")
    fig.suptitle("Double pendulum released from the horizontal")
    save(fig, "double_pendulum")


if __name__ == "__main__":
    main()
