"""Machine information, target verdicts and the Markdown / console reports of the speed suite."""
import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

from .targets import (COMPILED_LOOP_TARGET, FD_TARGET, GROUPS, LINEAR_EXPONENT, LOOP_EXPONENT, STARTUP_TARGET_S,
                      WHOLE_RUN_TARGET)


def _version(module, distribution=None):
    """``module.__version__``, or the installed version of ``distribution`` (without importing it)."""
    if distribution is not None:
        from importlib import metadata
        try:
            return metadata.version(distribution)
        except metadata.PackageNotFoundError:
            return "not installed"
    try:
        mod = __import__(module)
        return getattr(mod, "__version__", "?")
    except ImportError:
        return "not installed"


def _cpuinfo():
    """The first processor's fields of /proc/cpuinfo ({} where there is none)."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                fields[key.strip().lower()] = value.strip()
    except OSError:
        pass
    return fields


def _cpu_model(info=None):
    info = _cpuinfo() if info is None else info
    return info.get("model name") or platform.processor() or platform.machine()


CPU_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512dq", "avx512bw", "avx512vl")   # what numba/LLVM may use


def _cpu_details(info=None):
    """Vendor, family/model/stepping (VMs often hide the model name), the SIMD flags of CPU_FLAGS present or not,
    the caches of CPU 0 (sysfs) and the CPU LLVM compiles numba's kernels for."""
    info = _cpuinfo() if info is None else info
    out = {"cpu_id": None, "cpu_flags": None, "caches": None, "llvm_cpu": None}
    if info.get("vendor_id"):
        out["cpu_id"] = (f"{info['vendor_id']}, family {info.get('cpu family', '?')} model {info.get('model', '?')} "
                         f"stepping {info.get('stepping', '?')}")
    if "flags" in info:
        flags = set(info["flags"].split())
        out["cpu_flags"] = ", ".join(f"{f} {'yes' if f in flags else 'no'}" for f in CPU_FLAGS)
    caches = []
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for index in sorted(os.listdir(base)):
            read = lambda name: Path(base, index, name).read_text().strip()      # noqa: E731
            kind = {"Data": "d", "Instruction": "i"}.get(read("type"), "")
            caches.append(f"L{read('level')}{kind} {read('size')}")
    except OSError:
        pass
    out["caches"] = ", ".join(caches) or None
    try:
        import llvmlite.binding as llvm
        out["llvm_cpu"] = llvm.get_host_cpu_name()
    except Exception:                                          # noqa: BLE001 — information only
        pass
    return out


def _git_revision():
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True,
                             timeout=10)
        if rev.returncode != 0:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return rev.stdout.strip() + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None


def machine_info():
    import mechsim
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    try:
        load = "%.2f %.2f %.2f" % os.getloadavg()
    except (AttributeError, OSError):
        load = None
    info = _cpuinfo()
    return {"load": load, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "cpu": _cpu_model(info), **_cpu_details(info), "cores": os.cpu_count(), "usable_cores": affinity,
            "platform": platform.platform(), "python": platform.python_version(),
            "mechsim": mechsim.__version__, "git": _git_revision(),
            "numpy": _version("numpy"), "numba": _version("numba"), "pinocchio": _version("pinocchio"),
            "mujoco": _version("mujoco"), "exudyn": _version("exudyn", "exudyn"), "drake": _version("pydrake", "drake"),
            "executable": sys.executable}


