"""Tumbling rigid body: the intermediate-axis (Dzhanibekov, "tennis racket") instability.

A uniform block 0.3 x 0.2 x 0.1 m, 1.2 kg, floats free (a six-DOF free joint to the ground, no
gravity). Its principal moments are Ixx = 0.005 < Iyy = 0.010 < Izz = 0.013 kg m^2, so y is the
intermediate axis. It is set spinning at 6 rad/s about y with a tiny perturbation (0.01 rad/s
about x and about z) and drifting at 0.2 m/s along X. Spin about the intermediate axis is
unstable: every few seconds the block flips over by half a turn — the spin component about its
y axis reverses sign — and flips back, again and again, while its kinetic energy and angular
momentum stay exactly constant (tests/examples checks both to 1e-6).

Same model as ``tumbling_body.yaml``. Run: ``python examples/tumbling_body.py``
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

MASS, BOX = 1.2, (0.3, 0.2, 0.1)
INERTIA = (0.005, 0.010, 0.013)            # = m (b^2 + c^2) / 12, ...: principal, body axes
OMEGA0 = (0.01, 6.0, 0.01)                 # rad/s, body axes: spin about the intermediate axis y
VELOCITY0 = (0.2, 0.0, 0.0)                # m/s, drift of the centre of mass

T_END = common.t_end("20")


def build_model():
    m = ms.Model("tumbling-body", gravity=(0, 0, 0))
    m.add_body("block", mass=MASS, inertia=INERTIA)          # body frame at the COM, principal axes
    # free joint velocity: [translational velocity in F (world); angular velocity in M (body axes)]
    m.add_joint("float", "free", parent="ground", child="block", q0=[0, 0, 0, 1, 0, 0, 0],
                v0=[*VELOCITY0, *OMEGA0])
    return m


def simulate(m, t_end=T_END):
    return m.simulate(t_end=t_end, t_eval=np.linspace(0, t_end, int(100 * t_end) + 1),
                      solver="DOP853", rtol=1e-11, atol=1e-12)


def body_omega(res):
    """(N, 3) angular velocity in body axes."""
    return np.einsum("nji,nj->ni", res["block.rotation"], res["block.omega"])


def kinetic_energy_and_momentum(m, res):
    """Rotational + translational kinetic energy (J) and world angular momentum about the COM (N m s)."""
    w = body_omega(res)
    I = m.bodies["block"].inertia
    v = res["block.velocity"]
    T = 0.5 * np.einsum("ni,ij,nj->n", w, I, w) + 0.5 * MASS * np.einsum("ni,ni->n", v, v)
    L = np.einsum("nij,jk,nk->ni", res["block.rotation"], I, w)
    return T, L


def sign_changes(x):
    s = np.sign(x)
    s = s[s != 0]
    return int(np.count_nonzero(s[1:] != s[:-1]))


def main():
    m = build_model()
    res = simulate(m)
    w = body_omega(res)
    T, L = kinetic_energy_and_momentum(m, res)
    Lnorm = np.linalg.norm(L, axis=1)
    flips = np.flatnonzero(np.diff(np.sign(w[:, 1])))
    print(common.run_line(m, res))
    print(f"spin about the intermediate axis changed sign {len(flips)} times, at t = "
          + ", ".join(f"{res.t[i]:.2f}" for i in flips) + " s")
    print(f"kinetic energy {T[0]:.9f} J, relative spread {np.ptp(T) / T[0]:.1e}; "
          f"|L| {Lnorm[0]:.9f} N m s, relative spread {np.ptp(Lnorm) / Lnorm[0]:.1e}; "
          f"max |L - L(0)| / |L| = {np.abs(L - L[0]).max() / Lnorm[0]:.1e}")
    print(f"centre of mass at t_end: {np.round(res['block.position'][-1], 6)} m")
    animate(res, "tumbling_body")
    plot(res, w)
    return res


def plot(res, w):
    fig = new_figure(figsize=(8, 3.5))
    if fig is None:
        return
    ax = fig.subplots()
    for k, label in enumerate("xyz"):
        draw(ax, res.t, w[:, k], "rad/s", label=f"ω_{label}")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("angular velocity in body axes (rad/s)")
    ax.set_title("Intermediate-axis flips of a free block (Dzhanibekov effect)")
    ax.legend()
    ax.grid(True, alpha=0.3)
    save(fig, "tumbling_body")


if __name__ == "__main__":
    main()
