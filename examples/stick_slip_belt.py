"""Stick–slip: a mass on a spring dragged by a belt (a friction oscillator's limit cycle).

A 1 kg block lies on a belt running at v_b = 0.2 m/s along x; a spring of stiffness k = 100 N/m ties
it to the ground (force -k X, X the block's position from the spring's rest position). Friction
between block and belt: static 5 N, kinetic 3 N (levels), a ``joint_friction`` on the block's
prismatic joint relative to the belt, which a driver moves at v_b. From X = 0 the block rides the
belt (stuck) until the spring pulls F_s: X_s = F_s / k. It then slips: m X'' = -k X + F_k, a
harmonic motion about X_e = F_k / k of frequency w = sqrt(k / m), until its speed is v_b again —
at X = X_e - (X_s - X_e) = (2 F_k - F_s) / k, where the spring force is within F_s, so it sticks.
The limit cycle: stick for 2 (F_s - F_k) / (k v_b), slip for (2 pi - 2 phi) / w with
phi = atan2((F_s - F_k) / k, v_b / w) (the tests check these).

Same model as ``stick_slip_belt.yaml``. Run: ``python examples/stick_slip_belt.py``.
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

MASS, STIFFNESS, BELT_SPEED, STATIC, KINETIC = 1.0, 100.0, 0.2, 5.0, 3.0
ANCHOR = 1.0            # the spring's anchor, ANCHOR m behind the block's start (its rest length)
T_END = common.t_end("4")


def build_model():
    m = ms.Model("stick-slip-belt", gravity=(0, 0, -9.81))
    m.add_body("belt", mass=10.0, inertia=(1, 1, 1))
    m.add_body("block", mass=MASS, inertia=(0.01, 0.01, 0.01))
    m.add_joint("belt_x", "prismatic", parent="ground", child="belt", axis=(1, 0, 0))
    m.add_joint("slip", "prismatic", parent="belt", child="block", axis=(1, 0, 0))
    m.add_driver("belt_x", position=f"{BELT_SPEED}*t")
    m.add_force("friction", "joint_friction", joint="slip", static=STATIC, kinetic=KINETIC)
    m.add_force("spring", "spring_damper", body_a="ground", point_a=(-ANCHOR, 0, 0), body_b="block",
                stiffness=STIFFNESS, rest_length=ANCHOR)
    return m


def simulate(m, t_end=T_END):
    return m.simulate(t_end=t_end, solver="DOP853", rtol=1e-10, atol=1e-12)


def cycle():
    """(stick time, slip time) of the limit cycle (module docstring)."""
    w = np.sqrt(STIFFNESS / MASS)
    phi = np.arctan2((STATIC - KINETIC) / STIFFNESS, BELT_SPEED / w)
    return 2 * (STATIC - KINETIC) / (STIFFNESS * BELT_SPEED), (2 * np.pi - 2 * phi) / w


def main():
    m = build_model()
    res, wall = common.timed(simulate, m)
    x = res["belt_x.q"] + res["slip.q"]
    switches = [(e.time, e.kind) for e in res.events if e.kind in ("lock", "unlock")]
    stick, slip = cycle()
    print(common.run_line(m, res, wall))
    print(f"{len(switches)} switches; limit cycle: stick {stick:.6f} s + slip {slip:.6f} s "
          f"= period {stick + slip:.6f} s")
    for (t0, k0), (t1, _) in zip(switches, switches[1:]):
        print(f"  {'stuck' if k0 == 'lock' else 'slipping'} from t = {t0:.6f} s for {t1 - t0:.6f} s")
    print(f"block between X = {x.min():.6f} and {x.max():.6f} m (closed form {(2 * KINETIC - STATIC) / STIFFNESS:g} "
          f"and {STATIC / STIFFNESS:g} m at the switches)")
    animate(res, "stick_slip_belt")
    plot(res)
    return res


def plot(res):
    fig = new_figure(figsize=(10, 5))
    if fig is None:
        return
    axes = fig.subplot_mosaic([["x", "phase"], ["force", "phase"]], gridspec_kw={"width_ratios": [3, 2]})
    d = dense(res)
    x, speed = d["belt_x.q"] + d["slip.q"], d["belt_x.v"] + d["slip.v"]
    draw(axes["x"], d.t, x, "m")
    axes["x"].set_ylabel("block X (m)")
    draw(axes["force"], d.t, d["friction.force"], "N")
    axes["force"].set_ylabel("friction force (N)")
    axes["force"].set_xlabel("t (s)")
    axes["x"].sharex(axes["force"])
    draw(axes["phase"], x, speed, "m/s", x_unit="m")
    axes["phase"].set_xlabel("X (m)")
    axes["phase"].set_ylabel("X' (m/s)")
    axes["phase"].set_title("phase portrait: the limit cycle")
    for ax in axes.values():
        ax.grid(True, alpha=0.3)
    fig.suptitle("Mass on a spring dragged by a belt: stick–slip")
    save(fig, "stick_slip_belt")


if __name__ == "__main__":
    main()