# ------------------------------------------------------------------------------------------ verdicts
def targets(results):
    """One line per SPEC §6 target: what, measured value, target, met (True/False/None = not measured)."""
    lines = []
    fd = results.get("forward_dynamics", {"rows": [], "fit": {"mechsim": {"linear": None}}})
    for row in fd["rows"]:
        if "ratio_pin" in row:
            lines.append({"what": f"forward_dynamics N = {row['n']}: mechsim / pin.aba",
                          "value": f"{row['ratio_pin']:.2f}x", "target": f"<= {row['target']:g}x", "met": row["met"]})
    far = fd.get("far")
    if far:
        lines.append({"what": f"forward_dynamics of the {far['n']}-link chain 100 km from the origin: largest "
                              "difference from the same chain at the origin, relative",
                      "value": f"{far['relative_error']:.1e}", "target": f"<= {far['tolerance']:g}", "met": far["met"]})
    fit = fd["fit"]["mechsim"]
    if fit["linear"] is not None:
        lines.append({"what": "forward_dynamics grows linearly in N (growth exponent of t(N) − t(N_min))",
                      "value": "—" if fit["exponent"] is None else f"{fit['exponent']:.2f}",
                      "target": f"<= {LINEAR_EXPONENT:g}", "met": fit["linear"]})
    scaling = results.get("loop_scaling")
    if scaling:
        exponent = scaling["fit"]["exponent"]
        lines.append({"what": f"N four-bar forward_dynamics grows linearly in N, N = {scaling['sizes'][0]} … "
                              f"{scaling['sizes'][-1]} (growth exponent of t(N) − t(N_min))",
                      "value": "—" if exponent is None else f"{exponent:.2f}", "target": f"<= {LOOP_EXPONENT:g}",
                      "met": scaling["met"]})
    whole = results.get("whole_run", {"n": None})
    if "ratio_simulate_to_pin_loop" in whole:
        lines.append({"what": f"{whole['n']}-link chain {whole['t_end']:g} s RK4: m.simulate / Python loop around pin.aba",
                      "value": f"{whole['ratio_simulate_to_pin_loop']:.3f}x", "target": f"<= {WHOLE_RUN_TARGET:g}x",
                      "met": whole["met"]})
    pin20 = next((r.get("pin_us") for r in fd["rows"] if r["n"] == whole["n"]), None)
    if pin20:
        ratio = whole["mechsim_per_eval_us"] / pin20
        whole["ratio_per_eval_to_pin_aba"] = ratio
        ms20 = next(r["mechsim_us"] for r in fd["rows"] if r["n"] == whole["n"])
        whole["ratio_per_eval_to_mechsim_fd"] = whole["mechsim_per_eval_us"] / ms20
        lines.append({"what": f"inside the compiled loop: µs per dynamics evaluation (RK4 stage incl.) / pin.aba "
                              f"from Python, N = {whole['n']}",
                      "value": f"{ratio:.2f}x", "target": f"<= {COMPILED_LOOP_TARGET:g}x",
                      "met": bool(ratio <= COMPILED_LOOP_TARGET)})
    for cmd in results.get("startup", {}).get("commands", []):
        if "second_s" in cmd:
            lines.append({"what": f"second start-up: `{cmd['command']}`" + ("" if cmd["cli"] else " (CLI fallback)"),
                          "value": f"{cmd['median_s']:.2f} s (median of {cmd['warm_runs']} warm runs)", "target": f"< {STARTUP_TARGET_S:g} s",
                          "met": cmd["met"]})
    first = results.get("startup", {}).get("first_compile", {})
    if "closed_loop_s" in first:
        lines.append({"what": "first closed loop's run after a first open chain's, empty cache (compiling)",
                      "value": f"{first['closed_loop_s']:.1f} s", "target": f"<= {first['target_s']:g} s",
                      "met": first["met"]})
    for case in results.get("loops", {}).get("cases", []):
        lines += _loop_targets(case)
    return (lines + _robot_targets(results.get("robots", {})) + _cosim_targets(results.get("cosim"))
            + _batch_targets(results.get("batch")))


def _cosim_targets(cosim):
    if not cosim:
        return []
    return [{"what": "split four-bar co-simulated (2 worker processes, RK4 h = 1e-4 s, 10 s, every stage through "
                     "shared memory): wall time", "value": f"{cosim['wall_s']:.2f} s "
                     f"({10.0 / cosim['wall_s']:.1f}x real time)", "target": f"<= {cosim['target_s']:g} s",
             "met": cosim["met"]}]


def _batch_targets(batch):
    if not batch or not batch["rows"]:
        return []
    row = batch["rows"][0]
    return [{"what": f"{row['runs']} runs of the 20-link chain, 2 threads: ms.simulate_batch / mujoco.rollout throughput "
                     "at equal accuracy", "value": f"{row['ratio']:.2f}x ({row['mechsim_setting']} against "
                     f"{row['mujoco_setting']})", "target": f">= {batch['target']:g}x", "met": batch["met"]}]


def _robot_targets(robots):
    """Warm PR2 loading under 0.3 s; forward dynamics no slower than pin.aba on each robot ("—" without Pinocchio)."""
    lines, load = [], robots.get("load")
    if load:
        lines.append({"what": f"loading PR2 ({load['dof']} DOF, merge_fixed=True) warm: best of {robots['repeats']} `ms.load`",
                      "value": f"{load['seconds']:.3f} s", "target": f"< {load['target_s']:g} s", "met": load["met"]})
    for row in robots.get("rows", []):
        lines.append({"what": f"forward_dynamics {_robot_name(row)}: mechsim / pin.aba",
                      "value": _x(row.get("ratio_pin")), "target": f"<= {FD_TARGET:g}x", "met": row.get("met")})
    return lines


def _robot_name(row):
    return f"{row['robot']} ({row['dof']} DOF, {row['base']} base)"


def _loop_targets(case):
    """SPEC §6 second bullet for one closed-loop case: ≥ 10x faster than each peer at equal accuracy
    (at the peer's fastest setting reaching the target error, else its most accurate one), and the
    time target (four-bar: < 0.1 s to 1e-6 rad)."""
    v, lines = case.get("verdict"), []
    if not v:
        return lines
    name = case["title"].split(" (")[0]
    if case["target_time"] is not None:
        ms = case["summary"].get("mechsim", {}).get("row")
        value = ("did not reach %g" % case["target_error"]) if not v["mechsim_reached"] else f"{ms['seconds'] * 1e3:.1f} ms"
        lines.append({"what": f"{name}: mechsim whole run to error ≤ {case['target_error']:g}",
                      "value": value, "target": f"< {case['target_time']:g} s", "met": v.get("time_met")})
    for engine, pv in v["peers"].items():
        row = case["summary"][engine]["row"]
        if row is None:
            value = "peer failed at every setting"
        elif pv["ratio"] is None:
            value = f"mechsim never as accurate as {engine}'s {row['error']:.1e}"
        else:
            value = (f"{pv['ratio']:.1f}x at error {row['error']:.1e} ({'reaches' if pv['reached'] else 'best it reaches; target'}"
                     f" {case['target_error']:g})")
        lines.append({"what": f"{name}: {ENGINE_NAMES.get(engine, engine)} time / mechsim time at equal accuracy",
                      "value": value, "target": ">= 10x", "met": pv["met"]})
    return lines


