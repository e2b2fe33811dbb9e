"""Paired speed comparison of two mechsim source trees (before and after a change).

    git worktree add /tmp/before <commit>
    python benchmarks/compare.py /tmp/before .          # 30 rounds; --rounds N

Each tree runs in its own Python process (its own numba cache, compiled on first use), kept alive;
the two take turns, one run of one case at a time in random order, so that both see the same state
of the machine. On a shared virtual machine whose speed drifts by 10-20 % from minute to minute
this pairing is what makes a 5 % difference visible: the table gives each side's best and median
time and the median of the paired ratios after / before. Cases use only the public API, so any
two versions with the same examples can be compared.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import time

import numpy as np


def cases(root):
    """{name: run()} of the cases, built with the mechsim of the tree ``root``."""
    import mechsim as ms
    from mechsim.bench.chains import mechsim_chain

    def example(name, t_end, solver, tol):
        m = ms.load(os.path.join(root, "examples", name))
        return lambda: m.simulate(t_end=t_end, solver=solver, rtol=tol, atol=tol, drift="projection")

    def chain_rk4():
        m = mechsim_chain(20, q0=0.5 * np.sin(np.arange(20) + 1.0))
        return lambda: m.simulate(t_end=1.0, solver="RK4", h=1e-3)

    def forward_dynamics(n):
        m = mechsim_chain(n)
        rng = np.random.default_rng(1)
        q, v, tau = rng.uniform(-3, 3, n), rng.standard_normal(n), rng.standard_normal(n)

        def run():
            for _ in range(1000):
                ms.forward_dynamics(m, q, v, tau)
        return run

    def model_file(name):
        m = ms.load(os.path.join(root, "examples", name))
        return lambda: m.simulate()

    def short_run():
        m = ms.load(os.path.join(root, "examples", "double_pendulum.yaml"))
        return lambda: m.simulate(t_end=0.01)

    return {
        "four-bar 10 s, DOP853 1e-9": example("four_bar.yaml", 10.0, "DOP853", 1e-9),
        "four-bar 10 s, RK45 1e-6": example("four_bar.yaml", 10.0, "RK45", 1e-6),
        "four-bar 10 s, RK45 1e-9": example("four_bar.yaml", 10.0, "RK45", 1e-9),
        "Andrews 0.03 s, DOP853 1e-9": example("andrews_squeezer.yaml", 0.03, "DOP853", 1e-9),
        "Andrews 0.03 s, RK45 1e-7": example("andrews_squeezer.yaml", 0.03, "RK45", 1e-7),
        "20-link chain 1 s, RK4 h = 1 ms": chain_rk4(),
        "1000 x forward_dynamics, N = 1": forward_dynamics(1),
        "1000 x forward_dynamics, N = 20": forward_dynamics(20),
        "double pendulum 0.01 s (set-up and Result)": short_run(),
        "stick-slip belt (model file's run: lock/unlock switches)": model_file("stick_slip_belt.yaml"),
        "bouncing ball (model file's run: bounces)": model_file("bouncing_ball.yaml"),
        "billiard ball (model file's run: slide/roll switch)": model_file("billiard_ball.yaml"),
        "pendulum stop (model file's run: stop hits)": model_file("pendulum_stop.yaml"),
    }


def worker(root):
    """Time one case per line of stdin; print the seconds."""
    sys.path.insert(0, os.path.join(root, "src"))
    runs = cases(root)
    for run in runs.values():
        run()
        run()
    print(json.dumps(list(runs)), flush=True)
    for line in sys.stdin:
        run = runs[line.strip()]
        start = time.perf_counter()
        run()
        print(time.perf_counter() - start, flush=True)


def compare(before, after, rounds):
    procs = [subprocess.Popen([sys.executable, "-W", "ignore", __file__, "--worker", os.path.abspath(root)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for root in (before, after)]
    names = [json.loads(p.stdout.readline()) for p in procs][0]
    times = {name: ([], []) for name in names}
    for _ in range(rounds):
        for name in names:
            for side in random.sample((0, 1), 2):
                procs[side].stdin.write(name + "\n")
                procs[side].stdin.flush()
                times[name][side].append(float(procs[side].stdout.readline()))
    for p in procs:
        p.stdin.close()
        p.wait()
    print(f"| case | before: best / median (ms) | after: best / median (ms) | after / before (median of {rounds} "
          "paired ratios) |")
    print("|---|---|---|---|")
    for name in names:
        a, b = (np.array(t) * 1e3 for t in times[name])
        print(f"| {name} | {a.min():.2f} / {np.median(a):.2f} | {b.min():.2f} / {np.median(b):.2f} | "
              f"{np.median(b / a):.3f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before", nargs="?", help="source tree (a checkout with src/ and examples/)")
    parser.add_argument("after", nargs="?", help="source tree")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
    elif args.before and args.after:
        compare(args.before, args.after, args.rounds)
    else:
        parser.error("give two source trees")


if __name__ == "__main__":
    main()
