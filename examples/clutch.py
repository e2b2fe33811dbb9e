"""Drive train with a friction clutch that slips and locks again (Wood & Kennedy 2003 §6).

An engine (inertia J1 = 0.5 kg m^2) drives a load (J2 = 2 kg m^2) through a dry clutch: a revolute
joint between the two shafts (its angle the slip) with ``joint_friction`` static 18 N m, kinetic
12 N m. The engine gives 20 N m until t = 2 s; a brake puts 30 N m on the load from t = 1 s to 2 s.
- 0–1 s, locked: both accelerate at a = 20 / 2.5 = 8 rad/s^2; the clutch carries J2 a = 16 N m < 18.
- at 1 s the brake would need J2 a + 30 = 22 N m (a = -4) from the clutch: more than 18, it slips.
  Slipping, the engine J1 w1' = 20 - 12 (w1' = 16), the load J2 w2' = 12 - 30 (w2' = -9).
- at 2 s engine and brake are off: w1' = -12 / J1 = -24, w2' = 12 / J2 = 6; the speeds, 24 and -1
  rad/s, meet at t = 2 + 25 / 30 s = 2.8333 s at 4 rad/s, and the clutch locks for good.
The tests check these switching times and speeds.

Same model as ``clutch.yaml``. Run: ``python examples/clutch.py``.
"""
import sys
from pathlib import Path

try:
    import mechsim as ms
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import mechsim as ms
from _figures import animate, draw, new_figure, save  # noqa: E402  (examples/_figures.py)
import _common as common  # noqa: E402  (examples/_common.py)

J1, J2, STATIC, KINETIC = 0.5, 2.0, 18.0, 12.0
ENGINE, BRAKE = "20*(t < 2)", "-30*(t >= 1)*(t < 2)"
T_END = common.t_end("4")


def build_model():
    m = ms.Model("clutch", gravity=(0, 0, -9.81))
    m.add_body("engine", mass=1.0, inertia=(J1, J1, J1))
    m.add_body("load", mass=1.0, inertia=(J2, J2, J2))
    m.add_joint("shaft", "revolute", parent="ground", child="engine", axis=(0, 0, 1))
    m.add_joint("clutch", "revolute", parent="engine", child="load", axis=(0, 0, 1))
    m.add_force("torque", "joint_force", joint="shaft", value=ENGINE)
    m.add_force("brake", "body_force", body="load", torque=(0, 0, BRAKE))
    m.add_force("friction", "joint_friction", joint="clutch", static=STATIC, kinetic=KINETIC)
    return m


def simulate(m, t_end=T_END):
    return m.simulate(t_end=t_end, rtol=1e-10, atol=1e-12)


def main():
    m = build_model()
    res, wall = common.timed(simulate, m)
    print(common.run_line(m, res, wall))
    for e in res.events:
        print(f"  t = {e.time:.9f} s  {e.kind:6s} {e.detail}")
    w1, w2 = res["shaft.v"], res["shaft.v"] + res["clutch.v"]
    print(f"engine and load at t_end: {w1[-1]:.9f} and {w2[-1]:.9f} rad/s (closed form 4)")
    animate(res, "clutch")
    plot(res, w1, w2)
    return res


def plot(res, w1, w2):
    fig = new_figure(figsize=(8, 5))
    if fig is None:
        return
    speed, torque = fig.subplots(2, 1, sharex=True)
    draw(speed, res.t, w1, "rad/s", label="engine")
    draw(speed, res.t, w2, "rad/s", label="load")
    speed.set_ylabel("shaft speed (rad/s)")
    speed.legend()
    draw(torque, res.t, res["friction.force"], "N·m")
    torque.set_ylabel("clutch torque (N·m)")
    torque.set_xlabel("t (s)")
    for ax in (speed, torque):
        ax.grid(True, alpha=0.3)
    fig.suptitle("Friction clutch: locked, slipping under the brake, locked again")
    save(fig, "clutch")


if __name__ == "__main__":
    main()
