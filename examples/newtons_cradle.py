"""Newton's cradle: five steel balls hanging in a row, touching; the first is pulled aside and let go.
It strikes the row, the last ball swings out at the first one's speed while the others stay at rest, it
swings back and strikes, and the first ball swings out again.

Five balls (m = 0.1 kg, r = 0.02 m, I = 2/5 m r^2) hang on pendulums of length l = 0.3 m (revolute joints
about z, pivots 2r apart, gravity -y); neighbours touch through sphere-sphere contacts with restitution
1. Each ball is a physical pendulum of length L = l + 2/5 r^2 / l, so the first ball, let go at theta0 =
0.4 rad, reaches the row at t1 = sqrt(L / g) K(sin^2(theta0 / 2)) (a quarter period, K the complete
elliptic integral) with the rate w1 = sqrt(2 g l (1 - cos theta0) / (l^2 + 2/5 r^2)). The impact passes
down the row in sequence at that instant (Han & Gilmore 1993: a ball the impact sets moving strikes its
resting neighbour in turn): each is an elastic impact of equal pendulums, which exchange their rates, so
the last ball leaves at w1 and the others rest. It rises to theta0, returns at 3 t1 and the first ball
leaves at 3 t1 with -w1. (Resolved as one simultaneous impact, the row would move on together with the
first ball bouncing back: the law of contacts resting at an impact matters here.)

Same model as ``newtons_cradle.yaml``. Run: ``python examples/newtons_cradle.py``.
"""
import sys
from pathlib import Path

import numpy as np
from scipy.special import ellipk

try:
    import mechsim as ms
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import mechsim as ms
from _figures import animate, dense, draw, new_figure, save  # noqa: E402  (examples/_figures.py)
import _common as common  # noqa: E402  (examples/_common.py)

N, MASS, RADIUS, LENGTH, THETA0, RESTITUTION, G = 5, 0.1, 0.02, 0.3, 0.4, 1.0, 9.81
INERTIA = 0.4 * MASS * RADIUS ** 2
T_END = common.t_end("2")


def build_model(restitution=RESTITUTION):
    m = ms.Model("newtons-cradle", gravity=(0, -G, 0))
    for k in range(N):
        m.add_body(f"ball{k}", mass=MASS, com=(0, -LENGTH, 0), inertia=(INERTIA,) * 3)
        m.add_joint(f"swing{k}", "revolute", "ground", f"ball{k}", parent_frame=(2 * RADIUS * k, 0, 0),
                    axis=(0, 0, 1), q0=-THETA0 if k == 0 else 0.0)
    for k in range(N - 1):
        m.add_contact(f"touch{k}", body=f"ball{k + 1}", point=(0, -LENGTH, 0), shape="sphere", radius=RADIUS,
                      surface=f"ball{k}", origin=(0, -LENGTH, 0), surface_shape="sphere", surface_radius=RADIUS,
                      restitution=restitution)
    return m


def simulate(m, t_end=T_END):
    return m.simulate(t_end=t_end, solver="DOP853", rtol=1e-11, atol=1e-12, t_eval=np.linspace(0, t_end, 801))


def strike_time():
    """t1 of the module docstring."""
    return np.sqrt((LENGTH + INERTIA / (MASS * LENGTH)) / G) * ellipk(np.sin(THETA0 / 2) ** 2)


def strike_rate():
    """w1 of the module docstring."""
    return np.sqrt(2 * MASS * G * LENGTH * (1 - np.cos(THETA0)) / (MASS * LENGTH ** 2 + INERTIA))


def energy(res):
    """Kinetic plus potential energy (J) of the row at every sample."""
    return sum(0.5 * (MASS * LENGTH ** 2 + INERTIA) * res[f"swing{k}.v"] ** 2
               + MASS * G * LENGTH * (1 - np.cos(res[f"swing{k}.q"])) for k in range(N))


def main():
    m = build_model()
    res, wall = common.timed(simulate, m)
    print(common.run_line(m, res, wall))
    for e in res.events:
        if e.kind == "impact":
            print(f"  t = {e.time:.9f} s  {e.name}: {e.detail}")
    print(f"closed form: strikes at t1 = {strike_time():.9f} s and 3 t1 = {3 * strike_time():.9f} s, "
          f"at {strike_rate():.9f} rad/s")
    print(common.energy_line(energy(res)))
    animate(res, "newtons_cradle")
    plot(res)
    return res


def plot(res):
    fig = new_figure(figsize=(8, 4))
    if fig is None:
        return
    ax = fig.subplots()
    res = dense(res)
    for k in range(N):
        draw(ax, res.t, res[f"swing{k}.q"], "rad", label=f"ball {k + 1}")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("angle (rad)")
    ax.legend()
    ax.grid(True, alpha=0.3)
    fig.suptitle("Newton's cradle: the impact passes down the row")
    save(fig, "newtons_cradle")


if __name__ == "__main__":
    main()
