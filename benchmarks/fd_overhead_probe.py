"""Forward-dynamics call overhead from Python: ms.forward_dynamics vs Pinocchio's pin.aba on the
benchmark N-link revolute chain (SPEC §6: at most 1.5x for N = 5…100, 2x for N < 5), after a
consistency check of forward_dynamics against M(q)^-1 (tau - ID(q, v, 0)) on random trees and
against pin.aba on the chain.

    PYTHONPATH=src python benchmarks/fd_overhead_probe.py [--check-only]
"""
import sys
import timeit

import numpy as np

import mechsim as ms
from mechsim.bench.chains import mechsim_chain, pinocchio_chain

SIZES = (1, 2, 5, 10, 20, 50, 100)
KINDS = ("revolute", "prismatic", "spherical", "free")


def random_tree(rng, n, kinds):
    """A model of n joints of the given kinds on a random tree with random force elements (constant
    and time-varying), and a random (q, v, tau)."""
    m = ms.Model("tree", gravity=rng.normal(size=3))
    for i in range(n):
        m.add_body(f"b{i}", mass=rng.uniform(0.5, 2), com=0.2 * rng.normal(size=3), inertia=rng.uniform(0.05, 0.1, 3))
        kind = kinds[rng.integers(len(kinds))]
        axis = {"axis": rng.normal(size=3)} if kind in ("revolute", "prismatic") else {}
        m.add_joint(f"j{i}", kind, "ground" if i == 0 else f"b{rng.integers(i)}", f"b{i}",
                    parent_frame=(rng.normal(size=3), rng.normal(size=4)), **axis)
        if kind in ("revolute", "prismatic") and rng.random() < 0.5:
            m.add_force(f"spring{i}", "joint_spring_damper", joint=f"j{i}", stiffness=3.0, damping=0.2, rest=0.1)
        if rng.random() < 0.3:
            m.add_force(f"drive{i}", "joint_force", joint=f"j{i}", value=lambda t: np.sin(3 * t))
    bodies = ["ground"] + [f"b{i}" for i in range(n)]
    m.add_force("rope", "spring_damper", body_a=bodies[rng.integers(n + 1)], point_a=rng.normal(size=3),
                body_b=bodies[1 + rng.integers(n)], point_b=rng.normal(size=3), stiffness=5.0, damping=0.5,
                rest_length=0.2)
    m.add_force("push", "body_force", body=bodies[1 + rng.integers(n)], point=rng.normal(size=3),
                force=rng.normal(size=3), torque=(lambda t: 0.5 * t, 0.3, -0.2))
    cm = m.compile()
    q = rng.normal(size=cm.nq)
    for qi in cm.quat_q:
        q[qi:qi + 4] /= np.linalg.norm(q[qi:qi + 4])
    return m, q, rng.normal(size=cm.nv), rng.normal(size=cm.nv)


def relative_error(x, ref):
    return np.max(np.abs(x - ref), initial=0.0) / max(1.0, np.max(np.abs(ref), initial=0.0))


def check(rng):
    """Worst relative errors of forward_dynamics against M^-1 (tau - ID) and against pin.aba."""
    worst = 0.0
    for trial in range(40):
        m, q, v, tau = random_tree(rng, int(rng.integers(1, 12)), KINDS[:1 + trial % 4])
        t = rng.uniform(0, 2)
        ref = np.linalg.solve(ms.mass_matrix(m, q), tau - ms.inverse_dynamics(m, q, v, np.zeros_like(v), t=t))
        worst = max(worst, relative_error(ms.forward_dynamics(m, q, v, tau, t=t), ref))
    import pinocchio as pin
    worst_pin = 0.0
    for n in SIZES:
        (model, data), q, v, tau = pinocchio_chain(n), *rng.normal(size=(3, n))
        worst_pin = max(worst_pin, relative_error(ms.forward_dynamics(mechsim_chain(n), q, v, tau),
                                                  pin.aba(model, data, q, v, tau)))
    assert worst < 1e-9 and worst_pin < 1e-9, (worst, worst_pin)
    return worst, worst_pin


def timings(rng, rounds=30):
    """(N, mechsim us, pin us) per call; the two are timed in alternation, best of the rounds."""
    import pinocchio as pin
    rows = []
    for n in SIZES:
        (model, data), q, v, tau = pinocchio_chain(n), *rng.normal(size=(3, n))
        env = dict(ms=ms, pin=pin, m=mechsim_chain(n), model=model, data=data, q=q, v=v, tau=tau)
        timers = [timeit.Timer("ms.forward_dynamics(m, q, v, tau)", globals=env),
                  timeit.Timer("pin.aba(model, data, q, v, tau)", globals=env)]
        number = max(100, 4000 // n)
        best = [np.inf, np.inf]
        for _ in range(rounds):
            for j, timer in enumerate(timers):
                best[j] = min(best[j], timer.timeit(number) / number * 1e6)
        rows.append((n, *best))
    return rows


if __name__ == "__main__":
    rng = np.random.default_rng(1)
    print("forward_dynamics relative error: vs M^-1 (tau - ID) {:.1e}, vs pin.aba {:.1e}".format(*check(rng)))
    if "--check-only" not in sys.argv:
        print(f"{'N':>4} {'mechsim us':>11} {'pin us':>8} {'ratio':>6} {'target':>7}")
        for n, t_ms, t_pin in timings(rng):
            print(f"{n:>4} {t_ms:>11.2f} {t_pin:>8.2f} {t_ms / t_pin:>6.2f} {'<= 2' if n < 5 else '<= 1.5':>7}")
