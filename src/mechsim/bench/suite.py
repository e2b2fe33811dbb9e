"""The speed suite of SPEC §6, measured as ratios in one run on one machine.

Sections (each returns plain numbers in a dict; ``run`` collects them, prints a table, writes
``benchmarks/RESULTS.md``):

1. agreement      — mechsim, Pinocchio ``aba`` and MuJoCo give the same accelerations on the
                    benchmark chain at a random state (checked to 1e-8 before anything is timed);
2. forward_dynamics — µs per call from Python for N = 1 … 100, best of several repeats of a tight
                    ``timeit`` loop; ratios mechsim/pin and mechsim/mujoco; a linear fit of time vs N;
2b. loop_scaling  — µs per call of ms.forward_dynamics on the N four-bar, N = 5 … 160, and the growth exponent
                    of its cost in N (issue 46: linear, p <= 1.2);
3. whole_run      — 20-link chain, 1 s, fixed-step RK4 h = 1 ms: ``m.simulate`` (the compiled loop)
                    vs the same RK4 written as a Python loop around ``pin.aba`` (and around
                    ``ms.forward_dynamics``, for information); final states compared;
4. startup        — wall time of a second ``python -m mechsim …`` run (numba cache warm);
5. loops          — whole runs of the benchmark set (four-bar 10 s, Andrews 0.03 s, N four-bar 10 s, Bricard
                    10 s, 20-link chain 10 s) against Exudyn, MuJoCo and (the chain) Drake at equal accuracy:
                    time, error against the reference, loop-closure error (mechsim.bench.loops);
6. robots         — PR2 loading time (warm), and forward dynamics per call vs pin.aba on PR2 and
                    Solo12 (free-flyer base) from robot_files/, accelerations checked first
                    (mechsim.bench.robots);
7. cosim          — Khan, Tang & Krovi's four-bar split into two subsystems in two worker processes, coupled at
                    every RK4 stage: wall time and real-time factor through shared memory, the coordinator's
                    connections and a Dask cluster (mechsim.bench.cosim);
8. batch          — many small runs: ``ms.simulate_batch`` against ``mujoco.rollout`` on the same threads, at equal
                    accuracy and with the same method (mechsim.bench.batch).

``run(groups=...)`` selects sections (default: all of GROUPS).
"""
import importlib.util
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import mechsim as ms

from . import chains, loops, models, report
from .targets import (AGREEMENT_TOL, FD_TARGET_LARGE, FD_TARGET_SMALL, FIRST_LOOP_TARGET_S, GROUPS, INSTALL_HINT,
                      LINEAR_EXPONENT, LOOP_EXPONENT, STARTUP_TARGET_S, WHOLE_RUN_TARGET)
from .timing import best_seconds, best_us

N_FULL = (1, 2, 5, 10, 20, 50, 100)
N_QUICK = (1, 5, 20, 50)
FAR_OFFSET, FAR_TOLERANCE = (1e5, 5e4, -2.5e4), 1e-12   # the chain 100 km out: the same accelerations (SPEC §6)


ENGINES = ("pin", "mujoco", "exudyn", "drake")       # exudyn and drake: peers of the "loops" group only


class Peers:
    """The comparison engines of the chain sections that could be imported (and were asked for)."""

    def __init__(self, engines=ENGINES):
        self.pin = self.mujoco = None
        self.notes = []
        engines = tuple(engines or ())
        for name in engines:
            if name not in ENGINES:
                raise ValueError(f"unknown engine {name!r}: choose from {', '.join(map(repr, ENGINES))}")
        if "pin" in engines:
            try:
                import pinocchio
                self.pin = pinocchio
            except ImportError as exc:
                self.notes.append(f"Pinocchio not available ({exc}); its columns are skipped — {INSTALL_HINT}")
        if "mujoco" in engines:
            try:
                import mujoco
                self.mujoco = mujoco
            except ImportError as exc:
                self.notes.append(f"MuJoCo not available ({exc}); its columns are skipped — {INSTALL_HINT}")


