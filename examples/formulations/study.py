"""The formulations compared on the papers' own examples (mechsim's tables in benchmarks/RESULTS.md).

1. Khan, Tang & Krovi (2006): their four-bar (Table 1; examples/four_bar.yaml) closed by virtual springs
   (method A: formulation="penalty", pure springs as their eq. 10, k = 1e2 ... 1e7 N/m) and by
   projection onto the feasible motions with Baumgarte's sigma (method B: formulation="nullspace",
   drift="baumgarte", sigma = 10 ... 60 1/s), with fixed RK4 steps of 1e-3 s and 1e-4 s and adaptive
   DOP853 steps: the largest error of the crank, coupler and rocker angles against the reference
   (examples/reference/four_bar.json, every second over 10 s), the largest constraint violation, the
   steps and the run time. Their Figs. 5–10 show the same quantities as curves. Beside them the
   penalty formulation's augmented Lagrangian (García de Jalón & Bayo 1994), 3 iterations at 10 rad/s.
2. Del Citto, Pennestrì & Vita (2005): the five-bar with 7 redundant constraints (examples/five_bar.yaml),
   free and driven at 6.28 rad/s, and the spherical pendulum with flywheel
   (examples/spherical_pendulum_flywheel.yaml) over 20 s under the three formulations: energy drift,
   constraint error, steps, run time (and the augmented Lagrangian); their Table 1 gives NumDyn3D's and
   Working Model's run times.
3. Each formulation's run time at equal accuracy on the four-bar, Andrews' squeezer and the five-bar.

Run: ``python examples/formulations/study.py [--quick]``: prints the tables as Markdown and writes them
to benchmarks/RESULTS_formulations.md (--quick: 1 s spans and no equal-accuracy table, printed only).
"""
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent
try:
    import mechsim as ms
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(EXAMPLES.parent / "src"))
    import mechsim as ms
sys.path.insert(0, str(EXAMPLES))
import _common as common  # noqa: E402  (examples/_common.py)

REFERENCE = json.loads((EXAMPLES / "reference" / "four_bar.json").read_text())
STIFFNESSES = (1e2, 1e3, 1e4, 1e5, 1e6, 1e7)     # N/m: the paper's range, and one beyond it
SIGMAS = (10.0, 20.0, 40.0, 60.0)                # 1/s
STEPPING = {"RK4 h=1e-3": dict(solver="RK4", h=1e-3), "RK4 h=1e-4": dict(solver="RK4", h=1e-4),
            "DOP853 rtol=1e-6": dict(solver="DOP853", rtol=1e-6, atol=1e-8)}
AUGMENTED = dict(iterations=3)                   # the penalty's augmented Lagrangian: 10 rad/s, factor 1e6
FORMULATIONS = {"lagrange": {}, "nullspace": dict(formulation="nullspace"), "penalty": dict(formulation="penalty"),
                "augmented Lagrangian": dict(formulation="penalty", penalty=AUGMENTED)}


def four_bar_errors(res):
    """max over the reference's times of |angle - reference| for crank, coupler and rocker (absolute
    angles, the coupler's and rocker's modulo 2 pi), or inf for a run that did not get there."""
    t = np.asarray(REFERENCE["t"])
    if res.t[-1] < t[-1] - 1e-9:
        return np.full(3, np.inf)
    k = np.searchsorted(res.t, t - 1e-9)
    theta = res["j1.q"][k]
    got = np.column_stack([theta, theta + res["j2.q"][k], res["j4.q"][k]])
    want = np.column_stack([REFERENCE["crank"], REFERENCE["coupler"], REFERENCE["rocker"]])
    err = np.abs(got - want)
    err[:, 1:] = np.abs((err[:, 1:] + np.pi) % (2 * np.pi) - np.pi)
    return err.max(axis=0)


def run(m, **options):
    """(Result or the partial result of a failed run, wall time, failure message or ''), timed after a
    short run with the same options has compiled what it needs."""
    try:
        m.simulate(**{**options, "t_end": 1e-3, "t_eval": None})
    except ms.SimulationError:
        pass
    start = time.perf_counter()
    try:
        res, message = m.simulate(**options), ""
    except ms.SimulationError as error:
        res, message = error.partial, str(error).split(":")[-1].strip()
    return res, time.perf_counter() - start, message


def four_bar_table(t_end):
    m = ms.load(EXAMPLES / "four_bar.yaml")
    t_eval = np.linspace(0.0, t_end, int(100 * t_end) + 1)
    cases = [("lagrange (projection)", {})]
    cases += [(f"A: penalty k={k:.0e} N/m", dict(formulation="penalty", penalty=dict(stiffness=k, damping=0.0)))
              for k in STIFFNESSES]
    cases += [(f"B: nullspace sigma={s:g}/s", dict(formulation="nullspace", drift="baumgarte", sigma=s))
              for s in SIGMAS]
    cases += [("nullspace (Newton)", dict(formulation="nullspace")),
              ("augmented Lagrangian (penalty, 3 iterations)", dict(formulation="penalty", penalty=AUGMENTED))]
    lines = ["| formulation | stepping | crank err [rad] | coupler err | rocker err | max constraint "
             "error [m] | steps | time [s] |", "|---|---|---|---|---|---|---|---|"]
    for name, formulation in cases:
        for stepping, options in STEPPING.items():
            res, wall, failure = run(m, t_end=t_end, t_eval=t_eval, **formulation, **options)
            errors = four_bar_errors(res) if t_end == 10.0 else np.full(3, np.nan)
            violation = np.max(res.constraint_error) if len(res.t) else np.nan
            note = f" (failed at t = {res.t[-1]:.3g} s: {failure})" if failure else ""
            lines.append(f"| {name} | {stepping} | {errors[0]:.1e} | {errors[1]:.1e} | {errors[2]:.1e} | "
                         f"{violation:.1e}{note} | {res.stats.get('steps', 0)} | {wall:.2f} |")
    return "\n".join(lines)


