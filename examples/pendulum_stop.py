"""A pendulum hitting a stop: a rod released horizontal falls onto a rigid stop at -1 rad, rebounds with
restitution 0.75 again and again, and comes to rest on it.

A uniform rod (m = 1 kg, L = 1 m) on a hinge about z, gravity -y, released at rest at q = 0. Its angular
speed at q follows from energy, w(q) = sqrt(2 m g c (-sin q) / I) with c = L / 2, I = m L^2 / 3, so the
first impact comes at T = integral_{-1}^{0} dq / w(q) (an elliptic integral; ``fall_time`` evaluates it)
with speed w(-1). Each impact (Newton's law on the stop's row) reverses the speed and scales it by e =
0.75 exactly; the bounces shorten geometrically (in this gravity field not exactly, as the rod swings
through a varying torque) and their sequence ends when a rebound is slower than the stop's
min_bounce_speed: the stop closes and holds the rod with the torque m g c cos(-1).

Same model as ``pendulum_stop.yaml``. Run: ``python examples/pendulum_stop.py``.
"""
import sys
from pathlib import Path

import numpy as np
from scipy.integrate import quad

try:
    import mechsim as ms
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import mechsim as ms
from _figures import animate, dense, draw, new_figure, save  # noqa: E402  (examples/_figures.py)
import _common as common  # noqa: E402  (examples/_common.py)

MASS, LENGTH, STOP, RESTITUTION, G = 1.0, 1.0, -1.0, 0.75, 9.81
C, INERTIA = LENGTH / 2, MASS * LENGTH ** 2 / 3
T_END = common.t_end("4")


def build_model():
    m = ms.Model("pendulum-stop", gravity=(0, -G, 0))
    m.add_body("rod", mass=MASS, com=(C, 0, 0), inertia=(1e-3, MASS * LENGTH ** 2 / 12, MASS * LENGTH ** 2 / 12))
    m.add_joint("hinge", "revolute", parent="ground", child="rod", axis=(0, 0, 1))
    m.add_force("stop", "joint_limit", joint="hinge", lower=STOP, restitution=RESTITUTION)
    return m


def simulate(m, t_end=T_END):
    return m.simulate(t_end=t_end, solver="DOP853", rtol=1e-11, atol=1e-11)


def speed(q):
    return np.sqrt(2 * MASS * G * C * -np.sin(q) / INERTIA)


def fall_time():
    """T of the module docstring; q = -u^2 removes the 1/sqrt singularity at q = 0."""
    return quad(lambda u: 2 * u / speed(-u * u) if u > 0 else 2 / np.sqrt(2 * MASS * G * C / INERTIA),
                0, np.sqrt(-STOP), epsabs=1e-14, epsrel=1e-14)[0]


def main():
    m = build_model()
    res, wall = common.timed(simulate, m)
    print(common.run_line(m, res, wall))
    hits = [e for e in res.events if e.kind == "limit" and "reached" in e.detail]
    print(f"{len(hits)} impacts; the first at t = {hits[0].time:.9f} s (closed form {fall_time():.9f} s) at "
          f"{speed(STOP):.9f} rad/s; the last: {hits[-1].detail}")
    print(f"at rest on the stop: q = {res['hinge.q'][-1]:.12f} rad, stop force {res['stop.force'][-1]:.9f} N m "
          f"(m g c cos(-1) = {MASS * G * C * np.cos(STOP):.9f} N m)")
    animate(res, "pendulum_stop")
    plot(res)
    return res


def plot(res):
    fig = new_figure(figsize=(8, 5))
    if fig is None:
        return
    angle, torque = fig.subplots(2, 1, sharex=True)
    d = dense(res)
    draw(angle, d.t, d["hinge.q"], "rad")
    angle.axhline(STOP, color="k", lw=0.5)
    angle.set_ylabel("rod angle (rad)")
    draw(torque, d.t, d["stop.force"], "N·m", lw=0.8)
    torque.set_ylabel("stop torque (N·m)")
    torque.set_xlabel("t (s)")
    for ax in (angle, torque):
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"A pendulum hitting a stop, restitution {RESTITUTION}")
    save(fig, "pendulum_stop")


if __name__ == "__main__":
    main()
