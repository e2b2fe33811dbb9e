"""Bouncing ball: a ball dropped on a rigid floor with restitution e, its bounces a geometric series.

A 0.1 kg ball of radius 0.05 m on a vertical prismatic joint (its centre height y), gravity along
-y, dropped at rest from y = 1 m onto the floor: a rigid ``joint_limit`` whose lower stop is the
height where the ball touches the floor, y = r. Newton's restitution e = 0.8 reverses and scales the
speed at each impact. The first impact comes at t1 = sqrt(2 h / g) with speed v1 = sqrt(2 g h),
h = 1 - r; each flight after the k-th impact lasts 2 e^k v1 / g, so the impacts accumulate at
t_inf = t1 + 2 e v1 / (g (1 - e)) (a Zeno point). mechsim resolves every bounce up to the one whose
rebound falls below the stop's min_bounce_speed (1e-4 m/s) and then closes the stop: the ball rests
on the floor, carrying its weight, with no hang and no fall-through.

Same model as ``bouncing_ball.yaml``. Run: ``python examples/bouncing_ball.py``.
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

MASS, RADIUS, HEIGHT, RESTITUTION, G = 0.1, 0.05, 1.0, 0.8, 9.81
T_END = common.t_end("5")


def build_model():
    m = ms.Model("bouncing-ball", gravity=(0, -G, 0))
    I = 2 / 5 * MASS * RADIUS ** 2
    m.add_body("ball", mass=MASS, inertia=(I, I, I))
    m.add_joint("height", "prismatic", parent="ground", child="ball", axis=(0, 1, 0), q0=HEIGHT)
    m.add_force("floor", "joint_limit", joint="height", lower=RADIUS, restitution=RESTITUTION)
    return m


def simulate(m, t_end=T_END):
    return m.simulate(t_end=t_end, solver="DOP853", rtol=1e-10, atol=1e-12)


def impact_times(n):
    """The first n impact times of the closed form (module docstring)."""
    v1 = np.sqrt(2 * G * (HEIGHT - RADIUS))
    flights = 2 * RESTITUTION ** np.arange(1, n) * v1 / G
    return np.sqrt(2 * (HEIGHT - RADIUS) / G) + np.concatenate([[0.0], np.cumsum(flights)])


def main():
    m = build_model()
    res, wall = common.timed(simulate, m)
    hits = [e.time for e in res.events if e.kind == "limit"]
    exact = impact_times(len(hits))
    v1 = np.sqrt(2 * G * (HEIGHT - RADIUS))
    t_inf = exact[0] + 2 * RESTITUTION * v1 / (G * (1 - RESTITUTION))
    print(common.run_line(m, res, wall))
    print(f"{len(hits)} impacts; the last at t = {hits[-1]:.9f} s (Zeno limit of the series {t_inf:.9f} s): "
          f"{res.events[-1].detail}")
    print(f"max |impact time - closed form| = {np.abs(np.array(hits) - exact).max():.2e} s")
    print(f"at rest on the floor: y = {res['height.q'][-1]:.12f} m, floor force {res['floor.force'][-1]:.6f} N "
          f"(m g = {MASS * G:.6f} N)")
    animate(res, "bouncing_ball")
    plot(res, hits)
    return res


def plot(res, hits):
    fig = new_figure(figsize=(8, 4))
    if fig is None:
        return
    ax = fig.subplots()
    d = dense(res)
    draw(ax, d.t, d["height.q"], "m")
    draw(ax, hits, np.full(len(hits), RADIUS), "m", color="k", ls="", marker=".", ms=3, label="impacts")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("height of the centre (m)")
    ax.legend()
    ax.grid(True, alpha=0.3)
    fig.suptitle(f"Bouncing ball, restitution {RESTITUTION}")
    save(fig, "bouncing_ball")


if __name__ == "__main__":
    main()
