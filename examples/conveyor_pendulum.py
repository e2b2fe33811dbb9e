"""A double pendulum strikes parts on a conveyor belt (Gillespie, Patoglu, Hussein & Westervelt 2005,
§6, Figs. 12-14, Table II): rebounds on a part, a plastic strike on the bare belt, sliding, sticking.

Two massless rods (l1 = l2 = 1 m) carry point masses m1 = m2 = 1 kg; the angles th1, th2 of the rods
from the downward vertical start at -pi/9 and -4 pi/9 with rates 3 and -0.3 rad/s (mechsim's joints are
relative: q1 = th1, q2 = th2 - th1). A belt d = 1.2 m below the pivot moves at vb = 2.5 m/s; the tip P2
is a rigid point contact on it, whose impacts follow Smith's law (``impact_law="smith"``: the
tangential impulse is mu_k P_n times the mean of the slips before and after, over the mean of their
sizes; Smith 1991, eq. 15), as in the paper. A part (restitution 0.9, mu_s = 0.4978, mu_k = 0.4) is
under the tip at first; the paper gives no layout of the parts, so here the part has passed at
T_PART = 0.45 s, after which the tip meets the bare belt (restitution 0, mu_s = 0.2489, mu_k = 0.2): an
event's action (``sim.set``) changes the contact's material.

What happens (exact times from the independent derivation in tests/physics/test_impact_laws.py; the
paper's, from a fixed-step RK4 at 0.01 s and its own parts, in brackets):
  1. two rebounds on the part at 0.079515 and 0.350490 s [0.07, 0.25], each with a sticking impulse
     (the tip leaves at the belt's speed);
  2. a plastic strike on the bare belt at 0.586226 s [0.41]: the impulse that would stop the slip lies
     outside the friction cone, so the tip slides. Smith's law leaves it slipping back at 0.195 m/s;
     Newton's law with Coulomb's impulse along the slip before would reverse it to 0.524 m/s
     (``compare_laws``);
  3. the belt's friction drags the tip until it moves with the belt at 0.860124 s [0.88] (Newton's law:
     1.057 s); then it rides on the belt until the friction leaves the cone.

Run: ``python examples/conveyor_pendulum.py`` (the material change comes from a Python action: there is
no model file).
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

L1 = L2 = 1.0
M1 = M2 = 1.0
D, G, VB = 1.2, 9.81, 2.5
TH10, TH20, W10, W20 = -np.pi / 9, -4 * np.pi / 9, 3.0, -0.3
PART, BELT = (0.9, 0.4978, 0.4), (0.0, 0.2489, 0.2)      # (restitution, mu_s, mu_k)
T_PART = 0.45
SWITCHES = {"smith": (0.079514920, 0.350490006, 0.586225508, 0.860123787),      # impacts 1-3, stick
            "newton": (0.079514920, 0.350490006, 0.586225508, 1.057029022)}
T_END = common.t_end("1.2")


def build_model(law="smith"):
    e, mu_s, mu_k = PART
    m = ms.Model("conveyor-pendulum", gravity=(0, -G, 0))
    m.add_body("rod1", mass=M1, com=(0, -L1, 0), inertia=(0, 0, 0))       # a point mass at the rod's end
    m.add_body("rod2", mass=M2, com=(0, -L2, 0), inertia=(0, 0, 0))
    m.add_joint("q1", "revolute", parent="ground", child="rod1", axis=(0, 0, 1), q0=TH10, v0=W10)
    m.add_joint("q2", "revolute", parent="rod1", child="rod2", parent_frame=(0, -L1, 0), axis=(0, 0, 1),
                q0=TH20 - TH10, v0=W20 - W10)
    m.add_contact("belt", body="rod2", point=(0, -L2, 0), origin=(0, -D, 0), normal=(0, 1, 0),
                  surface_velocity=VB, restitution=e, static=mu_s, kinetic=mu_k, impact_law=law)
    m.add_event(lambda t, state: t - T_PART, direction=1, name="bare belt", action=bare_belt)
    return m


def bare_belt(sim, t, state):
    e, mu_s, mu_k = BELT
    sim.set("belt", restitution=e, static=mu_s, kinetic=mu_k)


def simulate(m, t_end=T_END):
    return m.simulate(t_end=t_end, solver="DOP853", rtol=1e-12, atol=1e-12, t_eval=np.linspace(0, t_end, 601))


def switches(res):
    """The impact times and then the times the tip sticks after the last impact."""
    impacts = [e.time for e in res.events if e.kind == "impact"]
    return impacts + [e.time for e in res.events if e.kind == "stick" and e.time > max(impacts, default=0.0)]


def tip(res):
    """Height of P2 above the belt and its velocity along the belt (Fig. 14)."""
    height = res.point("rod2", (0, -L2, 0))[:, 1] + D
    velocity = res["rod2.velocity"][:, 0] + np.cross(res["rod2.omega"], res.point("rod2", (0, -L2, 0))
                                                     - res["rod2.position"])[:, 0]
    return height, velocity


def compare_laws():
    """{law: Result} for Smith's law and for Newton's law with Coulomb friction."""
    return {law: simulate(build_model(law)) for law in ("smith", "newton")}


def main():
    runs = compare_laws()
    for law, res in runs.items():
        print(f"{law}: " + common.run_line(build_model(law), res))
        for e in res.events:
            print(f"  t = {e.time:.9f} s  {e.kind:8s} {e.name}: {e.detail}")
    print("Smith's law: strikes and then sticks at " + ", ".join(f"{t:.6f}" for t in switches(runs["smith"])) +
          " s (Gillespie et al. 2005: 0.07, 0.25, 0.41, 0.88 s)")
    animate(runs["smith"], "conveyor_pendulum")
    plot(runs)
    return runs


def plot(runs):
    fig = new_figure(figsize=(10, 4))
    if fig is None:
        return
    a1, a2 = fig.subplots(1, 2)
    for law, res in runs.items():
        res = dense(res)
        height, velocity = tip(res)
        draw(a1, res.t, height, "m", label=law)
        draw(a2, res.t, velocity, "m/s", label=law)
    a1.set_ylabel("P2 above the belt (m)")
    a2.axhline(VB, color="k", lw=0.5)
    a2.set_ylabel("P2 velocity along the belt (m/s)")
    for a in (a1, a2):
        a.axvline(T_PART, color="k", lw=0.5, ls=":")
        a.set_xlabel("t (s)")
        a.legend()
        a.grid(True, alpha=0.3)
    fig.suptitle("Double pendulum on a conveyor (Gillespie et al. 2005, Table II)")
    save(fig, "conveyor_pendulum")


if __name__ == "__main__":
    main()
