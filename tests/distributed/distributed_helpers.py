"""Models the tests of mechsim.distributed share."""
import mechsim as ms
# Khan, Tang & Krovi (2006) §5.1, Table 1: the four-bar split at the coupler–rocker pin into chain A
# (crank and coupler, 2 DOF) and chain B (rocker, 1 DOF), as the speed suite co-simulates it
from mechsim.bench.cosim import L2, L3, PIN, split_four_bar as four_bar_chains  # noqa: F401

G = 9.81


def pendulum(theta0=0.5, length=1.0):
    """A point mass on a massless rod of ``length``, hanging along +x at q = 0 (gravity +x); the event
    'half' ends the run when j1.v crosses zero upwards, half a period after the release at rest."""
    m = ms.Model("pendulum", gravity=(G, 0, 0))
    m.add_input("u", 0.0)
    m.add_body("bob", mass=1.0, com=(length, 0, 0))
    m.add_joint("j1", "revolute", parent="ground", child="bob", axis=(0, 0, 1), q0=theta0)
    m.add_force("motor", "joint_force", joint="j1", value="u")
    m.add_event("j1.v", 0.0, direction=1, terminal=True, name="half")
    return m
