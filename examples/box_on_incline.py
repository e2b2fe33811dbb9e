"""A box on an incline: it rests below the friction angle and slides above it, on its four corners.

A 3 kg box (0.4 x 0.3 x 0.2 m) on a free joint, a rigid box contact (its eight corners; four touch)
on an incline (gravity tilted by theta: x down the slope, z off it), static friction 0.5, kinetic 0.4.
At 20 deg (tan = 0.36 < 0.5) the box stays: the friction m g sin theta is the resultant of its corners,
which have more rows (4 gaps, 8 slips) than the box has freedoms — the redundancy analysis keeps an
independent set and the static cone is checked on the resultant. At 30 deg (tan = 0.58 > 0.5) it slides
from rest with a = g (sin - 0.4 cos): x = a t^2 / 2, its corners' normal forces summing to m g cos.

Same model as ``box_on_incline.yaml`` (the 30 deg run). Run: ``python examples/box_on_incline.py``.
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

MASS, SIZE, STATIC, KINETIC, G = 3.0, (0.4, 0.3, 0.2), 0.5, 0.4, 9.81
T_END = common.t_end("2")


def gravity(theta):
    return (G * np.sin(theta), 0.0, -G * np.cos(theta))


def build_model(theta=np.radians(30)):
    m = ms.Model("box-on-incline", gravity=gravity(theta))
    a, b, c = SIZE
    m.add_body("box", mass=MASS, inertia=(MASS * (b * b + c * c) / 12, MASS * (a * a + c * c) / 12,
                                          MASS * (a * a + b * b) / 12))
    m.add_joint("free", "free", parent="ground", child="box", q0=[0, 0, c / 2, 1, 0, 0, 0])
    m.add_contact("floor", body="box", shape="box", size=SIZE, static=STATIC, kinetic=KINETIC)
    return m


def simulate(m, t_end=T_END):
    return m.simulate(t_end=t_end, solver="DOP853", rtol=1e-10, atol=1e-12)


def acceleration(theta):
    return G * (np.sin(theta) - KINETIC * np.cos(theta))


def main():
    held = simulate(build_model(np.radians(20)), 1.0)
    print(f"20 deg: the box moves {np.abs(held['box.position'][:, 0]).max():.1e} m in 1 s; friction "
          f"{held['floor.friction_force'][-1, 0]:.6f} N (- m g sin = {-MASS * G * np.sin(np.radians(20)):.6f} N), "
          f"normal force {held['floor.normal_force'][-1]:.6f} N")
    m = build_model()
    res, wall = common.timed(simulate, m)
    print(common.run_line(m, res, wall))
    print(f"30 deg: slides ({', '.join(e.kind for e in res.events)}); x(2 s) = {res['box.position'][-1, 0]:.9f} m, "
          f"closed form {0.5 * acceleration(np.radians(30)) * res.t[-1] ** 2:.9f} m")
    animate(res, "box_on_incline")
    plot(res)
    return res


def plot(res):
    fig = new_figure(figsize=(8, 5))
    if fig is None:
        return
    position, force = fig.subplots(2, 1, sharex=True)
    d = dense(res)
    draw(position, d.t, d["box.position"][:, 0], "m")
    position.set_ylabel("box x (m)")
    draw(force, d.t, d["floor.friction_force"][:, 0], "N")
    force.set_ylabel("friction force x (N)")
    force.axhline(0.0, color="k", lw=0.5)
    force.ticklabel_format(axis="y", useOffset=False)
    force.set_xlabel("t (s)")
    for ax in (position, force):
        ax.grid(True, alpha=0.3)
    fig.suptitle("A box sliding down a 30 deg incline (static 0.5, kinetic 0.4)")
    save(fig, "box_on_incline")


if __name__ == "__main__":
    main()
