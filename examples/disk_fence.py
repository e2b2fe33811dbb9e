"""A disk on a ramp meets a fence whose shape is decided during the run (Gillespie, Patoglu, Hussein &
Westervelt 2005, Example 2, Figs. 8-11): the constraint it rolls on next is only known at t = 7 s.

A uniform disk (m = 1 kg, r = 1 m, J = 1/2 kg m^2, planar: x down the ramp, y off it, gravity tilted by
phi = pi/12 as in Example 1) rolls down the ramp (friction 0.5) from O at u0 = 0.5 m/s. The ramp ends at
P, L = 54 m from O, where a fence joins it: an arc of angle beta = 60 deg whose radius R is not known
when the run starts. At t = 7 s (the paper's "sensory feedback") an event's action measures the disk and
chooses R so that the disk leaves the fence's end at u_exit = 11 m/s, the task of this parts feeder.
When the disk reaches P, an action removes the ramp's contact and adds the fence's (``sim.add_contact``:
a cylinder of radius R, the disk inside it, its axis through C = (L, R) on the normal to the ramp at P;
the paper's modes 2 and 3); at the fence's end another removes it and the disk flies free.

Closed forms (the paper gives no numbers for this example; these are ours). Rolling, the contact point
is the instantaneous centre, so the kinetic energy is M u^2 / 2 with M = m + J / r^2, on the ramp and
inside the arc alike, and no work is lost:
  1. on the ramp, u' = a = m g sin(phi) / M: x = u0 t + a t^2 / 2, reaching L at t_P with u_P = u0 + a t_P;
  2. on the fence the centre turns about C at rho = R - r; at the end (angle beta) it has risen by
     rho (1 - cos beta) off the ramp and moved rho sin beta along it, so M (u_exit^2 - u_P^2) / 2 =
     m g rho (sin phi sin beta - cos phi (1 - cos beta)): the R chosen at t = 7 s (``fence_radius``) from
     the u_P predicted then;
  3. free, the centre flies on a parabola from the end point with the velocity u_exit (cos, sin)(beta).

Run: ``python examples/disk_fence.py`` (the fence is made by Python actions: there is no model file).
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

PHI, MU, MASS, J, RADIUS, G = np.pi / 12, 0.5, 1.0, 0.5, 1.0, 9.81
L, BETA, U0, U_EXIT, T_DECIDE = 54.0, np.pi / 3, 0.5, 11.0, 7.0
M_EFF = MASS + J / RADIUS ** 2
A_ROLL = MASS * G * np.sin(PHI) / M_EFF
T_END = common.t_end("10")


def fence_radius(x, u):
    """R from the disk at x with speed u (before P): u_P^2 = u^2 + 2 a (L - x), then step 2 of the
    module docstring."""
    u_P2 = u * u + 2 * A_ROLL * (L - x)
    rise = np.sin(PHI) * np.sin(BETA) - np.cos(PHI) * (1 - np.cos(BETA))          # < 0: the fence climbs
    return RADIUS + M_EFF * (U_EXIT ** 2 - u_P2) / (2 * MASS * G * rise)


def build_model():
    """The disk on the ramp, with the three events whose actions decide, add and remove the fence."""
    m = ms.Model("disk-fence", gravity=(G * np.sin(PHI), -G * np.cos(PHI), 0.0))
    m.add_body("disk", mass=MASS, inertia=(J / 2, J / 2, J))
    m.add_joint("roll", "planar", parent="ground", child="disk", q0=[0.0, RADIUS, 0.0], v0=[U0, 0.0, -U0 / RADIUS])
    m.add_contact("ramp", body="disk", shape="sphere", radius=RADIUS, normal=(0, 1, 0), static=MU, kinetic=MU)
    fence = {}

    def decide(sim, t, state):                  # t = 7 s: the fence's shape becomes known
        x, u = state["roll.q"][0], state["roll.v"][0]
        fence["R"] = fence_radius(x, u)
        sim.log("user", "decide", f"fence radius R = {fence['R']:.9g} m for a {U_EXIT:g} m/s exit")

    def enter(sim, t, state):                   # at P: the ramp ends, the fence begins
        sim.remove_contact("ramp")
        sim.add_contact("fence", body="disk", shape="sphere", radius=RADIUS, surface_shape="cylinder",
                        surface_radius=fence["R"], inside=True, surface_axis=(0, 0, 1), origin=(L, fence["R"], 0),
                        static=MU, kinetic=MU)

    def leave(t, state):                        # the centre's angle about C past beta: the fence's end
        if "R" not in fence:
            return -1.0
        x, y = state["roll.q"][0] - L, fence["R"] - state["roll.q"][1]
        return np.arctan2(x, y) - BETA

    m.add_event(lambda t, state: t - T_DECIDE, direction=1, action=decide, name="sense")
    m.add_event("roll.q[0]", value=L, direction=1, action=enter, name="fence_starts")
    m.add_event(leave, direction=1, action=lambda sim, t, state: sim.remove_contact("fence"), name="fence_ends")
    return m, fence


def simulate(m, t_end=T_END):
    return m.simulate(t_end=t_end, solver="DOP853", rtol=1e-10, atol=1e-12, t_eval=np.linspace(0, t_end, 501))


def reaches_P():
    """(t_P, u_P) of step 1."""
    t_P = (-U0 + np.sqrt(U0 ** 2 + 2 * A_ROLL * L)) / A_ROLL
    return t_P, U0 + A_ROLL * t_P


def energy(res):
    """M u^2 / 2 + potential: the disk's energy (J), with its spin, along the run."""
    v, q = res["roll.v"], res["roll.q"]
    g = np.array([G * np.sin(PHI), -G * np.cos(PHI)])
    return 0.5 * MASS * (v[:, 0] ** 2 + v[:, 1] ** 2) + 0.5 * J * v[:, 2] ** 2 - MASS * q[:, :2] @ g


def main():
    m, fence = build_model()
    res, wall = common.timed(simulate, m)
    print(common.run_line(m, res, wall))
    for e in res.events:
        print(f"  t = {e.time:.9f} s  {e.kind:9s} {e.name}: {e.detail}")
    t_P, u_P = reaches_P()
    print(f"closed form: reaches P at t = {t_P:.9f} s at {u_P:.9f} m/s; leaves the fence at {U_EXIT:g} m/s")
    print(common.energy_line(energy(res)[res.t < res.events[-1].time]))
    animate(res, "disk_fence")
    plot(res)
    return res


def plot(res):
    fig = new_figure(figsize=(9, 3))
    if fig is None:
        return
    ax = fig.subplots()
    centre = dense(res)["roll.q"]
    draw(ax, centre[:, 0], centre[:, 1], "m", x_unit="m", label="centre of the disk (ramp frame)")
    ax.axvline(L, color="k", lw=0.5)
    ax.set_xlabel("x along the ramp (m)")
    ax.set_ylabel("y off the ramp (m)")
    ax.set_aspect("equal")
    ax.legend()
    ax.grid(True, alpha=0.3)
    fig.suptitle("A disk rolls down a ramp onto a fence decided at t = 7 s, and flies off its end")
    save(fig, "disk_fence")


if __name__ == "__main__":
    main()