ENGINE_NAMES = {"mechsim": "mechsim", "exudyn": "Exudyn", "mujoco": "MuJoCo", "drake": "Drake"}


def _mark(met):
    return "—" if met is None else ("met" if met else "**not met**")


def _us(x):
    return "—" if x is None else (f"{x:.2f}" if x < 100 else f"{x:.1f}")


def _x(x):
    return "—" if x is None else f"{x:.2f}x"


def _table(header, rows):
    cell = lambda c: str(c).replace("|", "\\|")            # noqa: E731 — e.g. |θ − θ_ref| in a header
    out = ["| " + " | ".join(map(cell, header)) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(map(cell, row)) + " |" for row in rows]
    return "\n".join(out)


# ------------------------------------------------------------------------------------------ Markdown
def markdown(results):
    mi = results["machine"]
    groups = results.get("groups", GROUPS)
    lines = ["# mechsim speed suite — results", "",
             "Generated by `mechsim bench" + (" --quick" if results["quick"] else "") +
             "` (or `python benchmarks/run.py`); every ratio below is measured in this one run on this machine. "
             "See `benchmarks/README.md` for what is measured and how.", "",
             "## Machine", "",
             _table(["item", "value"], [
                 ("date", mi["date"]), ("CPU", mi["cpu"]), ("CPU vendor, family, model", mi.get("cpu_id") or "—"),
                 ("SIMD flags", mi.get("cpu_flags") or "—"), ("caches (CPU 0)", mi.get("caches") or "—"),
                 ("LLVM target CPU (numba)", mi.get("llvm_cpu") or "—"),
                 ("cores", f"{mi['cores']}" + (f" ({mi['usable_cores']} usable)" if mi["usable_cores"] else "")),
                 ("load average at start (1, 5, 15 min)",
                  "—" if mi["load"] is None else f"{mi['load']} (other busy processes inflate absolute times)"),
                 ("platform", mi["platform"]), ("python", mi["python"]), ("numpy", mi["numpy"]),
                 ("numba", mi["numba"]), ("pinocchio", mi["pinocchio"]), ("mujoco", mi["mujoco"]),
                 ("exudyn", mi.get("exudyn", "—")), ("drake", mi.get("drake", "—")),
                 ("mechsim", mi["mechsim"] + (f", git {mi['git']}" if mi["git"] else ""))]), ""]
    if results["notes"]:
        lines += ["Notes:", ""] + [f"- {n}" for n in results["notes"]] + [""]
    lines += ["## Targets (SPEC §6)", "",
              _table(["target", "measured", "required", "verdict"],
                     [(t["what"], t["value"], t["target"], _mark(t["met"])) for t in results["targets"]]), ""]
    if len(groups) < len(GROUPS):
        lines += ["Sections run: " + ", ".join(groups) + " (the others were not selected).", ""]
    if "agreement" in results or "forward_dynamics" in results:
        lines += _markdown_chain(results)
    if "loop_scaling" in results:
        lines += _markdown_loop_scaling(results["loop_scaling"])
    if "whole_run" in results:
        lines += _markdown_whole(results)
    if "startup" in results:
        lines += _markdown_startup(results)
    if "loops" in results:
        lines += _markdown_loops(results["loops"])
    if "robots" in results:
        lines += _markdown_robots(results["robots"])
    if "cosim" in results:
        lines += _markdown_cosim(results["cosim"])
    if results.get("batch", {}).get("rows"):
        lines += _markdown_batch(results["batch"])
    lines += [f"Suite wall time: {results['elapsed_s']:.1f} s.", ""]
    return "\n".join(lines)


def _markdown_chain(results):
    fd, ag = results.get("forward_dynamics"), results.get("agreement")
    has_pin, has_mj = "pin" in results["engines"], "mujoco" in results["engines"]
    lines = ["## Benchmark model", "", results["chain"], "",
              "Built by `mechsim.bench.chains`: `mechsim_chain(N)` (ms.Model), `pinocchio_chain(N)` "
              "(JointModelRY/RZ, pin.Inertia, SE3 placements), `mujoco_xml(N)` (MJCF hinges with `<inertial>`, no geoms).", ""]
    if ag is not None:
        lines += _markdown_agreement(ag)
    if fd is not None:
        lines += _markdown_fd(fd, has_pin, has_mj)
    return lines


