"""Forward-dynamics call overhead from Python: mechsim vs Pinocchio's aba on an N-link revolute chain
(SPEC §6: at most 1.5x for N = 5..100, 2x for N < 5), plus a consistency check of forward_dynamics
against M(q)^-1 (tau - ID(q, v, 0)) on random trees and against pin.aba on the chain.

    PYTHONPATH=src python benchmarks/fd_overhead_probe.py [--check-only]
"""
import sys
import timeit

import numpy as np

from mechsim.dynamics.api import forward_dynamics, inverse_dynamics, mass_matrix
from mechsim.modeling import Model

LINK, MASS, COM, INERTIA = 0.5, 1.0, (0.0, 0.0, -0.25), (0.03, 0.02, 0.01)
SIZES = (1, 2, 5, 10, 20, 50, 100)


def mechsim_chain(n):
    m = Model(f"chain{n}")
    parent = "ground"
    for i in range(n):
        m.add_body(f"b{i}", mass=MASS, com=COM, inertia=INERTIA)
        m.add_joint(f"j{i}", "revolute", parent, f"b{i}", parent_frame=(0, 0, -LINK) if i else (0, 0, 0), axis=(0, 1, 0))
        parent = f"b{i}"
    return m


def pin_chain(n):
    import pinocchio as pin
    model = pin.Model()
    model.gravity.linear = np.array([0.0, 0.0, -9.81])
    parent = 0
    for i in range(n):
        placement = pin.SE3(np.eye(3), np.array([0.0, 0.0, -LINK if i else 0.0]))
        parent = model.addJoint(parent, pin.JointModelRY(), placement, f"j{i}")
        model.appendBodyToJoint(parent, pin.Inertia(MASS, np.array(COM), np.diag(INERTIA)), pin.SE3.Identity())
    return model, model.createData()


def random_tree(rng, n, kinds):
    """n joints of random kinds on a random tree; returns the model and a random state."""
    m = Model("tree", gravity=rng.normal(size=3))
    for i in range(n):
        m.add_body(f"b{i}", mass=rng.uniform(0.5, 2), com=rng.normal(size=3) * 0.2, inertia=rng.uniform(0.05, 0.1, 3))
        parent = "ground" if i == 0 else f"b{rng.integers(i)}"
        kind = kinds[rng.integers(len(kinds))]
        opts = {"axis": rng.normal(size=3)} if kind in ("revolute", "prismatic") else {}
        m.add_joint(f"j{i}", kind, parent, f"b{i}", parent_frame=(rng.normal(size=3), rng.normal(size=4)), **opts)
    cm = m.compile()
    q = rng.normal(size=cm.nq)
    for qi in cm.quat_q:
        q[qi:qi + 4] /= np.linalg.norm(q[qi:qi + 4])
    return m, q, rng.normal(size=cm.nv), rng.normal(size=cm.nv)


def check(rng=np.random.default_rng(1)):
    worst = 0.0
    for trial in range(40):
        kinds = ("revolute", "prismatic", "spherical", "free")[: 1 + trial % 4]
        m, q, v, tau = random_tree(rng, int(rng.integers(1, 12)), kinds)
        ref = np.linalg.solve(mass_matrix(m, q), tau - inverse_dynamics(m, q, v, np.zeros_like(v)))
        worst = max(worst, np.max(np.abs(forward_dynamics(m, q, v, tau) - ref)) / max(1.0, np.max(np.abs(ref))))
    assert worst < 1e-9, f"forward_dynamics disagrees with M^-1 (tau - ID): {worst:.2e}"
    try:
        import pinocchio as pin
    except ImportError:
        return worst, None
    worst_pin = 0.0
    for n in SIZES:
        model, data = pin_chain(n)
        q, v, tau = rng.normal(size=(3, n))
        ref = pin.aba(model, data, q, v, tau)
        worst_pin = max(worst_pin, np.max(np.abs(forward_dynamics(mechsim_chain(n), q, v, tau) - ref)) / max(1.0, np.max(np.abs(ref))))
    assert worst_pin < 1e-9, f"forward_dynamics disagrees with pin.aba: {worst_pin:.2e}"
    return worst, worst_pin


def per_call_us(fn, number=20000, repeat=7):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def timings(rng=np.random.default_rng(2)):
    import pinocchio as pin
    rows = []
    for n in SIZES:
        m, (model, data) = mechsim_chain(n), pin_chain(n)
        q, v, tau = rng.normal(size=(3, n))
        forward_dynamics(m, q, v, tau)
        number = max(2000, 40000 // n)
        t_ms = per_call_us(lambda: forward_dynamics(m, q, v, tau), number)
        t_pin = per_call_us(lambda: pin.aba(model, data, q, v, tau), number)
        rows.append((n, t_ms, t_pin))
    return rows


if __name__ == "__main__":
    worst, worst_pin = check()
    print(f"consistency: vs M^-1(tau - ID) {worst:.1e}, vs pin.aba {worst_pin:.1e}")
    if "--check-only" not in sys.argv:
        print(f"{'N':>4} {'mechsim us':>11} {'pin us':>8} {'ratio':>6} {'target':>6}")
        for n, t_ms, t_pin in timings():
            print(f"{n:>4} {t_ms:>11.2f} {t_pin:>8.2f} {t_ms / t_pin:>6.2f} {2.0 if n < 5 else 1.5:>6.1f}")
