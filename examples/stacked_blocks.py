"""Two stacked blocks pushed ever harder: stuck, sliding together, sliding apart (the mode iteration).

A bottom block (1 kg) on the ground and a top block (1 kg) on it, each on a prismatic joint along x
(the top's relative to the bottom), with Coulomb friction as force levels: ground/bottom static 4 N,
kinetic 3 N; bottom/top static 6 N, kinetic 5 N. A push P = 2 t N along x on the top block. From rest:
  - stuck while both holding forces stay within static: the bottom's carries P, so until P = 4 N, t = 2 s;
  - sliding together: a = (P - 3) / 2, the top's lock carries a - P = -(P + 3) / 2, within 6 N until
    P = 9 N, t = 4.5 s;
  - apart: the top accelerates at P - 5, the bottom, dragged by 5 N against 3 N, at 2 m/s^2.
At t = 2 s the bottom's friction unlocks (one switch); at 4.5 s the top's. Which lock gives first when a
load exceeds both is what the mode iteration of Wood & Kennedy (2003 §6) decides; the tests check
both switching times and the accelerations of each regime to 1e-9.

Same model as ``stacked_blocks.yaml``. Run: ``python examples/stacked_blocks.py``.
"""
import sys
from pathlib import Path

try:
    import mechsim as ms
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import mechsim as ms
from _figures import animate, dense, draw, new_figure, save  # noqa: E402  (examples/_figures.py)
import _common as common  # noqa: E402  (examples/_common.py)

RATE, GROUND, BETWEEN = 2.0, (4.0, 3.0), (6.0, 5.0)        # push rate N/s; (static, kinetic) levels
T_END = common.t_end("6")


def build_model():
    m = ms.Model("stacked-blocks", gravity=(0, 0, -9.81))
    m.add_body("bottom", mass=1.0, inertia=(0.1, 0.1, 0.1))
    m.add_body("top", mass=1.0, inertia=(0.1, 0.1, 0.1))
    m.add_joint("x1", "prismatic", parent="ground", child="bottom", axis=(1, 0, 0))
    m.add_joint("x2", "prismatic", parent="bottom", child="top", axis=(1, 0, 0))
    m.add_force("f1", "joint_friction", joint="x1", static=GROUND[0], kinetic=GROUND[1])
    m.add_force("f2", "joint_friction", joint="x2", static=BETWEEN[0], kinetic=BETWEEN[1])
    m.add_force("push", "body_force", body="top", force=[f"{RATE}*t", "0", "0"])
    return m


def simulate(m, t_end=T_END):
    return m.simulate(t_end=t_end, solver="DOP853", rtol=1e-10, atol=1e-12)


def switches():
    """(t when the blocks start sliding together, t when they slide apart) (module docstring)."""
    return GROUND[0] / RATE, (2 * BETWEEN[0] - GROUND[1]) / RATE


def main():
    m = build_model()
    res, wall = common.timed(simulate, m)
    print(common.run_line(m, res, wall))
    for e in res.events:
        print(f"  t = {e.time:.9f} s  {e.kind:7s} {e.name}: {e.detail}")
    together, apart = switches()
    print(f"closed form: together from t = {together:g} s, apart from t = {apart:g} s")
    animate(res, "stacked_blocks")
    plot(res)
    return res


def plot(res):
    fig = new_figure(figsize=(8, 5))
    if fig is None:
        return
    velocity, force = fig.subplots(2, 1, sharex=True)
    res = dense(res)
    draw(velocity, res.t, res["x1.v"], "m/s", label="bottom block")
    draw(velocity, res.t, res["x1.v"] + res["x2.v"], "m/s", label="top block")
    velocity.set_ylabel("velocity (m/s)")
    velocity.legend()
    draw(force, res.t, res["f2.force"], "N")
    force.set_ylabel("friction between them (N)")
    force.set_xlabel("t (s)")
    for ax in (velocity, force):
        ax.grid(True, alpha=0.3)
    fig.suptitle("Stacked blocks pushed at 2 t N: stuck, together, apart")
    save(fig, "stacked_blocks")


if __name__ == "__main__":
    main()
