"""Four-bar linkage of Khan, Tang & Krovi (2006, §5.1, Table 1), driven by a constant torque.

Planar four-bar in the x–y plane, gravity 9.81 m/s² along −y (the paper's G_A, G_B: potential
m g y). Ground pivots A = (0, 0, 0) and D = (3, 0, 0); crank AB (l1 = 1 m), coupler BC
(l2 = 4 m), rocker DC (l3 = 2.5 m); every link 1 kg with its centre of mass at mid-length and
I = m l²/12 about z. The paper's angles are absolute, from the horizontal: crank θ, coupler α,
rocker φ. mechsim's are relative: ``j1`` (ground–crank at A) is θ, ``j2`` (crank–coupler at B) is
α − θ, ``j4`` (ground–rocker at D) is φ, and ``j3`` (coupler–rocker at C, the cut joint that closes
the loop) is φ − α. A constant 6 N m on the crank (``motor``) from rest at θ(0) = 1.5708 rad. The
crank turns over and over (a Grashof crank–rocker) and speeds up: 34 turns in 10 s.

The paper's α(0) = 0.3533 and φ(0) = 1.2649 rad are 4-digit roundings: the model starts from the
loop solved at θ(0) = 1.5708 (``loop_angles``), so assembly does not move the crank.

The independent reference (``examples/reference/four_bar_reference.py`` → ``four_bar.json``) is
Lagrange's equation in θ alone with the loop closed in closed form, integrated by DOP853 at
rtol 1e-12. This script simulates the model with the three drift controls (projection,
stabilization, Baumgarte), prints each run's crank angle at 10 s against the reference, its
loop-closure error and its energy balance, and plots them.

Same model as ``four_bar.yaml``. Run: ``python examples/four_bar.py``
(``MECHSIM_EXAMPLE_T_END`` shortens the run, ``MECHSIM_EXAMPLE_OUT`` moves the plot).
"""
import json
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

L0, L1, L2, L3 = 3.0, 1.0, 4.0, 2.5      # ground, crank, coupler, rocker (m)
MASS = 1.0
G = 9.81
TORQUE = 6.0
THETA0 = 1.5708
REFERENCE = Path(__file__).resolve().parent / "reference" / "four_bar.json"
DRIFTS = ("projection", "stabilization", "baumgarte")
T_END = common.t_end("10")
RTOL, ATOL = 1e-11, 1e-11


def loop_angles(theta):
    """(alpha, phi): absolute coupler and rocker angles closing the loop at crank angle theta (the
    paper's branch, C to the left of B -> D)."""
    B = np.array([L1 * np.cos(theta), L1 * np.sin(theta)])
    d = np.array([L0, 0.0]) - B
    dist = np.hypot(*d)
    x = (dist ** 2 + L2 ** 2 - L3 ** 2) / (2 * dist)
    u = d / dist
    C = B + x * u + np.sqrt(L2 ** 2 - x ** 2) * np.array([-u[1], u[0]])
    return np.arctan2(C[1] - B[1], C[0] - B[0]), np.arctan2(C[1], C[0] - L0)


def link(m, name, length):
    """A slender 1 kg link along its body x axis, body frame at its proximal joint."""
    m.add_body(name, mass=MASS, com=(length / 2, 0, 0),
               inertia=(0.0, MASS * length ** 2 / 12, MASS * length ** 2 / 12), frames={"tip": (length, 0, 0)})


def build_model(theta0=THETA0):
    alpha0, phi0 = loop_angles(theta0)
    m = ms.Model("four-bar", gravity=(0, -G, 0))
    link(m, "crank", L1)
    link(m, "coupler", L2)
    link(m, "rocker", L3)
    z = (0, 0, 1)
    m.add_joint("j1", "revolute", parent="ground", child="crank", axis=z, q0=theta0)
    m.add_joint("j2", "revolute", parent="crank", child="coupler", parent_frame="tip", axis=z, q0=alpha0 - theta0)
    m.add_joint("j4", "revolute", parent="ground", child="rocker", parent_frame=(L0, 0, 0), axis=z, q0=phi0)
    m.add_joint("j3", "revolute", parent="coupler", child="rocker", parent_frame="tip", child_frame="tip",
                axis=z, q0=phi0 - alpha0, cut=True)
    m.add_force("motor", "joint_force", joint="j1", value=TORQUE)
    return m


def reference():
    """The independent reference (examples/reference/four_bar.json) as a dict of arrays."""
    data = json.loads(REFERENCE.read_text())
    return {k: np.asarray(v) if isinstance(v, list) else v for k, v in data.items()}


def simulate(m, drift="projection", t_end=T_END, rtol=RTOL, atol=ATOL, solver="DOP853", rate=100):
    return m.simulate(t_end=t_end, t_eval=np.linspace(0, t_end, int(rate * t_end) + 1), solver=solver,
                      rtol=rtol, atol=atol, drift=drift)


def absolute_angles(res):
    """(theta, alpha, phi) of the paper from mechsim's relative joint angles."""
    return res["j1.q"], res["j1.q"] + res["j2.q"], res["j4.q"]


def energy(m, res):
    """Kinetic plus potential energy (J) at every sample, from the body signals."""
    return common.energy(m, res, ("crank", "coupler", "rocker"))


def energy_balance(m, res):
    """Kinetic + potential energy minus the work of the motor: constant."""
    return energy(m, res) - TORQUE * (res["j1.q"] - res["j1.q"][0])


def main():
    m = build_model()
    print(m.check())
    ref = reference()
    runs = {}
    for drift in DRIFTS:
        res, wall = common.timed(simulate, m, drift)
        runs[drift] = res
        theta = res["j1.q"]
        line = f"{drift:>13}: {wall:6.2f} s wall, max loop-closure error {res.constraint_error.max():.1e}"
        if res.t[-1] in ref["t"]:
            line += f", crank at t = {res.t[-1]:g} s off the reference by " \
                    f"{abs(theta[-1] - ref['crank'][list(ref['t']).index(res.t[-1])]):.1e} rad"
        eb = energy_balance(m, res)
        line += f", energy balance drift {np.ptp(eb):.1e} J"
        print(line)
    res = runs["projection"]
    animate(res, "four_bar", bodies="hull", traces=[("coupler", (L2 / 2, 0, 0))])
    print(common.run_line(m, res))
    print(f"crank angle at t_end = {res['j1.q'][-1]:.9f} rad ({res['j1.q'][-1] / (2 * np.pi):.2f} turns), "
          f"rate {res['j1.v'][-1]:.6f} rad/s")
    plot(runs, ref)
    return runs


def plot(runs, ref):
    fig = new_figure(figsize=(10, 4))
    if fig is None:
        return
    a1, a2 = fig.subplots(1, 2)
    for drift, res in runs.items():
        draw(a1, res.t, res["j1.q"], "rad", label=drift)
        draw(a2, res.t, np.maximum(res.constraint_error, 1e-17), "m", label=drift)
    draw(a1, ref["t"], ref["crank"], "rad", color="k", ls="", marker=".", label="reference (Lagrange in θ)")
    a2.set_yscale("log")
    a1.set_xlabel("t (s)")
    a1.set_ylabel("crank angle θ (rad)")
    a1.legend()
    a1.grid(True, alpha=0.3)
    a2.set_xlabel("t (s)")
    a2.set_ylabel("loop-closure error max |g| (m)")
    a2.legend()
    a2.grid(True, alpha=0.3)
    fig.suptitle("Four-bar of Khan, Tang & Krovi: 6 N m on the crank")
    save(fig, "four_bar")


if __name__ == "__main__":
    main()