def five_bar_and_pendulum_table(t_end):
    five_bar = ms.load(EXAMPLES / "five_bar.yaml")
    driven = ms.load(EXAMPLES / "five_bar.yaml")
    driven.add_driver("a1", position="-0.7853981633974483 + 6.28 * t")
    pendulum = ms.load(EXAMPLES / "spherical_pendulum_flywheel.yaml")
    models = {"five-bar, free": (five_bar, ["crank1", "crank2", "crank3", "coupler"]),
              "five-bar, driven 6.28 rad/s": (driven, None),
              "spherical pendulum + flywheel": (pendulum, None)}
    lines = ["| model | formulation | energy drift [J] | max constraint error | steps | time [s] |",
             "|---|---|---|---|---|---|"]
    for label, (m, bodies) in models.items():
        for formulation, options in FORMULATIONS.items():
            res, wall, failure = run(m, t_end=t_end, t_eval=np.linspace(0, t_end, 2001), solver="DOP853",
                                     rtol=1e-8, atol=1e-10, **options)
            drift = "—"
            if bodies:                  # the free five-bar: no work done on it
                E = common.energy(m, res, bodies)
                drift = f"{np.abs(E - E[0]).max():.1e}"
            note = f" (failed: {failure})" if failure else ""
            lines.append(f"| {label} | {formulation} | {drift} | {np.max(res.constraint_error):.1e}{note} | "
                         f"{res.stats.get('steps', 0)} | {wall:.2f} |")
    return "\n".join(lines)


def equal_accuracy_table(target=1e-6):
    """Each formulation's time at equal accuracy: the loosest DOP853 tolerance (rtol = atol, decades from
    1e-5 to 1e-12) at which it gets the four-bar's crank angle at 10 s (against the reference), Andrews'
    seven angles at 0.03 s (against the test set's solution) and the free five-bar's crank angle at 5 s
    (against a lagrange run at 1e-13) within ``target`` rad; the penalty formulation with its springs
    at 1e4 rad/s (explicit steps are cheaper than Radau's below 5e5 rad/s: simulation/formulations.py)."""
    andrews = ms.load(EXAMPLES / "andrews_squeezer.yaml")
    sys.path.insert(0, str(EXAMPLES))
    from andrews_squeezer import ANGLES, reference
    andrews_ref = np.array(reference()["t=0.03"]["q"])
    five_bar = ms.load(EXAMPLES / "five_bar.yaml")
    five_bar_ref = five_bar.simulate(t_end=5.0, t_eval=[5.0], solver="DOP853", rtol=1e-13, atol=1e-13)["a1.q"][-1]
    cases = {
        "four-bar 10 s": (ms.load(EXAMPLES / "four_bar.yaml"), 10.0,
                          lambda res: abs(res["j1.q"][-1] - REFERENCE["crank"][-1])),
        "Andrews 0.03 s": (andrews, 0.03, lambda res: np.abs(np.array([res[f"{a}.q"][-1] for a in ANGLES])
                                                            - andrews_ref).max()),
        "five-bar 5 s": (five_bar, 5.0, lambda res: abs(res["a1.q"][-1] - five_bar_ref)),
    }
    formulations = {"lagrange": {}, "nullspace": dict(formulation="nullspace"),
                    "penalty 1e4 rad/s": dict(formulation="penalty", penalty=dict(frequency=1e4)),
                    "augmented Lagrangian": dict(formulation="penalty", penalty=AUGMENTED)}
    lines = [f"| model | formulation | tolerance for {target:g} rad | error | steps | time [s] |",
             "|---|---|---|---|---|---|"]
    for label, (m, t_end, error) in cases.items():
        for name, options in formulations.items():
            best = None
            for tol in (1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12):
                res, wall, failure = run(m, t_end=t_end, t_eval=[t_end], solver="DOP853", rtol=tol, atol=tol,
                                         **options)
                e = error(res) if not failure else np.inf
                if best is None or e < best[1]:
                    best = (tol, e, res.stats.get("steps", 0), wall)
                if e <= target:
                    break
            tol, e, steps, wall = best
            reached = f"{tol:g}" if e <= target else f"not reached (best {tol:g})"
            lines.append(f"| {label} | {name} | {reached} | {e:.1e} | {steps} | {wall:.3f} |")
    return "\n".join(lines)


def machine():
    """'CPU model, cores, date' for the report's header."""
    import datetime
    import os
    import platform
    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC"


def main(argv=()):
    """Print the tables; without --quick also write them to benchmarks/RESULTS_formulations.md."""
    quick = "--quick" in argv
    span = 1.0 if quick else None
    sections = [f"# The formulations compared (examples/formulations/study.py)\n\nMachine: {machine()}; mechsim "
                f"{ms.__version__}. Times are wall times of one run each, compiled kernels warm.",
                f"## Four-bar of Khan, Tang & Krovi (2006), {span or 10:g} s\n\n" + four_bar_table(span or 10.0),
                f"## Del Citto, Pennestrì & Vita (2005): five-bar and spherical pendulum, {span or 20:g} s\n\n"
                + five_bar_and_pendulum_table(span or 20.0)]
    if not quick:
        sections.append("## Time at equal accuracy (DOP853)\n\n" + equal_accuracy_table())
    text = "\n\n".join(sections) + "\n"
    print(text)
    if not quick:
        (EXAMPLES.parent / "benchmarks" / "RESULTS_formulations.md").write_text(text, encoding="utf-8")
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