# ------------------------------------------------------------------------------------------ 1. agreement
def random_state(rng, n):
    return rng.uniform(-np.pi, np.pi, n), rng.normal(size=n), rng.normal(size=n)


def agreement(sizes, peers, seed=0):
    """Accelerations of every engine at a random (q, v, tau) per N, compared with mechsim. The error is
    max|a_peer - a_mechsim| / max(1, max|a_mechsim|). Raises AssertionError above AGREEMENT_TOL."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        q, v, tau = random_state(rng, n)
        a = ms.forward_dynamics(chains.mechsim_chain(n), q, v, tau)
        scale = max(1.0, float(np.max(np.abs(a))))
        row = {"n": n, "max_abs_acc": float(np.max(np.abs(a)))}
        if peers.pin is not None:
            model, data = chains.pinocchio_chain(n)
            row["pin"] = float(np.max(np.abs(peers.pin.aba(model, data, q, v, tau) - a))) / scale
        if peers.mujoco is not None:
            for key, pure in (("mujoco", False), ("mujoco_pure", True)):
                model, data = chains.mujoco_chain(n, pure=pure)
                chains.mujoco_set_state(data, q, v, tau)
                peers.mujoco.mj_forward(model, data)
                row[key] = float(np.max(np.abs(data.qacc - a))) / scale
        rows.append(row)
    worst = {k: max(r[k] for r in rows) for k in ("pin", "mujoco", "mujoco_pure") if rows and k in rows[0]}
    result = {"tolerance": AGREEMENT_TOL, "seed": seed, "rows": rows, "worst": worst,
              "ok": all(w <= AGREEMENT_TOL for w in worst.values()), "checked": bool(worst)}
    if not result["ok"]:
        bad = ", ".join(f"{k}: {w:.2e}" for k, w in worst.items() if w > AGREEMENT_TOL)
        raise AssertionError(f"the engines disagree on the benchmark chain's accelerations ({bad} > "
                             f"{AGREEMENT_TOL:g}); a timing comparison would compare different physics")
    return result


# ------------------------------------------------------------------------------------------ 2. forward dynamics
def _linear_fit(ns, us):
    """Least-squares t = intercept + slope N with R², and the growth exponent of the N-dependent
    part: p = log[(t(N2) - t(N0)) / (t(N1) - t(N0))] / log[(N2 - N0) / (N1 - N0)] with N0 the
    smallest size and N1 < N2 the two largest — 1 for a cost linear in N, 2 for quadratic. Using
    the two largest sizes keeps p insensitive to noise on the few-µs small-N times."""
    ns, us = np.asarray(ns, dtype=float), np.asarray(us, dtype=float)
    slope, intercept = np.polyfit(ns, us, 1)
    residual = us - (intercept + slope * ns)
    r2 = 1.0 - float(residual @ residual) / max(float(((us - us.mean()) ** 2).sum()), 1e-300)
    fit = {"slope_us": float(slope), "intercept_us": float(intercept), "r2": r2, "exponent": None, "linear": None}
    if len(ns) >= 3:
        order = np.argsort(ns)
        n0, n1, n2 = ns[order[0]], ns[order[-2]], ns[order[-1]]
        d1, d2 = us[order[-2]] - us[order[0]], us[order[-1]] - us[order[0]]
        fit["upper_slope_us"] = float((d2 - d1) / (n2 - n1))
        fit["exponent_sizes"] = (int(n0), int(n1), int(n2))
        if d1 > 0 and d2 > 0:
            fit["exponent"] = float(np.log(d2 / d1) / np.log((n2 - n0) / (n1 - n0)))
            fit["linear"] = bool(fit["exponent"] <= LINEAR_EXPONENT)
        else:
            fit["linear"] = False
    return fit


def forward_dynamics_times(sizes, peers, repeats, min_time, seed=1):
    """µs per call of ms.forward_dynamics, pin.aba, mujoco.mj_forward (default options, and with
    contact/constraint/sensor/passive disabled) and mujoco.mj_fwdAcceleration (the last stage only).
    All (size, engine) loops are calibrated first, then the repeats sweep over all of them, so a
    load spike on the machine lands on one repeat of everything rather than on one size."""
    rng = np.random.default_rng(seed)
    statements = {}
    for n in sizes:
        q, v, tau = random_state(rng, n)
        m = chains.mechsim_chain(n)
        ms.forward_dynamics(m, q, v, tau)                                # compile the model, JIT the kernel
        statements[n, "mechsim"] = ("fd(m, q, v, tau)", dict(fd=ms.forward_dynamics, m=m, q=q, v=v, tau=tau))
        if peers.pin is not None:
            model, data = chains.pinocchio_chain(n)
            statements[n, "pin"] = ("aba(model, data, q, v, tau)",
                                    dict(aba=peers.pin.aba, model=model, data=data, q=q, v=v, tau=tau))
        if peers.mujoco is not None:
            mj = peers.mujoco
            for key, pure in (("mujoco", False), ("mujoco_pure", True)):
                model, data = chains.mujoco_chain(n, pure=pure)
                chains.mujoco_set_state(data, q, v, tau)
                mj.mj_forward(model, data)
                statements[n, key] = ("f(model, data)", dict(f=mj.mj_forward, model=model, data=data))
            statements[n, "mujoco_acc_stage"] = ("f(model, data)", dict(f=mj.mj_fwdAcceleration, model=model,
                                                                         data=data))
    times = best_us(statements, repeats, min_time)
    rows = []
    for n in sizes:
        row = {"n": n, **{f"{k}_us": t for (size, k), t in times.items() if size == n}}
        target = FD_TARGET_SMALL if n < 5 else FD_TARGET_LARGE
        row["target"] = target
        if "pin_us" in row:
            row["ratio_pin"] = row["mechsim_us"] / row["pin_us"]
            row["met"] = bool(row["ratio_pin"] <= target)
        for key in ("mujoco", "mujoco_pure"):
            if f"{key}_us" in row:
                row[f"ratio_{key}"] = row["mechsim_us"] / row[f"{key}_us"]
        rows.append(row)
    engines = [k for k in ("mechsim", "pin", "mujoco", "mujoco_pure") if f"{k}_us" in rows[0]]
    fits = {k: _linear_fit([r["n"] for r in rows], [r[f"{k}_us"] for r in rows]) for k in engines}
    if "pin" in fits and fits["pin"]["slope_us"] > 0:
        fits["mechsim"]["slope_ratio_to_pin"] = fits["mechsim"]["slope_us"] / fits["pin"]["slope_us"]
    met = [r["met"] for r in rows if "met" in r]
    return {"sizes": list(sizes), "repeats": repeats, "min_time_s": min_time, "rows": rows, "fit": fits,
            "met": (all(met) and fits["mechsim"]["linear"] is not False) if met else None,
            "far": far_from_origin(max(sizes), rng)}


LOOP_SIZES, LOOP_SIZES_QUICK = (5, 10, 20, 40, 80, 160), (5, 20, 80)


def loop_forward_dynamics_times(sizes, repeats, min_time):
    """µs per call of ms.forward_dynamics on the N four-bar (IFToMM A02, models.n_four_bar: N loops closed by
    multipliers, each coupled to its neighbours) at its assembled start, and the growth exponent of the cost in
    N (_linear_fit), which issue 46 holds to LOOP_EXPONENT up to N = 160."""
    from .loops import N_FOUR_BAR
    from .models import n_four_bar
    statements, shapes = {}, {}
    for n in sizes:
        m = n_four_bar(dict(N_FOUR_BAR, n=n))
        state = m.assemble()
        q, v = state.q.copy(), state.v.copy()
        ms.forward_dynamics(m, q, v)                                    # compile the model, JIT the kernels
        cm = m.compile()
        shapes[n] = (cm.nv, cm.n_rows)
        statements[n] = ("fd(m, q, v)", dict(fd=ms.forward_dynamics, m=m, q=q, v=v))
    times = best_us(statements, repeats, min_time)
    rows = [{"n": n, "nv": shapes[n][0], "rows": shapes[n][1], "mechsim_us": times[n]} for n in sizes]
    fit = _linear_fit([r["n"] for r in rows], [r["mechsim_us"] for r in rows])
    met = None if fit["exponent"] is None else bool(fit["exponent"] <= LOOP_EXPONENT)
    return {"sizes": list(sizes), "rows": rows, "fit": fit, "met": met}


def far_from_origin(n, rng):
    """The n-link chain with its base FAR_OFFSET from the world origin against the same chain at the origin:
    the largest difference of ms.forward_dynamics at a random state, relative to the largest acceleration."""
    q, v, tau = random_state(rng, n)
    near = ms.forward_dynamics(chains.mechsim_chain(n), q, v, tau)
    far = ms.forward_dynamics(chains.mechsim_chain(n, base=FAR_OFFSET), q, v, tau)
    error = float(np.max(np.abs(far - near)) / np.max(np.abs(near)))
    return {"n": n, "offset_m": list(FAR_OFFSET), "relative_error": error, "tolerance": FAR_TOLERANCE,
            "met": bool(error <= FAR_TOLERANCE)}


# ------------------------------------------------------------------------------------------ 3. whole run
def python_rk4(acceleration, q, v, h, n_steps):
    """Classical RK4 on y = [q; v], y' = [v; a(q, v)], as a plain Python loop."""
    for _ in range(n_steps):
        a1 = acceleration(q, v)
        q2, v2 = q + (0.5 * h) * v, v + (0.5 * h) * a1
        a2 = acceleration(q2, v2)
        q3, v3 = q + (0.5 * h) * v2, v + (0.5 * h) * a2
        a3 = acceleration(q3, v3)
        q4, v4 = q + h * v3, v + h * a3
        a4 = acceleration(q4, v4)
        q = q + (h / 6.0) * (v + 2.0 * v2 + 2.0 * v3 + v4)
        v = v + (h / 6.0) * (a1 + 2.0 * a2 + 2.0 * a3 + a4)
    return q, v