def _markdown_agreement(ag):
    lines = ["## 1. Cross-engine agreement", "",
              f"Accelerations at a random state per N (q uniform in [-π, π], v and tau standard normal; seed "
              f"{ag['seed']}). Error = max|a_engine − a_mechsim| / max(1, max|a_mechsim|); required ≤ "
              f"{ag['tolerance']:g} before anything is timed.", ""]
    if ag["checked"]:
        cols = [k for k in ("pin", "mujoco", "mujoco_pure") if k in ag["rows"][0]]
        names = {"pin": "pin.aba", "mujoco": "mj_forward", "mujoco_pure": "mj_forward (pure dynamics)"}
        lines += [_table(["N", "max abs acc"] + [names[c] for c in cols],
                         [[r["n"], f"{r['max_abs_acc']:.3g}"] + [f"{r[c]:.1e}" for c in cols] for r in ag["rows"]]),
                  "", f"Agreement: **{'ok' if ag['ok'] else 'FAILED'}** (worst "
                  + ", ".join(f"{names[k]} {v:.1e}" for k, v in ag["worst"].items()) + ").", ""]
    else:
        lines += ["No peer engine available: agreement not checked.", ""]
    return lines


def _markdown_fd(fd, has_pin, has_mj):
    lines = ["## 2. Forward dynamics per call from Python", "",
              f"µs per call, best of {fd['repeats']} interleaved repeats of a `timeit` loop of ≥ {fd['min_time_s']:g} s each. "
              "mechsim: `ms.forward_dynamics(m, q, v, tau)`; Pinocchio: `pin.aba(model, data, q, v, tau)` "
              "(C++ called from Python, LOCAL convention); MuJoCo: `mujoco.mj_forward(model, data)` with "
              "qpos/qvel/qfrc_applied set once beforehand (the copy-in is not timed, which favours MuJoCo). "
              "`mj_forward` does more than ABA — collision detection, constraint set-up, sensors, energy — "
              "and factorises the dense chain mass matrix (CRB + LDLᵀ), so it is not linear in N. "
              "\"mj pure\" is `mj_forward` with contact, constraints, sensors, passive forces and actuation disabled "
              "(the closest full pure-dynamics evaluation MuJoCo offers); \"mj acc stage\" is "
              "`mj_fwdAcceleration` alone — only the last stage (qacc = M⁻¹ qfrc_smooth with M already factorised), "
              "listed for information, not a comparable evaluation.", ""]
    header = ["N", "mechsim µs"]
    if has_pin:
        header += ["pin.aba µs", "mechsim / pin", "target", "verdict"]
    if has_mj:
        header += ["mj_forward µs", "mj pure µs", "mj acc stage µs", "mechsim / mj_forward", "mechsim / mj pure"]
    rows = []
    for r in fd["rows"]:
        row = [r["n"], _us(r["mechsim_us"])]
        if has_pin:
            row += [_us(r["pin_us"]), _x(r["ratio_pin"]), f"≤ {r['target']:g}x", _mark(r["met"])]
        if has_mj:
            row += [_us(r["mujoco_us"]), _us(r["mujoco_pure_us"]), _us(r["mujoco_acc_stage_us"]),
                    _x(r["ratio_mujoco"]), _x(r["ratio_mujoco_pure"])]
        rows.append(row)
    lines += [_table(header, rows), ""]
    names = {"mechsim": "mechsim forward_dynamics", "pin": "pin.aba", "mujoco": "mj_forward", "mujoco_pure": "mj_forward (pure)"}
    f0 = fd["fit"]["mechsim"]
    sizes = f0.get("exponent_sizes")
    lines += ["Linear growth: least-squares fit time = intercept + slope·N over all N; the upper slope is the per-link "
              "cost between the two largest N; the growth exponent p is that of the N-dependent part of the time, "
              + (f"p = log[(t({sizes[2]}) − t({sizes[0]})) / (t({sizes[1]}) − t({sizes[0]}))] / "
                 f"log[({sizes[2]} − {sizes[0]}) / ({sizes[1]} − {sizes[0]})]" if sizes else "from the two largest N")
              + f" — 1 for a cost linear in N, 2 for quadratic; linear means p ≤ {LINEAR_EXPONENT:g}.", "",
              _table(["engine", "slope µs/link", "intercept µs", "R²", "upper slope µs/link", "exponent p", "linear"],
                     [(names[k], f"{f['slope_us']:.3f}", f"{f['intercept_us']:.2f}", f"{f['r2']:.4f}",
                       _us(f.get("upper_slope_us")), "—" if f["exponent"] is None else f"{f['exponent']:.2f}",
                       "—" if f["linear"] is None else ("yes" if f["linear"] else "no"))
                      for k, f in fd["fit"].items()]), ""]
    if "slope_ratio_to_pin" in fd["fit"]["mechsim"]:
        lines += [f"Per-link cost mechsim / pin.aba (ratio of fitted slopes): "
                  f"{fd['fit']['mechsim']['slope_ratio_to_pin']:.2f}x.", ""]
    far = fd.get("far")
    if far:
        lines += [f"Far from the origin: the {far['n']}-link chain with its first joint at "
                  f"({', '.join(f'{x:g}' for x in far['offset_m'])}) m gives, at a random state, accelerations that differ "
                  f"from the same chain's at the origin by {far['relative_error']:.1e} of the largest (target ≤ "
                  f"{far['tolerance']:g}: the kernels refer spatial quantities to a point on the machine).", ""]
    return lines


