"""Cassie's legs from its SDF (tests/data/robots/cassie_v2.sdf, Agility Robotics' model from
DAIRLab/cassie-gazebo-sim; licence in that folder's README), the pelvis welded to the ground, hanging
under gravity with their four kinematic loops closed.

SDF (http://sdformat.org/spec) describes a graph of links and joints: each leg closes two loops by
ball joints, the achilles rod onto the hip (knee - shin - tarsus - heel spring - achilles rod) and
the plantar rod onto the foot (tarsus - foot crank - plantar rod - foot). The importer
(mechsim.io.sdf) cuts them into spherical cut joints: 12 loop equations of rank 10, the plantar
loops being planar four-bars whose out-of-plane equation is redundant.

1. ``m.check()``: the loops, the rank of their equations and the redundant rows.
2. ``m.assemble()`` from the file's pose (which closes the loops), then the legs released at rest,
   motors off, for T_END s with the default solver: the largest loop-closure error |g(q)| over the
   run (``res.constraint_error``), and the energy balance: the joints' dampers (the file's
   ``<damping>``) dissipate the integral of sum c v^2, which the loss of kinetic plus potential
   energy (with the shin and heel springs' ``<spring_stiffness>``) must match.
3. The knee, shin, tarsus and foot angles of the left leg are plotted.

Run: ``python examples/cassie_legs.py`` (``MECHSIM_EXAMPLE_T_END`` shortens the run,
``MECHSIM_EXAMPLE_OUT`` moves the plot).
"""
import sys
import warnings
from pathlib import Path

import numpy as np

try:
    import mechsim as ms
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import mechsim as ms
from _figures import animate, draw, new_figure, save  # noqa: E402  (examples/_figures.py)
import _common as common  # noqa: E402  (examples/_common.py)

CASSIE = Path(__file__).resolve().parents[1] / "tests" / "data" / "robots" / "cassie_v2.sdf"
PLOTTED = ("left-knee-op", "left-knee-shin-joint", "left-shin-tarsus-joint", "left-foot-op")
T_END = common.t_end("1")
SAMPLES_PER_S = 1000                     # dense enough for the dampers' dissipation by the trapezoid rule


def build_model():
    """Cassie with its pelvis welded to the ground at the file's pose, its loops closed."""
    # its meshes are not shipped; the file's pose lies outside the limits of four joints (the stops would
    # move them to their limits at once), so the limits are kept on the model only: the legs hang freely
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ms.load(CASSIE, floating_base=False, limits=False)


def damper_dissipation(m, res):
    """The energy (J) the joint dampers have dissipated at every sample: the integral of sum c v^2."""
    power = sum(force.opts["damping"] * res[f"{force.opts['joint']}.v"] ** 2
                for force in m.forces.values() if force.kind == "joint_spring_damper")
    return np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(res.t))])


def spring_energy(m, res):
    """The energy (J) stored in the joint springs at every sample: sum 1/2 k (q - rest)^2."""
    springs = [f.opts for f in m.forces.values() if f.kind == "joint_spring_damper"]
    return sum(0.5 * s.get("stiffness", 0.0) * (res[f"{s['joint']}.q"] - s.get("rest", 0.0)) ** 2 for s in springs)


def main():
    m = build_model()
    report = m.check()
    print(report)
    state = m.assemble()
    print(f"assembled: {len(report.loops)} loops, {report.n_constraints} equations of rank "
          f"{state.analysis.rank}, {len(report.redundant)} redundant, {state.analysis.dof} dof")
    t_eval = np.linspace(0, T_END, int(SAMPLES_PER_S * T_END) + 1)
    res, wall = common.timed(m.simulate, t_end=T_END, initial=state, t_eval=t_eval)
    print(common.run_line(m, res, wall))
    print(f"max constraint error over the run: {res.constraint_error.max():.2e}")
    E = common.energy(m, res, [name for name in m.bodies if name != "ground"]) + spring_energy(m, res)
    lost, dissipated = E[0] - E[-1], damper_dissipation(m, res)[-1]
    print(f"{common.energy_line(E)}; lost {lost:.6f} J, dissipated by the dampers {dissipated:.6f} J, "
          f"balance error {abs(lost - dissipated):.2e} J")
    animate(res, "cassie_legs")
    fig = new_figure()
    if fig is None:
        return
    ax = fig.add_subplot()
    for joint in PLOTTED:
        draw(ax, res.t, res[f"{joint}.q"], "rad", label=joint)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("joint angle (rad)")
    ax.set_title("Cassie's left leg hanging with its loops closed (pelvis welded)")
    ax.legend(fontsize=7)
    save(fig, "cassie_legs")


if __name__ == "__main__":
    main()