def whole_run(peers, repeats, n=20, t_end=1.0, h=1e-3):
    """``m.simulate(t_end, solver="RK4", h)`` vs the RK4 Python loop around pin.aba (and around
    ms.forward_dynamics) on the n-link chain from chains.initial_angles(n) at rest; the runs are
    interleaved over ``repeats`` rounds and the best time of each kept."""
    n_steps = int(round(t_end / h))
    q0, v0, zero = chains.initial_angles(n), np.zeros(n), np.zeros(n)
    m = chains.mechsim_chain(n, q0=q0)
    m.simulate(t_end=10 * h, solver="RK4", h=h)                           # JIT / cache load, not timed

    def compiled():
        res = m.simulate(t_end=t_end, solver="RK4", h=h)
        return res.q[-1].copy(), res.v[-1].copy()

    ms_acc = lambda q, v: ms.forward_dynamics(m, q, v, zero)                # noqa: E731
    runs = {"simulate": compiled,
            "overhead": lambda: m.simulate(t_end=10 * h, solver="RK4", h=h),
            "mechsim_loop": lambda: python_rk4(ms_acc, q0, v0, h, n_steps)}
    if peers.pin is not None:
        model, data = chains.pinocchio_chain(n)
        aba = peers.pin.aba
        pin_acc = lambda q, v: aba(model, data, q, v, zero)                 # noqa: E731
        runs["pin_loop"] = lambda: python_rk4(pin_acc, q0, v0, h, n_steps)
    times, finals = best_seconds(runs, repeats)
    out = {"n": n, "t_end": t_end, "h": h, "steps": n_steps, "evaluations": 4 * n_steps, "repeats": repeats,
           "mechsim_simulate_s": times["simulate"], "overhead_steps": 10,
           "mechsim_simulate_overhead_s": times["overhead"], "mechsim_python_loop_s": times["mechsim_loop"]}
    out["mechsim_per_eval_us"] = out["mechsim_simulate_s"] / (4 * n_steps) * 1e6
    out["diff_simulate_vs_mechsim_loop"] = _state_diff(finals["simulate"], finals["mechsim_loop"])
    out["final_q_max_abs"] = float(np.max(np.abs(finals["simulate"][0])))
    out["ratio_mechsim_loop_to_pin_loop"] = None
    if "pin_loop" in runs:
        out["pin_python_loop_s"] = times["pin_loop"]
        out["diff_simulate_vs_pin_loop"] = _state_diff(finals["simulate"], finals["pin_loop"])
        out["diff_mechsim_loop_vs_pin_loop"] = _state_diff(finals["mechsim_loop"], finals["pin_loop"])
        out["ratio_simulate_to_pin_loop"] = out["mechsim_simulate_s"] / out["pin_python_loop_s"]
        out["ratio_mechsim_loop_to_pin_loop"] = out["mechsim_python_loop_s"] / out["pin_python_loop_s"]
        out["met"] = bool(out["ratio_simulate_to_pin_loop"] <= WHOLE_RUN_TARGET)
    return out