def _markdown_loop_scaling(scaling):
    fit = scaling["fit"]
    return ["## 2b. Forward dynamics of the N four-bar", "",
            "µs per call of `ms.forward_dynamics(m, q, v)` on the N four-bar (IFToMM A02: N loops closed by Lagrange "
            "multipliers, each coupled to its neighbours; the tree keeps them apart) at its assembled start, timed as "
            f"in section 2. Growth exponent p as in section 2; linear means p ≤ {LOOP_EXPONENT:g} (issue 46).", "",
            _table(["N", "velocities", "constraint rows", "mechsim µs", "µs per loop"],
                   [(r["n"], r["nv"], r["rows"], _us(r["mechsim_us"]), _us(r["mechsim_us"] / r["n"]))
                    for r in scaling["rows"]]), "",
            f"Fit: slope {fit['slope_us']:.2f} µs per loop, intercept {fit['intercept_us']:.1f} µs, R² {fit['r2']:.4f}; "
            f"growth exponent p = {'—' if fit['exponent'] is None else format(fit['exponent'], '.2f')} "
            f"({_mark(scaling['met'])}).", ""]


def _markdown_cosim(cosim):
    from .cosim import __doc__ as description
    return ["## 7. The split four-bar against the clock", "", " ".join(description.split("\n\n")[1].split()), "",
            _table(["transport", "h [s]", "simulated [s]", "wall [s]", "real-time factor", "exchanges", "error [rad]",
                    "error against"],
                   [(r["transport"], f"{r['h']:g}", f"{r['t_end']:g}", f"{r['wall_s']:.3f}", f"{r['realtime_factor']:.2f}",
                     r["exchanges"], f"{r['error']:.1e}", r["error_against"]) for r in cosim["rows"]]), ""]


def _markdown_batch(batch):
    from .batch import __doc__ as description
    return ["## 8. Many small runs: simulate_batch against mujoco.rollout", "", " ".join(description.split("\n\n")[1].split()),
            "", _table(["comparison", "runs", "mujoco.rollout", "its error [rad]", "its time [s]", "ms.simulate_batch",
                        "its error [rad]", "its time [s]", "throughput mechsim / MuJoCo"],
                       [(r["comparison"], r["runs"], r["mujoco_setting"], f"{r['mujoco_error']:.1e}", f"{r['mujoco_s']:.2f}",
                         r["mechsim_setting"], f"{r['mechsim_error']:.1e}", f"{r['mechsim_s']:.2f}", f"{r['ratio']:.2f}x")
                        for r in batch["rows"]]), ""]


def _markdown_whole(results):
    whole = results["whole_run"]
    lines = [f"## 3. Whole run: {whole['n']}-link chain, {whole['t_end']:g} s, fixed-step RK4 h = {whole['h'] * 1e3:g} ms", "",
              f"{whole['steps']} steps, {whole['evaluations']} dynamics evaluations, from q = 0.5·sin(i+1) at rest. "
              f"Best of {whole['repeats']} interleaved runs of each. `m.simulate(t_end=1.0, "
              "solver=\"RK4\", h=1e-3)` runs the compiled fixed-step loop (set-up and Result included); the Python loops "
              "are the same classical RK4 on [q; v] written in Python around one dynamics call per stage.", ""]
    rows = [("`m.simulate(..., solver=\"RK4\", h=1e-3)` (compiled loop)", f"{whole['mechsim_simulate_s'] * 1e3:.2f}",
             f"{whole['mechsim_per_eval_us']:.2f}", "1.00x" if "pin_python_loop_s" not in whole
             else _x(whole["ratio_simulate_to_pin_loop"]), "—")]
    if "pin_python_loop_s" in whole:
        rows.append(("Python RK4 loop around `pin.aba`", f"{whole['pin_python_loop_s'] * 1e3:.2f}",
                     f"{whole['pin_python_loop_s'] / whole['evaluations'] * 1e6:.2f}", "1.00x",
                     f"{whole['diff_simulate_vs_pin_loop']:.1e}"))
    rows.insert(1, (f"`m.simulate` of {whole['overhead_steps']} steps (fixed set-up + Result cost, information)",
                    f"{whole['mechsim_simulate_overhead_s'] * 1e3:.2f}", "—", "—", "—"))
    rows.append(("Python RK4 loop around `ms.forward_dynamics` (information)", f"{whole['mechsim_python_loop_s'] * 1e3:.2f}",
                 f"{whole['mechsim_python_loop_s'] / whole['evaluations'] * 1e6:.2f}",
                 _x(whole["ratio_mechsim_loop_to_pin_loop"]) if whole["ratio_mechsim_loop_to_pin_loop"] else "—",
                 f"{whole['diff_simulate_vs_mechsim_loop']:.1e}"))
    lines += [_table(["run", "ms", "µs per evaluation", "time / pin loop", "max abs difference of final state vs m.simulate"], rows), "",
              f"Final joint angles are of order {whole['final_q_max_abs']:.2g} rad; the differences are round-off "
              "amplified by the chaotic chain over 1000 steps.", ""]
    if "ratio_per_eval_to_pin_aba" in whole:
        lines += [f"Inside the compiled loop one dynamics evaluation (with its share of the RK4 arithmetic) costs "
                  f"{whole['mechsim_per_eval_us']:.2f} µs, {whole['ratio_per_eval_to_pin_aba']:.2f}x one `pin.aba` call "
                  "from Python at the same N (which includes Python's call overhead; Pinocchio offers no compiled loop "
                  "to compare with from Python), and "
                  f"{whole['ratio_per_eval_to_mechsim_fd']:.2f}x one `ms.forward_dynamics` call from Python.", ""]
    return lines


