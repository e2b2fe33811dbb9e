"""Bricard's mechanism: an overconstrained spatial 6R loop that moves (IFToMM benchmark A04).

The MBS benchmark A04 of the IFToMM Technical Committee for Multibody Dynamics library
(https://www.iftomm-multibody.org/benchmark/, originally lim.ii.udc.es/mbsbenchmark, problem
A04, González, Dopico, Lugrís & Cuadrado, Multibody Syst. Dyn. 16 (2006) 179-190): five rods of
1 m with a uniformly distributed mass of 1 kg, joined to each other and to the ground by six
revolute joints; gravity 9.81 m/s² along -y; a 10 s dynamic simulation from the configuration
of the benchmark's figure, at rest.

The rods run between the points P1 = (0, 0, 0), P2 = (1, 0, 0), P3 = (1, -1, 0), P4 = (1, -1, 1),
P5 = (0, -1, 1) and P6 = (0, 0, 1); the ground closes the loop from P6 back to P1. Each joint
axis is perpendicular to the two links it joins: y at P1, z at P2, x at P3, y at P4, z at P5,
x at P6 (the geometry of the benchmark as implemented in its public OpenSim and simEngine3D
versions). Grübler's count for six links and six revolutes in space gives 6·5 − 6·5 = 0
degrees of freedom; the special axes give the mechanism one. In mechsim the chain
ground → rod1 → … → rod5 is the tree (five revolutes, ``j1`` … ``j5``) and ``j6`` (rod5 to ground
at P6) is cut: its five closure equations have rank four, so ``check()`` reports dof 1 and one
redundant equation.

Rods are slender (inertia m L²/12 about their transverse axes, none about their own axis).
Body frames sit at each rod's first joint, parallel to the world axes at q = 0, so every joint
angle is 0 in the initial configuration. Point P3 (``rod2`` tip, the benchmark's output) is
``res.point("rod2", (0, -1, 0))``.

Same model as ``bricard.yaml``. Run: ``python examples/bricard.py``
(``MECHSIM_EXAMPLE_T_END`` shortens the run, ``MECHSIM_EXAMPLE_OUT`` moves the plot).
"""
import os
import sys
import time
from pathlib import Path

import numpy as np

try:
    import mechsim as ms
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import mechsim as ms
from _figures import new_figure, save  # noqa: E402  (examples/_figures.py)

MASS, LENGTH, G = 1.0, 1.0, 9.81
I_ROD = MASS * LENGTH ** 2 / 12
# rod: (its direction in its body frame, axis of the joint at its first end)
RODS = {
    "rod1": ((1, 0, 0), (0, 1, 0)),     # P1 -> P2, joint j1 at P1 about y
    "rod2": ((0, -1, 0), (0, 0, 1)),    # P2 -> P3, joint j2 at P2 about z
    "rod3": ((0, 0, 1), (1, 0, 0)),     # P3 -> P4, joint j3 at P3 about x
    "rod4": ((-1, 0, 0), (0, 1, 0)),    # P4 -> P5, joint j4 at P4 about y
    "rod5": ((0, 1, 0), (0, 0, 1)),     # P5 -> P6, joint j5 at P5 about z
}
CLOSING_AXIS = (1, 0, 0)                # j6 at P6 = (0, 0, 1), rod5 to ground
P6 = (0.0, 0.0, LENGTH)
T_END = float(os.environ.get("MECHSIM_EXAMPLE_T_END", "10"))


def rod_inertia(direction):
    return tuple(0.0 if d else I_ROD for d in np.abs(direction))


def build_model():
    m = ms.Model("bricard", gravity=(0, -G, 0))
    for name, (direction, _) in RODS.items():
        tip = tuple(LENGTH * c for c in direction)
        m.add_body(name, mass=MASS, com=tuple(c / 2 for c in tip), inertia=rod_inertia(direction),
                   frames={"tip": tip})
    parent = "ground"
    for i, (name, (_, axis)) in enumerate(RODS.items(), start=1):
        m.add_joint(f"j{i}", "revolute", parent=parent, child=name,
                    parent_frame=None if parent == "ground" else "tip", axis=axis, q0=0.0, v0=0.0)
        parent = name
    m.add_joint("j6", "revolute", parent="ground", child="rod5", parent_frame=P6, child_frame="tip",
                axis=CLOSING_AXIS, q0=0.0, cut=True)
    return m


def simulate(m, t_end=T_END, **options):
    options = {"rtol": 1e-10, "atol": 1e-12, **options}
    return m.simulate(t_end=t_end, t_eval=np.linspace(0, t_end, int(100 * t_end) + 1), **options)


def energy(m, res, names=tuple(RODS)):
    """Kinetic plus potential energy (J) at every sample, from the body signals."""
    g = np.asarray(m.gravity)
    E = np.zeros(len(res.t))
    for name in names:
        body = m.bodies[name]
        R, w = res[f"{name}.rotation"], res[f"{name}.omega"]
        c = res.point(name, body.com)
        vc = res[f"{name}.velocity"] + np.cross(w, c - res[f"{name}.position"])
        Iw = np.einsum("nij,jk,nlk,nl->ni", R, body.inertia, R, w)      # R I R^T w
        E += 0.5 * body.mass * np.einsum("ni,ni->n", vc, vc) + 0.5 * np.einsum("ni,ni->n", w, Iw) - body.mass * c @ g
    return E


def main():
    m = build_model()
    print(m.check())
    start = time.perf_counter()
    res = simulate(m)
    wall = time.perf_counter() - start
    E = energy(m, res)
    p3 = res.point("rod2", (0, -LENGTH, 0))
    print(f"{m!r}: {len(res.t)} samples to t = {res.t[-1]:g} s in {wall:.3f} s wall time")
    print(f"j1.q in [{res['j1.q'].min():+.6f}, {res['j1.q'].max():+.6f}] rad; "
          f"P3 at t_end: ({p3[-1, 0]:+.6f}, {p3[-1, 1]:+.6f}, {p3[-1, 2]:+.6f}) m")
    print(f"energy E(0) = {E[0]:.6f} J, max |E - E(0)| = {np.abs(E - E[0]).max():.2e} J; "
          f"loop-closure error max |g| = {np.max(res.constraint_error):.2e}")
    plot(res, p3, E)
    return res


def plot(res, p3, E):
    fig = new_figure(figsize=(10, 4))
    if fig is None:
        return
    a1, a2 = fig.subplots(1, 2)
    for i, axis in enumerate("xyz"):
        a1.plot(res.t, p3[:, i], label=f"P3 {axis}")
    a1.set_xlabel("t (s)")
    a1.set_ylabel("m")
    a1.legend()
    a1.grid(True, alpha=0.3)
    a2.plot(res.t, E - E[0])
    a2.set_xlabel("t (s)")
    a2.set_ylabel("E - E(0) (J)")
    a2.grid(True, alpha=0.3)
    fig.suptitle("Bricard's mechanism (IFToMM benchmark A04)")
    save(fig, "bricard")


if __name__ == "__main__":
    main()