def _state_diff(a, b):
    return float(max(np.max(np.abs(a[0] - b[0])), np.max(np.abs(a[1] - b[1]))))


# ------------------------------------------------------------------------------------------ 4. start-up
STARTUP_MODEL = """\
name: double-pendulum
gravity: [0, 0, -9.81]
bodies:
  - {name: upper, mass: 1.0, com: [0.5, 0, 0], inertia: [0.00125, 0.0839583, 0.0839583]}
  - {name: lower, mass: 1.0, com: [0.5, 0, 0], inertia: [0.00125, 0.0839583, 0.0839583]}
joints:
  - {name: j1, kind: revolute, parent: ground, child: upper, axis: [0, 1, 0], q0: 0.5}
  - {name: j2, kind: revolute, parent: upper, child: lower, parent_frame: [1, 0, 0], axis: [0, 1, 0], q0: 0.3}
simulation: {t_end: 1.0}
"""


def first_loop_model():
    """The four-bar of loops.FOUR_BAR (Khan, Tang & Krovi 2006, §5.1; models.four_bar), closed at the crank's
    start angle: the model of examples/four_bar.yaml."""
    return models.four_bar(loops.FOUR_BAR, loops.four_bar_initial())


def first_compiles(tmp, env):
    """Wall time of the first run of the pendulum (an open chain) and then of the four-bar (first_loop_model, a
    closed loop) with an empty numba cache of their own, as a new user meets them: the second is what a first
    closed loop adds to what the open chain compiled."""
    env = {k: v for k, v in env.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = os.path.join(tmp, "empty-cache")
    loop = os.path.join(tmp, "four_bar.yaml")
    first_loop_model().to_yaml(loop)
    out = {}
    for key, model in (("open_chain_s", "pendulum.yaml"), ("closed_loop_s", loop)):
        seconds, rc, tail = _run_timed([sys.executable, "-m", "mechsim", "simulate", model, "--t-end", "1", "-o",
                                        os.path.join(tmp, "first.csv")], tmp, env)
        if rc != 0:
            return {"failed": f"`mechsim simulate {os.path.basename(model)}` failed (exit {rc}: {tail[:160]})"}
        out[key] = seconds
    return dict(out, target_s=FIRST_LOOP_TARGET_S, met=bool(out["closed_loop_s"] <= FIRST_LOOP_TARGET_S))


def _package_root():
    import mechsim
    return os.path.dirname(os.path.dirname(os.path.abspath(mechsim.__file__)))


def _run_timed(cmd, cwd, env):
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - start
    tail = (proc.stderr.strip().splitlines() or [""])[-1]
    return elapsed, proc.returncode, tail


def startup(quick=False, runs=4):
    """Wall time of repeated fresh ``python -m mechsim`` processes: the first run fills numba's
    on-disk cache (if it was not filled already), the later ones load from it; then (not ``quick``) the first
    compiles with an empty cache (first_compiles). Falls back to
    ``python -c "import mechsim as ms; ms.load(...).simulate()"`` when the CLI is missing or fails.
    The pendulum's run also as the README's quickstart runs its model, with a CSV and a plot (where matplotlib is
    at hand). Python may write its bytecode, as an installed package has it (PYTHONDONTWRITEBYTECODE is dropped):
    warm means the kernels and the modules' bytecode cached."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join([_package_root()] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    py = sys.executable
    out = {"runs": runs if not quick else 2, "commands": [], "notes": []}
    with tempfile.TemporaryDirectory(prefix="mechsim-bench-") as tmp:
        path = os.path.join(tmp, "pendulum.yaml")
        with open(path, "w") as fh:
            fh.write(STARTUP_MODEL)
        csv = os.path.join(tmp, "out.csv")
        fallback = {"signals": [py, "-c", f"import mechsim as ms; print(len(ms.load({path!r}).signals()))"],
                    "simulate": [py, "-c", f"import mechsim as ms; ms.load({path!r}).simulate().save({csv!r})"]}
        commands = [("signals", [py, "-m", "mechsim", "signals", path]),
                    ("simulate", [py, "-m", "mechsim", "simulate", path, "-o", csv])]
        png = os.path.join(tmp, "out.png")
        if importlib.util.find_spec("matplotlib") is not None:
            commands.append(("simulate --plot", [py, "-m", "mechsim", "simulate", path, "-o", csv, "--plot", png]))
        if quick:
            commands = commands[1:2]
        baselines = [] if quick else [(f"python -c '{stmt}'", [py, "-c", stmt]) for stmt in
                                      ("pass", "import numpy", "import scipy.integrate", "import numba",
                                       "import mechsim")]
        for label, cmd in commands:
            first, rc, tail = _run_timed(cmd, tmp, env)
            used_cli = rc == 0
            if not used_cli:
                out["notes"].append(f"`python -m mechsim {label}` failed (exit {rc}: {tail[:160]}); timed "
                                    f"`python -c \"import mechsim as ms; ms.load(...).{'signals()' if label == 'signals' else 'simulate().save(...)'}\"` instead")
                cmd = fallback[label]
                first, rc, tail = _run_timed(cmd, tmp, env)
                if rc != 0:
                    out["notes"].append(f"fallback for {label} failed too (exit {rc}: {tail[:160]})")
                    out["commands"].append({"label": label, "cli": False, "failed": True})
                    continue
            later = [_run_timed(cmd, tmp, env) for _ in range(out["runs"] - 1)]
            failed = [r for r in later if r[1] != 0]
            times = [r[0] for r in later if r[1] == 0]
            shown = " ".join(os.path.basename(c) if c in (path, csv, png) else ("python" if c == py else c) for c in cmd)
            entry = {"label": label, "cli": used_cli, "command": shown, "first_s": first, "failed": bool(failed)}
            if times:
                median = float(np.median(times))
                entry.update(second_s=times[0], best_s=min(times), median_s=median, warm_runs=len(times),
                             met=bool(median < STARTUP_TARGET_S))
            out["commands"].append(entry)
        out["baselines"] = [{"label": label, "seconds": min(_run_timed(cmd, tmp, env)[0] for _ in range(2))}
                            for label, cmd in baselines]
        if not quick:
            out["first_compile"] = first_compiles(tmp, env)
    met = [c["met"] for c in out["commands"] if "met" in c]
    out["met"] = all(met) if met else None
    return out


# ------------------------------------------------------------------------------------------ everything
def run(quick=False, output="benchmarks/RESULTS.md", engines=ENGINES, startup_check=True, verbose=True,
        groups=None, loop_engines=("exudyn", "mujoco", "drake")):
    """Run the suite, print a table, write ``output`` (Markdown; None: do not write) and return the
    numbers. quick=True: fewer sizes, repeats and settings (a smoke run). ``engines``: the peers, a subset of
    ENGINES. ``groups``: the sections to run, a subset of GROUPS (default all; startup_check=False drops
    "startup"). ``loop_engines``: the peers of the "loops" group, of those in ``engines``."""
    groups = tuple(GROUPS if groups is None else groups)
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        raise ValueError(f"unknown benchmark group(s) {unknown}: choose from {', '.join(GROUPS)}")
    if not startup_check:
        groups = tuple(g for g in groups if g != "startup")
    peers = Peers(engines)
    sizes = N_QUICK if quick else N_FULL
    repeats, min_time = (3, 0.01) if quick else (7, 0.1)
    started = time.perf_counter()
    results = {"quick": bool(quick), "machine": report.machine_info(), "chain": chains.DESCRIPTION,
               "notes": list(peers.notes), "groups": list(groups),
               "engines": ["mechsim"] + [k for k in ("pin", "mujoco") if getattr(peers, k) is not None]}
    say = print if verbose else (lambda *a, **k: None)
    if "agreement" in groups:
        say("mechsim bench: cross-engine agreement …", flush=True)
        results["agreement"] = agreement(sizes, peers)
    if "forward_dynamics" in groups:
        say("mechsim bench: forward dynamics per call …", flush=True)
        results["forward_dynamics"] = forward_dynamics_times(sizes, peers, repeats, min_time)
    if "loop_scaling" in groups:
        say("mechsim bench: N four-bar forward dynamics, N = 5 … 160 …", flush=True)
        results["loop_scaling"] = loop_forward_dynamics_times(LOOP_SIZES_QUICK if quick else LOOP_SIZES, repeats,
                                                              min_time)
    if "whole_run" in groups:
        say("mechsim bench: 20-link chain, 1 s, RK4 h = 1 ms …", flush=True)
        results["whole_run"] = whole_run(peers, repeats=2 if quick else 5)
    if "startup" in groups:
        say("mechsim bench: CLI start-up …", flush=True)
        results["startup"] = startup(quick=quick)
        results["notes"] += results["startup"]["notes"]
    if "loops" in groups:
        from . import loops
        say("mechsim bench: closed loops and the 20-link chain vs Exudyn, MuJoCo and Drake at equal accuracy …", flush=True)
        loop_peers = tuple(e for e in loop_engines if e in engines)
        results["loops"] = loops.run(quick=quick, engines=loop_peers, say=say if verbose else None)
        for case in results["loops"]["cases"]:
            results["notes"] += [f"{case['key']}: {n}" for n in case["notes"]]
    if "robots" in groups:
        from . import robots
        say("mechsim bench: real robots (PR2 loading, forward dynamics on PR2 and Solo12) …", flush=True)
        results["robots"] = robots.run(peers, repeats, min_time)
        results["notes"] += results["robots"]["notes"]
    if "cosim" in groups:
        from . import cosim
        say("mechsim bench: the split four-bar co-simulated, 10 s at h = 1e-4 and 1e-3 …", flush=True)
        results["cosim"] = cosim.run(quick=quick, say=say)
        results["notes"] += results["cosim"]["notes"]
    if "batch" in groups:
        from . import batch
        say("mechsim bench: many small runs, simulate_batch vs mujoco.rollout …", flush=True)
        results["batch"] = batch.run(peers.mujoco, quick=quick, say=say)
        results["notes"] += results["batch"]["notes"]
    results["elapsed_s"] = time.perf_counter() - started
    results["targets"] = report.targets(results)
    text = report.markdown(results)
    say(report.console(results))
    if output is not None:
        directory = os.path.dirname(os.path.abspath(output))
        os.makedirs(directory, exist_ok=True)
        with open(output, "w") as fh:
            fh.write(text)
        results["output"] = os.path.abspath(output)
        say(f"written: {output}")
    return results