def _markdown_startup(results):
    st, lines = results.get("startup"), []
    if st:
        lines += ["## 4. Start-up (numba on-disk cache)", "",
                  f"Wall time of fresh `python` processes on a 2-link pendulum YAML, its run also with a plot as the "
                  f"README's quickstart's, each command run {st['runs']} times: the first run fills numba's "
                  "on-disk cache if it is cold; the later runs load the compiled kernels from it, and Python's bytecode "
                  "(allowed to be written, as an installed package has it). The verdict is on the median of the later "
                  "(warm) runs.", ""]
        rows = []
        for c in st["commands"]:
            if c.get("failed") and "second_s" not in c:
                rows.append((c["label"], "failed", "—", "—", "—", "—"))
                continue
            rows.append((f"`{c['command']}`" + ("" if c["cli"] else " (fallback: CLI missing)"), f"{c['first_s']:.2f}",
                         f"{c['second_s']:.2f}", f"{c['median_s']:.2f}", f"{c['best_s']:.2f}",
                         f"< {STARTUP_TARGET_S:g}", _mark(c["met"])))
        lines += [_table(["command", "first s", "second s", "median warm s", "best warm s", "target s", "verdict"], rows), ""]
        if st["baselines"]:
            lines += ["For reference: " + "; ".join(f"`{b['label']}` {b['seconds']:.2f} s" for b in st["baselines"]) + ".", ""]
        lines += _markdown_first_compile(st.get("first_compile"))
    return lines


def _markdown_first_compile(first):
    if not first:
        return []
    lines = ["First use with an empty numba cache of its own, as a new user meets it: `mechsim simulate pendulum.yaml` "
             "(an open chain), then `mechsim simulate four_bar.yaml` (Khan, Tang & Krovi's four-bar, a closed loop), "
             "each timed whole. The second is what a first closed loop compiles beyond the open chain's kernels. "
             "Compile times scale with the CPU's speed.", ""]
    if "failed" in first:
        return lines + [first["failed"], ""]
    return lines + [_table(["open chain s", "then the closed loop s", "target s", "verdict"],
                           [(f"{first['open_chain_s']:.1f}", f"{first['closed_loop_s']:.1f}",
                             f"<= {first['target_s']:g}", _mark(first["met"]))]), ""]


def _markdown_robots(robots):
    lines = ["## 6. Real robots: loading and forward dynamics", "",
             "URDFs from example-robot-data shipped in `mechsim/bench/robot_files` (meshes not shipped; the importer's warnings are "
             f"suppressed). Loading: best wall time of {robots['repeats']} `ms.load(\"pr2.urdf\", merge_fixed=True)` calls "
             "in one process (warm: imports and one-time set-up not counted). Forward dynamics: µs per call from Python "
             "(calibrated, interleaved `timeit` loops as in section 2) of `ms.forward_dynamics(m, q, v, tau)` and "
             "`pin.aba(model, data, q, v, tau)` at one random state — PR2 with merge_fixed=True, mimic=False (a tree, as Pinocchio's model), Solo12 with a free "
             "flyer (`floating_base=True`, `pin.JointModelFreeFlyer()`). Pinocchio's state is mapped from mechsim's "
             "(joint order, (cos, sin) of continuous joints, free-flyer quaternion and local velocity) and the "
             f"accelerations must agree to {robots['tolerance']:g} (relative to max(1, max|a|)) before anything is timed.", ""]
    for note in robots["notes"]:
        lines += [f"- {note}", ""]
    if robots["rows"] and "pin_us" in robots["rows"][0]:
        lines += [_table(["robot", "agreement error", "mechsim µs", "pin.aba µs", "mechsim / pin", "target", "verdict"],
                         [(_robot_name(r), _sci(r["error"]), _us(r["mechsim_us"]), _us(r["pin_us"]),
                           _x(r["ratio_pin"]), f"≤ {FD_TARGET:g}x", _mark(r["met"])) for r in robots["rows"]]), ""]
    elif robots["rows"]:
        lines += ["Pinocchio not available: agreement not checked, ratios not measured.", "",
                  _table(["robot", "mechsim µs"], [(_robot_name(r), _us(r["mechsim_us"])) for r in robots["rows"]]), ""]
    return lines


