"""Parallel five-bar linkage of Del Citto, Pennestrì & Vita (2005, §4.1): one DOF, seven
redundant constraints.

The paper's "parallel five-bar": the ground and three equal, parallel cranks hinged to it at equally
spaced pivots, their tips hinged to one coupler — five bars, six revolute joints, two loops. It is
the classic overconstrained linkage: planar Grübler counting gives 3·4 − 2·6 = 0 DOF, yet the
equal, parallel cranks keep it movable (the coupler translates on circles), with 1 DOF. Built
with 3D revolute joints as the paper does, each of the two cut revolute joints adds 5 scalar
equations, 10 in all, of which only 3 are independent on the 4 tree coordinates: **dof 1 and 7
redundant constraints**, the paper's numbers ("the model has 7 redundant constraints and one
degree-of-freedom"; in the paper's Cartesian coordinates 24 coordinates, 30 equations of rank 23 —
the same 1 and 7).

The paper gives no dimensions (its figures are not in the text), so these are ours: pivots
``a1``, ``a2``, ``a3`` at x = 0, 1, 2 m on the ground, cranks 1 m and 1 kg, coupler 2 m and 2 kg
hinged to the crank tips at ``b1``, ``b2``, ``b3`` (slender rods, I = m l²/12); gravity 9.81 along
−y, as in the paper "the only external force is due to gravity … the system is free to oscillate".
Crank angles θ are measured from +x; hanging straight down is θ = −π/2, the run starts 45° from it
(θ0 = −π/4), at rest. The coupler stays horizontal and the linkage swings as one compound
pendulum: J θ'' = −g (m_c l/2 · 3 + m_coupler l) cos θ with J = 3 m_c l²/3 + m_coupler l² — the test's
independent reference.

The paper also drives one crank at ω = 6.28 rad/s (dof 0, still 7 redundant constraints): the
``--driven`` variant (``build_model(driven=True)``), through the singular positions where all
bars are collinear (θ = 0, π).

Same model as ``five_bar.yaml``. Run: ``python examples/five_bar.py [--driven]``
(``MECHSIM_EXAMPLE_T_END`` shortens the run, ``MECHSIM_EXAMPLE_OUT`` moves the plot).
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

CRANK_LENGTH, CRANK_MASS = 1.0, 1.0
COUPLER_LENGTH, COUPLER_MASS = 2.0, 2.0
PIVOTS = (0.0, 1.0, 2.0)                  # x of the ground pivots a1, a2, a3 (= of b1, b2, b3 on the coupler)
G = 9.81
THETA0 = -np.pi / 4                       # 45 degrees from hanging straight down
OMEGA = 6.28                              # the paper's driven crank speed (rad/s)
T_END = common.t_end("5")
RTOL, ATOL = 1e-10, 1e-12
PAPER_DOF, PAPER_REDUNDANT = 1, 7


def build_model(driven=False, theta0=THETA0):
    m = ms.Model("five-bar" + ("-driven" if driven else ""), gravity=(0, -G, 0))
    lc, mc, lk, mk = CRANK_LENGTH, CRANK_MASS, COUPLER_LENGTH, COUPLER_MASS
    for i in (1, 2, 3):
        m.add_body(f"crank{i}", mass=mc, com=(lc / 2, 0, 0), inertia=(0.0, mc * lc ** 2 / 12, mc * lc ** 2 / 12),
                   frames={"tip": (lc, 0, 0)})
    m.add_body("coupler", mass=mk, com=(lk / 2, 0, 0), inertia=(0.0, mk * lk ** 2 / 12, mk * lk ** 2 / 12),
               frames={f"b{i}": (x - PIVOTS[0], 0, 0) for i, x in enumerate(PIVOTS, 1)})
    z = (0, 0, 1)
    for i, x in enumerate(PIVOTS, 1):
        m.add_joint(f"a{i}", "revolute", parent="ground", child=f"crank{i}", parent_frame=(x, 0, 0), axis=z, q0=theta0)
        if i == 1:                        # the coupler hangs from crank 1, horizontal (absolute angle 0)
            m.add_joint("b1", "revolute", parent="crank1", child="coupler", parent_frame="tip", child_frame="b1",
                        axis=z, q0=-theta0)
        else:                             # b2, b3 close the two loops (mechsim picks the cut joints)
            m.add_joint(f"b{i}", "revolute", parent="coupler", child=f"crank{i}", parent_frame=f"b{i}",
                        child_frame="tip", axis=z, q0=theta0)
    if driven:
        m.add_driver("a1", position=lambda t: theta0 + OMEGA * t, velocity=lambda t: OMEGA,
                     acceleration=lambda t: 0.0)
    return m


def pendulum_constants():
    """(J, k): the linkage as one compound pendulum, J theta'' = -k cos(theta)."""
    lc, mc, mk = CRANK_LENGTH, CRANK_MASS, COUPLER_MASS
    J = len(PIVOTS) * mc * lc ** 2 / 3 + mk * lc ** 2
    k = G * (len(PIVOTS) * mc * lc / 2 + mk * lc)
    return J, k


def period(amplitude=np.pi / 2 + THETA0):
    """Exact period (s) of the compound pendulum swinging with the given amplitude from hanging."""
    from scipy.special import ellipk
    J, k = pendulum_constants()
    return 4 * ellipk(np.sin(amplitude / 2) ** 2) / np.sqrt(k / J)


def simulate(m, t_end=T_END, rate=100, **options):
    options = {"solver": "DOP853", "rtol": RTOL, "atol": ATOL, **options}
    return m.simulate(t_end=t_end, t_eval=np.linspace(0, t_end, int(rate * t_end) + 1), **options)


def energy(m, res):
    """Kinetic plus potential energy (J) at every sample, from the body signals."""
    return common.energy(m, res, ("crank1", "crank2", "crank3", "coupler"))


def main(driven=False):
    m = build_model(driven)
    report = m.check()
    print(report)
    print(f"paper (Del Citto, Pennestrì & Vita 2005, §4.1): {PAPER_DOF - int(driven)} DOF, {PAPER_REDUNDANT} redundant constraints; "
          f"mechsim: dof {report.dof}, {len(report.redundant)} redundant")
    res = simulate(m)
    print(common.run_line(m, res))
    print(f"max loop-closure error {res.constraint_error.max():.2e}; coupler angle stays within "
          f"{np.abs(res.point('coupler', (COUPLER_LENGTH, 0, 0))[:, 1] - res['coupler.position'][:, 1]).max():.1e} m "
          f"of horizontal")
    if not driven:
        E = energy(m, res)
        print(f"{common.energy_line(E)}; exact period {period():.6f} s")
    animate(res, "five_bar_driven" if driven else "five_bar", bodies="hull")
    plot(res, driven)
    return res


def plot(res, driven):
    fig = new_figure(figsize=(10, 4))
    if fig is None:
        return
    a1, a2 = fig.subplots(1, 2)
    for name in ("crank1", "crank2", "crank3", "coupler"):
        c = res.point(name, (CRANK_LENGTH / 2 if name != "coupler" else COUPLER_LENGTH / 2, 0, 0))
        draw(a2, c[:, 0], c[:, 1], "m", x_unit="m", label=name)
    tip = res.point("crank1", (CRANK_LENGTH, 0, 0))
    draw(a1, res.t, tip[:, 0], "m")
    a1.set_xlabel("t (s)")
    a1.set_ylabel("X of crank 1's tip (m)")
    a1.grid(True, alpha=0.3)
    a2.set_aspect("equal")
    a2.set_xlabel("X (m)")
    a2.set_ylabel("Y (m)")
    a2.set_title("centres of mass")
    a2.legend(fontsize=8)
    fig.suptitle("Parallel five-bar (Del Citto, Pennestrì & Vita)" + (", crank driven at 6.28 rad/s" if driven else ""))
    save(fig, "five_bar_driven" if driven else "five_bar")


if __name__ == "__main__":
    main(driven="--driven" in sys.argv[1:])
