"""Section 8 of the speed suite: many small runs, ``ms.simulate_batch`` against ``mujoco.rollout`` (SPEC §6).

200 runs (40 with --quick) of the 20-link chain (chains.py) for 1 s, each engine on 2 threads; run i starts from the
suite's initial angles plus N(0, 0.05) rad per joint (seed 0), at rest. Each engine is timed at its cheapest setting
that brings the final joint angles of the first 10 runs within 1e-6 rad of mechsim's DOP853 at rtol = atol = 1e-12
(equal accuracy, SPEC §6's comparison): MuJoCo's RK4 at the largest timestep of 4, 2, 1, 0.5, 0.25, 0.125 ms that
meets it (its only knob), mechsim's DOP853 at the loosest tolerance of 1e-5 … 1e-10 that does. Beside them, both
engines' classical RK4 at h = 1 ms (1000 steps): the same method and the same work per step, for information.
Timed: a whole batch, states out for both (mechsim its Results, MuJoCo the rollout's state array), best of 3 after
a warm-up batch.
"""
import time

import numpy as np

import mechsim as ms

from .chains import initial_angles, mechsim_chain, mujoco_chain
from .targets import BATCH_TARGET

N_LINKS, T_END, THREADS = 20, 1.0, 2
RUNS, RUNS_QUICK = 200, 40
TARGET = 1e-6                                      # rad
STEPS = (4e-3, 2e-3, 1e-3, 5e-4, 2.5e-4, 1.25e-4)  # MuJoCo's RK4 timesteps, largest first
TOLERANCES = (1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10)
CHECKED = 10
REPEATS = 3


def initial_states(n_runs):
    rng = np.random.default_rng(0)
    return initial_angles(N_LINKS) + rng.normal(0.0, 0.05, size=(n_runs, N_LINKS))


def mechsim_finals(model, q0s, **options):
    """The final joint angles of simulate_batch's runs from ``q0s``."""
    runs = ms.simulate_batch(model, [{f"joints.j{i}.q0": float(q) for i, q in enumerate(q0)} for q0 in q0s],
                             threads=THREADS, t_end=T_END, **options)
    return np.array([r.q[-1] for r in runs])


def mujoco_finals(model, datas, q0s, step):
    """The final joint angles of mujoco.rollout's RK4 runs from ``q0s`` at timestep ``step``."""
    import mujoco
    from mujoco import rollout
    model.opt.timestep = step
    model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    state = np.zeros((len(q0s), mujoco.mj_stateSize(model, mujoco.mjtState.mjSTATE_FULLPHYSICS)))
    state[:, 1:1 + N_LINKS] = q0s                           # [time, qpos, qvel, ...]
    out, _ = rollout.rollout(model, datas, state, nstep=round(T_END / step), persistent_pool=True)
    return out[:, -1, 1:1 + N_LINKS]


def best(run, repeats=REPEATS):
    """The least wall time of ``repeats`` calls of ``run``."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def run(mujoco, quick=False, say=None):
    """The rows (module docstring), the target (simulate_batch's throughput at equal accuracy BATCH_TARGET times
    mujoco.rollout's) and notes; ``mujoco`` the module (None: not available or not asked for, no rows)."""
    say = say or (lambda *a, **k: None)
    if mujoco is None:
        return {"rows": [], "notes": ["section 8 (many small runs) compares with MuJoCo, not available"], "met": None}
    q0s = initial_states(RUNS_QUICK if quick else RUNS)
    model = mechsim_chain(N_LINKS)
    mj_model, _ = mujoco_chain(N_LINKS, pure=True)
    datas = [mujoco.MjData(mj_model) for _ in range(THREADS)]
    exact = mechsim_finals(model, q0s[:CHECKED], solver="DOP853", rtol=1e-12, atol=1e-12)
    error = lambda finals: float(np.abs(finals[:CHECKED] - exact).max())       # noqa: E731
    mj_step = next((h for h in STEPS if error(mujoco_finals(mj_model, datas, q0s[:CHECKED], h)) <= TARGET),
                   STEPS[-1])
    ms_tol = next((tol for tol in TOLERANCES if error(mechsim_finals(model, q0s[:CHECKED], solver="DOP853", rtol=tol,
                                                                     atol=tol)) <= TARGET), TOLERANCES[-1])
    settings = {"equal accuracy": ((f"RK4 h = {mj_step:g} s", lambda q: mujoco_finals(mj_model, datas, q, mj_step)),
                                   (f"DOP853 rtol = atol = {ms_tol:g}",
                                    lambda q: mechsim_finals(model, q, solver="DOP853", rtol=ms_tol, atol=ms_tol))),
                "same method": (("RK4 h = 0.001 s", lambda q: mujoco_finals(mj_model, datas, q, 1e-3)),
                                ("RK4 h = 0.001 s", lambda q: mechsim_finals(model, q, solver="RK4", h=1e-3)))}
    rows = []
    for comparison, ((mj_setting, mj_run), (ms_setting, ms_run)) in settings.items():
        mj_run(q0s), ms_run(q0s)                            # warm-up
        mj_time, ms_time = best(lambda: mj_run(q0s)), best(lambda: ms_run(q0s))
        rows.append({"comparison": comparison, "runs": len(q0s), "mujoco_setting": mj_setting,
                     "mujoco_error": error(mj_run(q0s[:CHECKED])), "mujoco_s": mj_time, "mechsim_setting": ms_setting,
                     "mechsim_error": error(ms_run(q0s[:CHECKED])), "mechsim_s": ms_time, "ratio": mj_time / ms_time})
        say(f"  {comparison}: simulate_batch {ms_time:.2f} s, mujoco.rollout {mj_time:.2f} s", flush=True)
    ratio = rows[0]["ratio"]
    return {"rows": rows, "notes": [], "target": BATCH_TARGET, "ratio": ratio, "met": bool(ratio >= BATCH_TARGET),
            "mujoco": mujoco.__version__}