# ------------------------------------------------------------------------------------------ console
def _console_fd(fd, has_pin, has_mj):
    out = []
    head = f"{'N':>4} {'mechsim':>9}"
    if has_pin:
        head += f" {'pin.aba':>9} {'ms/pin':>7} {'target':>7}"
    if has_mj:
        head += f" {'mj_fwd':>9} {'mj pure':>9} {'ms/mj':>6} {'ms/pure':>7}"
    out += ["forward dynamics, µs per call from Python:", head]
    for r in fd["rows"]:
        line = f"{r['n']:>4} {r['mechsim_us']:>9.2f}"
        if has_pin:
            line += f" {r['pin_us']:>9.2f} {r['ratio_pin']:>6.2f}x {'<=' + format(r['target'], 'g') + 'x':>7}" \
                    f" {'ok' if r['met'] else 'MISSED'}"
        if has_mj:
            line += f" {r['mujoco_us']:>9.2f} {r['mujoco_pure_us']:>9.2f} {r['ratio_mujoco']:>5.2f}x {r['ratio_mujoco_pure']:>6.2f}x"
        out.append(line)
    out.append("linear fit (slope µs/link, intercept µs, growth exponent): " + "; ".join(
        f"{k} {f['slope_us']:.3f}, {f['intercept_us']:.2f}"
        + ("" if f["exponent"] is None else f", {f['exponent']:.2f}") for k, f in fd["fit"].items()))
    return out


def _console_whole(whole):
    line = (f"{whole['n']}-link chain {whole['t_end']:g} s RK4 h={whole['h']:g}: m.simulate {whole['mechsim_simulate_s'] * 1e3:.1f} ms")
    if "pin_python_loop_s" in whole:
        line += (f", Python loop around pin.aba {whole['pin_python_loop_s'] * 1e3:.1f} ms "
                 f"(ratio {whole['ratio_simulate_to_pin_loop']:.3f}, final-state diff {whole['diff_simulate_vs_pin_loop']:.1e})")
    line += f", Python loop around ms.forward_dynamics {whole['mechsim_python_loop_s'] * 1e3:.1f} ms"
    return line


def console(results):
    has_pin, has_mj = "pin" in results["engines"], "mujoco" in results["engines"]
    out = [f"\nmechsim speed suite — {results['machine']['cpu']}, {results['machine']['cores']} cores, "
           f"{results['machine']['date']}"]
    if "agreement" in results:
        ag = results["agreement"]
        if ag["checked"]:
            out.append("agreement (rel. max error vs mechsim): " + ", ".join(f"{k} {v:.1e}" for k, v in ag["worst"].items())
                       + f"  [tol {ag['tolerance']:g}: {'ok' if ag['ok'] else 'FAILED'}]")
    if "forward_dynamics" in results:
        out += _console_fd(results["forward_dynamics"], has_pin, has_mj)
    if "loop_scaling" in results:
        scaling = results["loop_scaling"]
        exponent = scaling["fit"]["exponent"]
        out.append("N four-bar forward dynamics, µs per call: " + ", ".join(
            f"N = {r['n']} {r['mechsim_us']:.1f}" for r in scaling["rows"])
            + f"; growth exponent {'—' if exponent is None else format(exponent, '.2f')} (target <= {LOOP_EXPONENT:g}: "
            + ("—" if scaling["met"] is None else "ok" if scaling["met"] else "MISSED") + ")")
    if "whole_run" in results:
        out.append(_console_whole(results["whole_run"]))
    for c in results.get("startup", {}).get("commands", []):
        if "second_s" in c:
            out.append(f"start-up `{c['command']}`: first {c['first_s']:.2f} s, second {c['second_s']:.2f} s, "
                       f"median warm {c['median_s']:.2f} s "
                       f"(target < {STARTUP_TARGET_S:g} s: {'ok' if c['met'] else 'MISSED'})")
    first = results.get("startup", {}).get("first_compile", {})
    if "closed_loop_s" in first:
        out.append(f"first use, empty cache: open chain {first['open_chain_s']:.1f} s, then a closed loop "
                   f"{first['closed_loop_s']:.1f} s (target <= {first['target_s']:g} s: "
                   f"{'ok' if first['met'] else 'MISSED'})")
    for case in results.get("loops", {}).get("cases", []):
        out += _console_loops(case)
    for t in _robot_targets(results.get("robots", {})):
        verdict = "—" if t["met"] is None else ("ok" if t["met"] else "MISSED")
        out.append(f"{t['what']}: {t['value']} (target {t['target']}: {verdict})")
    for row in results.get("cosim", {}).get("rows", []):
        out.append(f"split four-bar, {row['transport']}, h = {row['h']:g}: {row['t_end']:g} s in {row['wall_s']:.2f} s "
                   f"({row['realtime_factor']:.2f}x real time), error {row['error']:.1e}")
    for row in results.get("batch", {}).get("rows", []):
        out.append(f"many small runs, {row['comparison']}: simulate_batch / mujoco.rollout {row['ratio']:.2f}x "
                   f"({row['mechsim_setting']}, {row['mechsim_s']:.2f} s; {row['mujoco_setting']}, {row['mujoco_s']:.2f} s)")
    missed = [t["what"] for t in results["targets"] if t["met"] is False]
    out.append(f"targets: {sum(t['met'] is True for t in results['targets'])} met, {len(missed)} not met"
               + (": " + "; ".join(missed) if missed else ""))
    for note in results["notes"]:
        out.append(f"note: {note}")
    return "\n".join(out)


