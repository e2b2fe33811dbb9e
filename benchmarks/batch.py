"""Throughput of many small runs (issue 14, SPEC §6): 1000 runs of the 20-link chain for 1 s.

mechsim's ``ms.simulate_batch`` on 2 threads against ``mujoco.rollout`` on 2 threads, at equal
accuracy; beside them the per-run overhead of ``ms.sweep`` on a local process pool and on a Dask
LocalCluster with 2 workers. The chain is the speed suite's (mechsim.bench.chains: 20 links, axes
cycling z, y, x, 1 kg, 0.1 m); run i starts from the suite's initial angles plus N(0, 0.05) rad per
joint (seed 0), at rest, no contacts.

Accuracy: the largest error of the final joint angles over the first 20 runs against mechsim's
DOP853 at rtol = atol = 1e-12. Each engine is given its cheapest setting meeting the target: MuJoCo
its RK4 integrator at the largest timestep of STEPS that meets it (its only knob), mechsim the
loosest tolerance of its adaptive DOP853 (or RK45) that meets it. Timed: the 1000 runs, after a
warm-up batch, best of 3; states out for every engine (mechsim: its Results; MuJoCo: the
rollout's state array).

Run from the repository root (writes benchmarks/RESULTS_batch.md):

    PYTHONPATH=src python benchmarks/batch.py [--quick]
"""
import argparse
import datetime
import os
import platform
import subprocess
from pathlib import Path

import numpy as np

from mechsim.bench.batch import (N_LINKS, STEPS, T_END, TARGET, THREADS, TOLERANCES, best, initial_states,
                                 mechsim_finals, mujoco_finals)

HERE = Path(__file__).resolve().parent
N_RUNS = 1000
CHECKED = 20                       # runs whose final state is compared with the reference


def cpu():
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        return next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Model name"))
    except (OSError, StopIteration):
        return platform.processor() or "unknown"


def main(quick=False):
    import mujoco

    import mechsim as ms
    from mechsim.bench.chains import mechsim_chain, mujoco_chain
    n_runs = 100 if quick else N_RUNS
    q0s = initial_states(n_runs)
    model = mechsim_chain(N_LINKS)
    exact = mechsim_finals(model, q0s[:CHECKED], solver="DOP853", rtol=1e-12, atol=1e-12)
    error = lambda final: float(np.abs(final[:CHECKED] - exact).max())

    mj_model, _ = mujoco_chain(N_LINKS, pure=True)
    datas = [mujoco.MjData(mj_model) for _ in range(THREADS)]
    mj_step = next((h for h in STEPS if error(mujoco_finals(mj_model, datas, q0s[:CHECKED], h)) <= TARGET), None)
    mj_error = error(mujoco_finals(mj_model, datas, q0s[:CHECKED], mj_step or STEPS[-1]))
    mj_time = best(lambda: mujoco_finals(mj_model, datas, q0s, mj_step or STEPS[-1]))

    settings = [dict(solver=solver, rtol=tol, atol=tol) for tol in TOLERANCES for solver in ("DOP853", "RK45")]
    ms_setting = next((s for s in settings if error(mechsim_finals(model, q0s[:CHECKED], **s)) <= TARGET), settings[-1])
    ms_error = error(mechsim_finals(model, q0s[:CHECKED], **ms_setting))
    mechsim_finals(model, q0s[:50], **ms_setting)                      # warm-up
    ms_time = best(lambda: mechsim_finals(model, q0s, **ms_setting))

    parameters = {"joints.j0.q0": list(q0s[:, 0])}
    kwargs = dict(simulate_kwargs=dict(t_end=T_END, **ms_setting), metrics=["final:j0.q"])
    pool_time = best(lambda: ms.sweep(model, parameters, workers=THREADS, **kwargs), repeats=1)
    dask_time = None
    try:
        import distributed
        with distributed.LocalCluster(n_workers=THREADS, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, distributed.Client(cluster) as client:
            ms.sweep(model, {"joints.j0.q0": list(q0s[:20, 0])}, client=client, **kwargs)      # warm-up
            dask_time = best(lambda: ms.sweep(model, parameters, client=client, **kwargs), repeats=1)
    except ImportError:
        pass

    per_run = lambda seconds: f"{seconds / n_runs * 1e3:.2f} ms"
    setting = f"{ms_setting['solver']} rtol = atol = {ms_setting['rtol']:g}"
    rows = [
        ("mujoco.rollout, 2 threads", f"RK4 h = {mj_step or STEPS[-1]:g} s" + ("" if mj_step else " (target not met)"),
         f"{mj_error:.1e}", f"{mj_time:.2f}", per_run(mj_time), "1.00"),
        ("ms.simulate_batch, 2 threads", setting, f"{ms_error:.1e}", f"{ms_time:.2f}", per_run(ms_time),
         f"{mj_time / ms_time:.2f}"),
        ("ms.sweep, 2 local processes", setting, "", f"{pool_time:.2f}", per_run(pool_time), f"{mj_time / pool_time:.2f}"),
    ]
    if dask_time is not None:
        rows.append(("ms.sweep, Dask LocalCluster (2 workers)", setting, "", f"{dask_time:.2f}", per_run(dask_time),
                     f"{mj_time / dask_time:.2f}"))
    header = ("engine", "setting", f"error of final q (<= {TARGET:g})", f"{n_runs} runs [s]", "per run",
              "speed vs mujoco.rollout")
    table = "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                      + ["| " + " | ".join(row) + " |" for row in rows])
    verdict = (f"simulate_batch / mujoco.rollout throughput: {mj_time / ms_time:.2f}x (target >= 2x: "
               f"{'met' if mj_time / ms_time >= 2 else 'NOT met'}). Per run, against simulate_batch's threads: the "
               f"local process pool {pool_time / ms_time:.2f}x its time"
               + ("" if dask_time is None else f", the Dask LocalCluster {dask_time / ms_time:.2f}x")
               + " (the sweeps vary j0's q0 only, and return a row of metrics per run instead of a Result).")
    text = (f"# Many small runs: {n_runs} runs of the {N_LINKS}-link chain for {T_END:g} s\n\n"
            f"{datetime.date.today()}, {cpu()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"mujoco {mujoco.__version__}, mechsim {ms.__version__}. Written by benchmarks/batch.py "
            f"(its docstring says what is timed).\n\n{table}\n\n{verdict}\n")
    print(text)
    if not quick:
        (HERE / "RESULTS_batch.md").write_text(text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 runs, nothing written")
    main(parser.parse_args().quick)
