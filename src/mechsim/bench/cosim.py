"""Section 7 of the speed suite: the distributed four-bar of Khan, Tang & Krovi (2006) against the clock.

The four-bar of their §5.1 (Table 1; the benchmark set's four-bar, models.FOUR_BAR) split at the coupler-rocker pin
into chain A (crank and coupler) and chain B (rocker), each in its own worker process, joined by projection coupling
(sigma = 10 /s) with an exchange at every RK4 stage (ms.cosimulate). Each row: the transport, the step, the span
simulated, the wall time of the ms.cosimulate call (the workers' start and the results included; the kernels
already loaded), the real-time factor (simulated / wall time: > 1 is faster than real time), the exchanges, and
the largest angle error at the end of the span: at 10 s against the reference (loops.FOUR_BAR_REFERENCE), else
against the shared-memory run of the same step.

Transports: shared memory between local workers (the compiled exchange, distributed/shared_memory.py); the
coordinator's connections between local workers (a Unix socket, the transport of a subsystem that needs Python);
a Dask cluster's worker processes on this machine (TCP on loopback). The slow transports run a short span.
"""
import time

import numpy as np

import mechsim as ms

from .loops import four_bar_reference_at
from .targets import COSIM_TARGET_S

L0, L1, L2, L3 = 3.0, 1.0, 4.0, 2.5                     # Khan et al. Table 1 (m); 1 kg bars, 6 N m on the crank
THETA0, ALPHA0, PHI0 = 1.5708, 0.3532812460937753, 1.2648595635335869
PIN = ("pin", "point_coincident", dict(body_a="A/coupler", point_a=(L2, 0, 0), body_b="B/rocker", point_b=(L3, 0, 0)))
T_END = 10.0
SPANS, SPANS_QUICK = (0.2, 1.0), (0.05, 0.2)            # of the slow transports at h = 1e-4 and 1e-3


def _bar(m, name, length):
    m.add_body(name, mass=1.0, com=(length / 2, 0, 0), inertia=(0.0, length ** 2 / 12, length ** 2 / 12),
               frames={"tip": (length, 0, 0)})


def split_four_bar():
    """{"A": crank and coupler, "B": rocker}, at the benchmark's start."""
    a = ms.Model("chain A", gravity=(0, -9.81, 0))
    _bar(a, "crank", L1)
    _bar(a, "coupler", L2)
    a.add_joint("j1", "revolute", parent="ground", child="crank", axis=(0, 0, 1), q0=THETA0)
    a.add_joint("j2", "revolute", parent="crank", child="coupler", parent_frame="tip", axis=(0, 0, 1),
                q0=ALPHA0 - THETA0)
    a.add_force("motor", "joint_force", joint="j1", value=6.0)
    b = ms.Model("chain B", gravity=(0, -9.81, 0))
    _bar(b, "rocker", L3)
    b.add_joint("j4", "revolute", parent="ground", child="rocker", parent_frame=(L0, 0, 0), axis=(0, 0, 1), q0=PHI0)
    return {"A": a, "B": b}


def _cosimulate(h, t_end, client=None, transport="auto"):
    t_eval = np.unique(np.concatenate([np.linspace(0, t_end, 11), [t for t in SPANS + SPANS_QUICK if t <= t_end]]))
    started = time.perf_counter()
    res = ms.cosimulate(split_four_bar(), [PIN], h=h, t_end=t_end, workers=client, t_eval=t_eval, transport=transport)
    return res, time.perf_counter() - started


def _row(transport, h, res, wall, reference):
    t_end = float(res.t[-1])
    angles = np.array([res["A/j1.q"][-1], res["A/j1.q"][-1] + res["A/j2.q"][-1], res["B/j4.q"][-1]])
    error = abs(angles[0] - four_bar_reference_at(T_END)) if reference is None else np.abs(angles - reference).max()
    return {"transport": transport, "h": h, "t_end": t_end, "wall_s": wall, "realtime_factor": t_end / wall,
            "exchanges": res.stats["A"]["rhs_evaluations"], "error": float(error),
            "error_against": "reference" if reference is None else "shared memory"}


def run(quick=False, say=None):
    """The rows (module docstring), the target (the 10 s at h = 1e-4 through shared memory in COSIM_TARGET_S) and
    notes."""
    say = say or (lambda *a, **k: None)
    rows, notes, ends, spans = [], [], {}, SPANS_QUICK if quick else SPANS
    _cosimulate(1e-3, 0.01)                                  # load the kernels (and fork from a warm process)
    _cosimulate(1e-3, 0.01, transport="connections")
    for h in (1e-4, 1e-3):
        res, wall = min((_cosimulate(h, T_END) for _ in range(1 if quick else 3)), key=lambda run: run[1])
        rows.append(_row("shared memory (local processes)", h, res, wall, None))
        for span in spans:
            ends[h, span] = _angles_at(res, span)
        say(f"  shared memory, h = {h:g}: {wall:.2f} s for {T_END:g} s", flush=True)
    for h, span in zip((1e-4, 1e-3), spans):
        res, wall = _cosimulate(h, span, transport="connections")
        rows.append(_row("connections (local processes)", h, res, wall, ends[h, span]))
    try:
        import distributed
    except ImportError:
        notes.append("the Dask rows need dask[distributed] (pip install \"mechsim[cluster]\")")
    else:
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, distributed.Client(cluster) as client:
            _cosimulate(1e-3, 0.01, client)
            for h, span in zip((1e-4, 1e-3), spans):
                res, wall = _cosimulate(h, span, client)
                rows.append(_row("Dask cluster (2 local worker processes, TCP)", h, res, wall, ends[h, span]))
    wall = rows[0]["wall_s"]
    return {"rows": rows, "notes": notes, "target_s": COSIM_TARGET_S, "wall_s": wall, "met": bool(wall <= COSIM_TARGET_S)}


def _angles_at(res, t):
    i = int(np.argmin(np.abs(res.t - t)))
    return np.array([res["A/j1.q"][i], res["A/j1.q"][i] + res["A/j2.q"][i], res["B/j4.q"][i]])
