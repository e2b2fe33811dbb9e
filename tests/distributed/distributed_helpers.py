"""Models the tests of mechsim.distributed share."""
import mechsim as ms

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


# Khan, Tang & Krovi (2006) §5.1, Table 1: the four-bar split at the coupler–rocker pin into chain A
# (crank and coupler, 2 DOF) and chain B (rocker, 1 DOF); the initial angles consistent to 1e-16
L0, L1, L2, L3 = 3.0, 1.0, 4.0, 2.5
THETA0, ALPHA0, PHI0 = 1.5708, 0.3532812460937753, 1.2648595635335869


def _bar(m, name, length):
    m.add_body(name, mass=1.0, com=(length / 2, 0, 0), inertia=(0.0, length ** 2 / 12, length ** 2 / 12),
               frames={"tip": (length, 0, 0)})


def four_bar_chains():
    a = ms.Model("chain A", gravity=(0, -G, 0))
    _bar(a, "crank", L1)
    _bar(a, "coupler", L2)
    a.add_joint("j1", "revolute", parent="ground", child="crank", axis=(0, 0, 1), q0=THETA0)
    a.add_joint("j2", "revolute", parent="crank", child="coupler", parent_frame="tip", axis=(0, 0, 1),
                q0=ALPHA0 - THETA0)
    a.add_force("motor", "joint_force", joint="j1", value=6.0)
    b = ms.Model("chain B", gravity=(0, -G, 0))
    _bar(b, "rocker", L3)
    b.add_joint("j4", "revolute", parent="ground", child="rocker", parent_frame=(L0, 0, 0), axis=(0, 0, 1), q0=PHI0)
    return {"A": a, "B": b}


PIN = ("pin", "point_coincident", dict(body_a="A/coupler", point_a=(L2, 0, 0), body_b="B/rocker", point_b=(L3, 0, 0)))