# ------------------------------------------------------------------------------------------ closed loops
def _sci(x):
    return "—" if x is None else f"{x:.1e}"


def _seconds(x):
    return "—" if x is None else (f"{x * 1e3:.1f} ms" if x < 1 else f"{x:.2f} s")


def _loop_rows(case):
    """Table rows: engine, settings, wall time, error, closure, mechsim match and ratio."""
    rows = []
    best = {e: (s["row"] or {}).get("settings") for e, s in case.get("summary", {}).items()}
    for r in case["rows"]:
        mark = " **(headline)**" if best.get(r["engine"]) == r["settings"] and "failed" not in r else ""
        if "failed" in r:
            rows.append((ENGINE_NAMES.get(r["engine"], r["engine"]), r["settings"], "failed", "—", "—", r["failed"], "—"))
            continue
        if r["engine"] == "mechsim":
            match, ratio = "—", "1x"
        elif "ratio" in r:
            match, ratio = f"{r['mechsim_match']} ({_seconds(r['mechsim_match_s'])})", f"{r['ratio']:.1f}x"
        else:
            match, ratio = "no mechsim setting as accurate", "—"
        rows.append((ENGINE_NAMES.get(r["engine"], r["engine"]) + mark, r["settings"], _seconds(r["seconds"]),
                     _sci(r["error"]), _sci(r["closure"]), match, ratio))
    return rows


def _markdown_loops(loops):
    lines = ["## 5. Closed loops and the 20-link chain: whole runs against Exudyn, MuJoCo and Drake at equal accuracy", "",
             "SPEC §6: a whole simulation (integration loop included) of the benchmark set at least 10x faster than "
             "Exudyn and MuJoCo at equal accuracy; the four-bar to 1e-6 rad at t = 10 s in under 0.1 s. Drake "
             "(continuous MultibodyPlant) is a third peer on the chain, a tree. "
             "Models: `mechsim.bench.loops` (peers built from the same published parameters; mechsim's in "
             "`mechsim.bench.models` and `chains`, checked against `examples/*.yaml` by tests/bench). Every engine runs a "
             "ladder of settings; the time is the best of "
             f"{2 if loops['quick'] else 3} runs (one run when it takes over 1 s), model building not timed, "
             "mechsim run once first (JIT / numba cache). Error: against the independent reference, where each case's "
             "error column says. Loop closure: max distance between the two copies of each closing point, over the "
             "samples (every 0.01 s for the four-bar and Bricard, 0.1 ms for Andrews; the peers record them inside the "
             "timed run, mechsim returns them on its output grid); for the chain, which has no loop, that column is "
             "the drift of its energy over the samples (every 0.1 s). *Equal accuracy*: each peer row is paired with the cheapest "
             "mechsim setting whose error is no larger; ratio = peer time / that mechsim time. The headline row of a "
             "peer is its fastest setting reaching the target error, or, if none does, its most accurate one.", ""]
    if loops["quick"]:
        lines += ["(--quick: a short ladder of settings; ratios are indicative only.)", ""]
    for case in loops["cases"]:
        lines += [f"### {case['title']}", ""]
        if case.get("reference"):
            lines += [f"Reference: `{case['reference']['source']}`. {case['note']}".rstrip() + ".", ""]
        for note in case["notes"]:
            lines += [f"- {note}"]
        if case["rows"]:
            lines += [_table(["engine", "settings", "wall time", case["error_name"], case.get("closure_name", "loop closure (m)"),
                              "mechsim at equal or better accuracy", "peer / mechsim"], _loop_rows(case)), ""]
            peers = [ENGINE_NAMES.get(e, e) for e in case["summary"] if e != "mechsim"] or ["Exudyn", "MuJoCo"]
            target = f"Target: ≥ 10x faster than {', '.join(peers[:-1]) + ' and ' if len(peers) > 1 else ''}{peers[-1]} at equal accuracy"
            if case["target_time"] is not None:
                target += f"; mechsim to ≤ {case['target_error']:g} in < {case['target_time']:g} s"
            v = case["verdict"]
            lines += [target + f" — **{'met' if v['met'] else ('not met' if v['met'] is False else 'not measured')}**.", ""]
            lines += _loop_unreached(case)
    return lines


def _loop_unreached(case):
    out = []
    for engine, s in case["summary"].items():
        if s["row"] is not None and not s["reached"]:
            out.append(f"- {ENGINE_NAMES.get(engine, engine)} did not reach {case['target_error']:g} in this ladder: "
                       f"best {s['row']['error']:.1e} ({s['row']['settings']}, {_seconds(s['row']['seconds'])}).")
    return out + ([""] if out else [])


def _console_loops(case):
    out = [f"{case['title']}:"]
    for r in case["rows"]:
        if "failed" in r:
            out.append(f"  {r['engine']:8s} {r['settings']:60s} FAILED {r['failed']}")
            continue
        ratio = f"  peer/mechsim {r['ratio']:.1f}x" if "ratio" in r else ""
        out.append(f"  {r['engine']:8s} {r['settings']:60s} {_seconds(r['seconds']):>9s}  err {r['error']:.1e}  "
                   f"closure {r['closure']:.1e}{ratio}")
    return out
