"""Disk on a ramp (Gillespie, Patoglu, Hussein & Westervelt 2005, Example 1 and Table I): a uniform disk
slides up a ramp, rolls, slides back down through a friction-free zone, and rolls again.

A disk of mass m = 1 kg, radius r = 1 m and J = 1/2 kg m^2 on a ramp inclined at phi = pi/12; the ramp's
friction is mu = 0.2 below L = 22 m and 0 above. The disk is a planar body (x up the ramp, y off it,
gravity tilted by phi) with a rigid disk contact on the ramp; the friction-free zone is two events on
the disk's position along the ramp whose actions set the contact's friction (sim.set). Starting at
q1 = 14 m with u1 = 7 m/s up the ramp and u2 = r q2' = -4 m/s, the contact point slips up at u1 + u2 =
3 m/s, so kinetic friction F = mu m g cos(phi) acts down the ramp and
  1. slides:  u1' = -g (sin + mu cos),  u2' = -F r^2 / J,  until the slip u1 + u2 vanishes at t1;
  2. rolls:   u1' = -g sin / (1 + J / (m r^2)), the friction needed J |u1'| / r^2 < mu N, until the
     contact point reaches L (q1 = L) at t2;
  3. slides without friction: u2 stays, u1' = -g sin, up and back to q1 = L at t3 = t2 + 2 u1(t2) / (g sin);
  4. slides with friction again, now slipping down at 2 u1(t2): u1' = -g sin + mu g cos, u2' = +F r^2 / J,
     until the slip vanishes at t4, where it rolls down for good.
The paper reports t1 = 0.37 s, t2 = 1.72 s and t4 = 6.13 s (its fixed-step RK4 at 0.01 s); ``switches``
gives the exact times (0.364766, 1.720461, 4.152756 and 6.115501 s; the paper's 6.13 s is within its
step of 0.01 s and its tolerance on the rolling condition), which the tests check to 1e-8 s.

Same model as ``disk_on_ramp.yaml``. Run: ``python examples/disk_on_ramp.py``.
"""
import sys
from pathlib import Path

import numpy as np

try:
    import mechsim as ms
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import mechsim as ms
from _figures import animate, dense, draw, new_figure, save  # noqa: E402  (examples/_figures.py)
import _common as common  # noqa: E402  (examples/_common.py)

PHI, MU, MASS, J, L, RADIUS, Q10, U10, U20, G = np.pi / 12, 0.2, 1.0, 0.5, 22.0, 1.0, 14.0, 7.0, -4.0, 9.81
T_END = common.t_end("8")


def build_model():
    m = ms.Model("disk-on-ramp", gravity=(-G * np.sin(PHI), -G * np.cos(PHI), 0.0))
    m.add_body("disk", mass=MASS, inertia=(J / 2, J / 2, J))
    m.add_joint("roll", "planar", parent="ground", child="disk", q0=[Q10, RADIUS, 0.0], v0=[U10, 0.0, U20 / RADIUS])
    m.add_contact("ramp", body="disk", shape="disk", radius=RADIUS, axis=(0, 0, 1), normal=(0, 1, 0),
                  static=MU, kinetic=MU)
    m.add_event("disk.position[0]", value=L, direction=1, name="frictionless",
                action={"set": {"ramp": {"static": 0.0, "kinetic": 0.0}}})
    m.add_event("disk.position[0]", value=L, direction=-1, name="friction",
                action={"set": {"ramp": {"static": MU, "kinetic": MU}}})
    return m


def simulate(m, t_end=T_END):
    return m.simulate(t_end=t_end, solver="DOP853", rtol=1e-10, atol=1e-12)


def switches():
    """(t1, t2, t3, t4) of the module docstring's four phases."""
    g_sin, g_cos = G * np.sin(PHI), G * np.cos(PHI)
    spin = MU * MASS * g_cos * RADIUS ** 2 / J                          # |u2'| while sliding with friction
    t1 = (U10 + U20) / (g_sin + MU * g_cos + spin)
    u1, q1 = U10 - (g_sin + MU * g_cos) * t1, Q10 + U10 * t1 - 0.5 * (g_sin + MU * g_cos) * t1 ** 2
    a = g_sin / (1 + J / (MASS * RADIUS ** 2))
    tau = (u1 - np.sqrt(u1 ** 2 - 2 * a * (L - q1))) / a                  # q1 + u1 tau - a tau^2 / 2 = L
    t2, u_L = t1 + tau, u1 - a * tau
    t3 = t2 + 2 * u_L / g_sin
    t4 = t3 + 2 * u_L / (-g_sin + MU * g_cos + spin)
    return t1, t2, t3, t4


def main():
    m = build_model()
    res, wall = common.timed(simulate, m)
    print(common.run_line(m, res, wall))
    for e in res.events:
        print(f"  t = {e.time:.9f} s  {e.kind:9s} {e.name}: {e.detail}")
    exact = switches()
    print("closed form: " + ", ".join(f"t{k + 1} = {t:.9f} s" for k, t in enumerate(exact)) +
          " (Gillespie et al. 2005: 0.37, 1.72, -, 6.13 s)")
    animate(res, "disk_on_ramp")
    plot(res)
    return res


def plot(res):
    fig = new_figure(figsize=(10, 5))
    if fig is None:
        return
    axes = fig.subplot_mosaic([["q", "slip"], ["q", "mode"]])
    a1 = axes["q"]
    res = dense(res)
    draw(a1, res.t, res["roll.q"][:, 0], "m")
    a1.axhline(L, color="k", lw=0.5)
    a1.set_xlabel("t (s)")
    a1.set_ylabel("q1: centre along the ramp (m)")
    a1.grid(True, alpha=0.3)
    draw(axes["slip"], res.t, res["roll.v"][:, 0] + RADIUS * res["roll.v"][:, 2], "m/s")
    axes["slip"].set_ylabel("slip u1 + r u3 (m/s)")
    draw(axes["mode"], res.t, res["ramp.mode"], "")
    axes["mode"].set_yticks([0, 1, 2], ["open", "sliding", "rolling"])
    axes["mode"].set_ylabel("contact mode")
    axes["mode"].set_xlabel("t (s)")
    axes["slip"].sharex(axes["mode"])
    for ax in (axes["slip"], axes["mode"]):
        ax.grid(True, alpha=0.3)
    fig.suptitle("Disk on a ramp with a friction-free zone (Gillespie et al. 2005, Example 1)")
    save(fig, "disk_on_ramp")


if __name__ == "__main__":
    main()
