"""Billiard ball: a struck ball slides, spins up and rolls; dropped on the cloth, it bounces first.

A pool ball (0.17 kg, radius 28.6 mm, a solid sphere: I = 2/5 m r^2) on a free joint, with a rigid
sphere contact on the table (the ground plane z = 0): restitution 0.5, cloth friction mu = 0.2. It is
struck at the table's height, v0 = 2 m/s along x without spin, so its contact point slips at v0:
kinetic friction mu m g slows it (a = -mu g) and spins it up (w' = 5 mu g / (2 r)) until the slip
v - w r vanishes, at t_roll = 2 v0 / (7 mu g) = 0.2912 s, where it rolls on at 5/7 v0 = 1.4286 m/s
with no friction force (a "stick" of the contact: rolling). The second ball is dropped from 0.1 m
with the same speed and a backspin: it bounces (each impact a Newton impulse with Coulomb friction,
kinetic energy never growing), the bounces close the contact below the min_bounce_speed, and it
then slides until it rolls. Both runs are exact to the closed forms the tests check.

Same model as ``billiard_ball.yaml``. Run: ``python examples/billiard_ball.py``.
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

MASS, RADIUS, SPEED, MU, RESTITUTION, G = 0.17, 0.0286, 2.0, 0.2, 0.5, 9.81
T_END = common.t_end("1")


def build_model(drop=0.0, backspin=0.0):
    """The ball with its centre ``drop`` above resting height, struck at SPEED along x with ``backspin``
    (rad/s about -y)."""
    m = ms.Model("billiard-ball", gravity=(0, 0, -G))
    inertia = 2 / 5 * MASS * RADIUS ** 2
    m.add_body("ball", mass=MASS, inertia=(inertia, inertia, inertia))
    m.add_joint("free", "free", parent="ground", child="ball", q0=[0, 0, RADIUS + drop, 1, 0, 0, 0],
                v0=[SPEED, 0, 0, 0, -backspin, 0])
    m.add_contact("cloth", body="ball", shape="sphere", radius=RADIUS, restitution=RESTITUTION, static=MU,
                  kinetic=MU)
    return m


def simulate(m, t_end=T_END):
    return m.simulate(t_end=t_end, solver="DOP853", rtol=1e-10, atol=1e-12)


def rolling():
    """(time, speed) where the struck ball starts to roll (module docstring)."""
    return 2 * SPEED / (7 * MU * G), 5 * SPEED / 7


def main():
    m = build_model()
    res, wall = common.timed(simulate, m)
    print(common.run_line(m, res, wall))
    t_roll, v_roll = rolling()
    rolls = [e.time for e in res.events if e.kind == "stick"]
    print(f"rolls from t = {rolls[0]:.9f} s (closed form {t_roll:.9f} s) at {res['ball.velocity'][-1, 0]:.9f} m/s "
          f"(5/7 v0 = {v_roll:.9f} m/s); friction then {np.abs(res['cloth.friction_force'][-1]).max():.1e} N")
    dropped = simulate(build_model(drop=0.1, backspin=40.0))
    impacts = [e for e in dropped.events if e.kind == "impact"]
    print(f"dropped with backspin: {len(impacts)} impacts, then " +
          ", ".join(f"{e.kind} at {e.time:.4f} s" for e in dropped.events if e.kind in ("contact", "stick", "slide")))
    energy = 0.5 * MASS * np.sum(dropped["ball.velocity"] ** 2, axis=1) + \
        0.2 * MASS * RADIUS ** 2 * np.sum(dropped["ball.omega"] ** 2, axis=1) + MASS * G * dropped["ball.position"][:, 2]
    print(f"its energy never grows: max increase between samples {max(np.diff(energy).max(), 0.0):.1e} J")
    animate(res, "billiard_ball")
    plot(res, dropped)
    return res


def plot(res, dropped):
    fig = new_figure(figsize=(10, 4))
    if fig is None:
        return
    a1, a2 = fig.subplots(1, 2)
    res, dropped = dense(res), dense(dropped)
    for r, label in ((res, "struck"), (dropped, "dropped, backspin")):
        draw(a1, r.t, r["ball.velocity"][:, 0], "m/s", label=f"{label}: v")
        draw(a1, r.t, r["ball.omega"][:, 1] * RADIUS, "m/s", ls="--", lw=0.8, label=f"{label}: ω r")
    a1.set_xlabel("t (s)")
    a1.set_ylabel("centre speed v, rim speed ω r (m/s)")
    a1.legend(fontsize=8)
    a1.grid(True, alpha=0.3)
    draw(a2, dropped.t, dropped["ball.position"][:, 2] - RADIUS, "m")
    a2.set_xlabel("t (s)")
    a2.set_ylabel("height above the cloth (m)")
    a2.grid(True, alpha=0.3)
    fig.suptitle("Billiard ball: sliding, bouncing, rolling")
    save(fig, "billiard_ball")


if __name__ == "__main__":
    main()
