"""Slider-crank: a crank driven at constant speed (and a free variant), slider position in closed form.

Crank of radius r = 0.15 m hinged to the ground at the origin about z; connecting rod of length
l = 0.5 m hinged to the crank pin; slider on a prismatic joint along the world x axis through the
crank pivot (no offset), hinged to the rod's far end. Gravity 9.81 m/s² along −y. Dimensions and
masses are ours (crank 0.5 kg, rod 1 kg, slider 0.8 kg, slender links). Joints: ``j1`` (ground–crank,
the crank angle θ), ``j2`` (crank–rod, relative), ``slide`` (ground–slider, the slider position x),
``pin`` (rod–slider, the cut joint closing the loop). At θ = 0 the mechanism is stretched out,
x = r + l.

* ``slider_crank.yaml`` — the crank follows a driver θ = ω t with ω = 2π rad/s: one degree of
  freedom taken by the driver, dof 0. The slider follows the closed form
  x(θ) = r cos θ + sqrt(l² − r² sin² θ) exactly; the driver force (``j1.force``) is the torque the
  motor needs to turn the machine against its inertia and gravity.
* ``slider_crank_free.yaml`` — no driver: the crank is launched at ω from θ = 0 and the machine
  swings under gravity like a pendulum, through the inner dead centre θ = −π and back
  (between θ ≈ 0.2 and θ ≈ −π − 0.2), dof 1; energy is conserved.

Same models as the model files. Run: ``python examples/slider_crank.py`` (``--free`` for the free
variant; ``MECHSIM_EXAMPLE_T_END`` shortens the run, ``MECHSIM_EXAMPLE_OUT`` moves the plot).
"""
import sys
from pathlib import Path

import numpy as np

try:
    import mechsim as ms
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import mechsim as ms
from _figures import animate, draw, new_figure, save  # noqa: E402  (examples/_figures.py)
import _common as common  # noqa: E402  (examples/_common.py)

R, L = 0.15, 0.5                          # crank radius, rod length (m)
M_CRANK, M_ROD, M_SLIDER = 0.5, 1.0, 0.8
G = 9.81
OMEGA = 2 * np.pi                         # crank speed (rad/s): driven, or launch speed of the free variant
T_END = common.t_end("3")
RTOL, ATOL = 1e-10, 1e-12


def slider_position(theta, r=R, l=L):
    """Closed form: slider position x for crank angle theta (slider on the x axis through the pivot)."""
    return r * np.cos(theta) + np.sqrt(l ** 2 - (r * np.sin(theta)) ** 2)


def build_model(driven=True):
    m = ms.Model("slider-crank" if driven else "slider-crank-free", gravity=(0, -G, 0))
    m.add_body("crank", mass=M_CRANK, com=(R / 2, 0, 0), inertia=(0.0, M_CRANK * R ** 2 / 12, M_CRANK * R ** 2 / 12),
               frames={"pin": (R, 0, 0)})
    m.add_body("rod", mass=M_ROD, com=(L / 2, 0, 0), inertia=(0.0, M_ROD * L ** 2 / 12, M_ROD * L ** 2 / 12),
               frames={"end": (L, 0, 0)})
    m.add_body("slider", mass=M_SLIDER, com=(0, 0, 0), inertia=(1e-3, 1e-3, 1e-3))
    z = (0, 0, 1)
    # stretched out at theta = 0; the free variant starts with consistent velocities (x' = 0 there,
    # the rod turns back at -(r + l)/l times the crank speed)
    w0 = 0.0 if driven else OMEGA
    m.add_joint("j1", "revolute", parent="ground", child="crank", axis=z, q0=0.0, v0=w0)
    m.add_joint("j2", "revolute", parent="crank", child="rod", parent_frame="pin", axis=z, q0=0.0,
                v0=-(R + L) / L * w0)
    m.add_joint("slide", "prismatic", parent="ground", child="slider", axis=(1, 0, 0), q0=R + L, v0=0.0)
    m.add_joint("pin", "revolute", parent="rod", child="slider", parent_frame="end", axis=z, q0=0.0,
                v0=(R + L) / L * w0 - w0, cut=True)
    if driven:
        m.add_driver("j1", position=lambda t: OMEGA * t, velocity=lambda t: OMEGA, acceleration=lambda t: 0.0)
    return m


def simulate(m, t_end=T_END, rate=200, **options):
    options = {"solver": "DOP853", "rtol": RTOL, "atol": ATOL, **options}
    return m.simulate(t_end=t_end, t_eval=np.linspace(0, t_end, int(rate * t_end) + 1), **options)


def energy(m, res):
    """Kinetic plus potential energy (J) at every sample, from the body signals."""
    return common.energy(m, res, ("crank", "rod", "slider"))


def main(driven=True):
    m = build_model(driven)
    print(m.check())
    res = simulate(m)
    x, theta = res["slide.q"], res["j1.q"]
    print(common.run_line(m, res))
    print(f"max |x - closed form| = {np.abs(x - slider_position(theta)).max():.2e} m, "
          f"max loop-closure error {res.constraint_error.max():.2e}")
    if driven:
        tau = res["j1.force"]
        print(f"driver torque between {tau.min():+.4f} and {tau.max():+.4f} N m")
    else:
        E = energy(m, res)
        print(f"crank angle at t_end {theta[-1]:.6f} rad; {common.energy_line(E)}")
    animate(res, "slider_crank" if driven else "slider_crank_free", bodies="hull")
    plot(res, driven)
    return res


def plot(res, driven):
    fig = new_figure(figsize=(10, 4))
    if fig is None:
        return
    a1, a2 = fig.subplots(1, 2)
    draw(a1, res.t, res["slide.q"], "m", label="mechsim")
    draw(a1, res.t, slider_position(res["j1.q"]), "m", ls="--", label="closed form")
    a1.set_xlabel("t (s)")
    a1.set_ylabel("slider x (m)")
    a1.legend()
    a1.grid(True, alpha=0.3)
    if driven:
        draw(a2, res.t, res["j1.force"], "N·m")
        a2.set_ylabel("driver torque (N·m)")
    else:
        draw(a2, res.t, res["j1.v"], "rad/s")
        a2.set_ylabel("crank speed (rad/s)")
    a2.set_xlabel("t (s)")
    a2.grid(True, alpha=0.3)
    fig.suptitle("Slider-crank, " + ("crank driven at 2π rad/s" if driven else "free, launched at 2π rad/s"))
    save(fig, "slider_crank" if driven else "slider_crank_free")


if __name__ == "__main__":
    main(driven="--free" not in sys.argv[1:])
