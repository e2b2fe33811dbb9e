"""ms.cosimulate's exchange through shared memory inside the subsystems' compiled runs (local workers, every
stage), against the exchange through the coordinator's connections, an independent evaluation of the coupling
forces, and its failures."""
import glob
import threading
import time
from pathlib import Path
from multiprocessing import active_children

import numpy as np
import pytest

import mechsim as ms
from mechsim.distributed.coupling import (Interface, coupling_forces, coupling_tables, slot_length, slot_parts)
from mechsim.distributed.cosim import couplings_of, worker_model
from mechsim.status import OK

from distributed_helpers import L2, L3, PIN, four_bar_chains

ROD = ("rod", "distance", dict(body_a="A/coupler", point_a=(L2, 0, 0), body_b="B/rocker", point_b=(L3, 0, 0),
                               length=0.2))


def through_the_coordinator(*args, **options):
    """The same co-simulation with the exchange through the coordinator's connections."""
    return ms.cosimulate(*args, transport="connections", **options)


@pytest.mark.parametrize("coupling, options", [
    (PIN, dict(method="projection", baumgarte=10.0)),
    (ROD, dict(method="projection", baumgarte=10.0)),
    (PIN, dict(method="compliance", stiffness=1e4, damping=200.0)),
])
def test_the_shared_memory_exchange_computes_what_the_coordinator_does(coupling, options):
    """The same forces from the same interface data, at every stage: the trajectories agree to rounding."""
    chains = four_bar_chains()
    shared = ms.cosimulate(chains, [coupling], h=1e-3, t_end=0.5, **options)
    relayed = through_the_coordinator(chains, [coupling], h=1e-3, t_end=0.5, **options)
    assert shared.success and np.array_equal(shared.t, relayed.t)
    for s in ("A", "B"):
        stats = shared.stats[s]
        assert stats["backend"] == "compiled" and stats["links"]["coupling"]["exchanges"] == stats["rhs_evaluations"]
        assert "links" not in relayed.stats[s]
    for name in ("A/j1.q", "A/j2.q", "B/j4.q", "A/j1.v", "B/j4.v"):
        np.testing.assert_allclose(shared[name], relayed[name], rtol=0, atol=1e-12, err_msg=name)
    name = coupling[0]
    scale = np.abs(relayed[f"{name}.force"]).max()
    np.testing.assert_allclose(shared[f"{name}.force"], relayed[f"{name}.force"], rtol=0, atol=1e-9 * scale)
    # the worker records its coupling force inputs at the outputs: the forces on body_a are the opposite
    force_a = np.column_stack([shared.parts["A"].u_force[:, slot] for slot in _input_slots(shared, "A", name)])
    np.testing.assert_allclose(force_a, -shared[f"{name}.force"], rtol=0, atol=1e-9 * scale)
    assert np.abs(shared[f"{name}.violation"]).max() < (1e-8 if options["method"] == "projection" else 1e-2)


def _input_slots(result, subsystem, coupling):
    cm = result.parts[subsystem].model.compile()
    slot_of = {name: slot for slot, name in cm.input_slots}
    return [slot_of[f"{coupling}_a_f{axis}"] for axis in "xyz"]


def test_the_coupling_forces_solve_the_projected_equations():
    """coupling_forces against the equations written out with numpy: three subsystems (the four-bar's chains
    and a second rocker) joined by a pin, a second pin that repeats the first (a redundant coupling: how the two
    share the force is not determined, their sum is) and a distance rod, at a state off the couplings, moving."""
    chains = four_bar_chains()
    chains["C"] = chains["B"].copy()
    couplings = [PIN, ("pin2", "point_coincident", dict(body_a="A/coupler", point_a=(L2, 0, 0), body_b="B/rocker",
                                                         point_b=(L3, 0, 0))),
                 ("rod", "distance", dict(body_a="B/rocker", point_a=(1.0, 0, 0), body_b="C/rocker",
                                          point_b=(2.0, 0, 0), length=0.7))]
    order = ["A", "B", "C"]
    plan = couplings_of(chains, couplings)
    tables = coupling_tables(plan, order, "projection", 10.0, None, None)
    K = 3
    slots = np.zeros((3, slot_length(K)))
    rng = np.random.default_rng(3)
    for k, s in enumerate(order):
        ends = [e for c in plan for e in c.ends if e.subsystem == s]
        model = worker_model(chains[s], ends)
        cm = model.compile()
        Interface(model, ends, K)(0.1, cm.q0 + rng.normal(0, 0.1, cm.nq), rng.normal(0, 1, cm.nv), slots[k])
    assert coupling_forces(tables, slots, K) == OK

    # the equations: points stacked A (2), B (2), C (1); C = x_a - x_b, rows 0-2 pin, 3-5 pin2, 6 rod
    parts = [slot_parts(slots[k], n, K) for k, n in enumerate((2, 3, 1))]
    x, xd, a = (np.concatenate([p[i] for p in parts]) for i in (1, 2, 3))
    W = np.zeros((18, 18))
    start = 0
    for p in parts:
        n = len(p[1])
        W[3 * start:3 * (start + n), 3 * start:3 * (start + n)] = p[4]
        start += n
    ends = {(c.name, e.sign): i for i, (c, e) in enumerate((c, e) for s in order for c in plan for e in c.ends
                                                             if e.subsystem == s)}
    D, C, Cd, geometric = np.zeros((18, 7)), np.zeros(7), np.zeros(7), np.zeros(7)
    for c, r in zip(plan, (0, 3, 6)):
        ia, ib = ends[c.name, 1.0], ends[c.name, -1.0]
        d, dd = x[ia] - x[ib], xd[ia] - xd[ib]
        if c.kind == "point_coincident":
            n = np.eye(3)
            C[r:r + 3], Cd[r:r + 3] = d, dd
        else:
            n = (d / np.linalg.norm(d))[None]
            C[r], Cd[r] = np.linalg.norm(d) - c.length, n[0] @ dd
            geometric[r] = (dd @ dd - (n[0] @ dd) ** 2) / np.linalg.norm(d)
        D[3 * ia:3 * ia + 3, r:r + len(n)] = -n.T
        D[3 * ib:3 * ib + 3, r:r + len(n)] = n.T
    Phi = -D.T @ W @ D
    rhs = -(-D.T @ a.ravel() + geometric + 20.0 * Cd + 100.0 * C)
    F = (D @ np.linalg.lstsq(Phi, rhs, rcond=1e-9)[0]).reshape(-1, 3)
    net = np.array([[1, 1, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1]])  # per point
    np.testing.assert_allclose(net @ tables.F, net @ F, rtol=0, atol=1e-9 * np.abs(F).max())
    # the projected accelerations keep every coupling: C'' = -2 sigma C' - sigma^2 C
    Cdd = -D.T @ (a.ravel() + W @ D @ tables.x) + geometric
    np.testing.assert_allclose(Cdd, -20.0 * Cd - 100.0 * C, rtol=0, atol=1e-8 * np.abs(Cdd).max())


def test_a_failing_subsystem_stops_the_other_and_both_keep_their_runs():
    """Chain A's motor torque becomes infinite at t = 0.05 s: A fails there, B stops at its next exchange."""
    chains = four_bar_chains()
    chains["A"].add_force("surge", "joint_force", joint="j2", value="(t > 0.05) / (t < 0.05)")
    blocks = set(glob.glob("/dev/shm/psm_*"))
    with pytest.raises(ms.SimulationError, match="subsystem 'A' failed: .*non-finite") as info:
        ms.cosimulate(chains, [PIN], h=1e-3, t_end=0.2)
    partial = info.value.partial
    assert set(partial.parts) == {"A", "B"} and 0.045 < partial.t[-1] <= 0.05
    assert set(glob.glob("/dev/shm/psm_*")) <= blocks              # the shared block is gone


def test_a_worker_that_dies_stops_the_other_at_its_next_exchange():
    """A worker killed mid-run: the coordinator raises the abort flag, the other subsystem stops, and its
    run so far is returned."""
    def kill_a_worker():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            workers = active_children()
            if len(workers) == 2:
                time.sleep(1.5)                  # well into the run (~10 s of it a second here)
                workers[0].kill()
                return
            time.sleep(0.01)
    killer = threading.Thread(target=kill_a_worker)
    killer.start()
    try:
        with pytest.raises(ms.SimulationError, match="its worker process died") as info:
            ms.cosimulate(four_bar_chains(), [PIN], h=1e-4, t_end=60.0, t_eval=np.linspace(0, 60, 601))
    finally:
        killer.join()
    partial = info.value.partial
    assert len(partial.parts) == 1 and 0 < partial.t[-1] < 60


def test_a_paced_run_exchanging_every_stage_keeps_to_the_clock():
    options = dict(h=1e-2, t_end=0.3)
    unpaced = ms.cosimulate(four_bar_chains(), [PIN], **options)
    started = time.perf_counter()
    paced = ms.cosimulate(four_bar_chains(), [PIN], realtime=True, **options)
    assert time.perf_counter() - started >= 0.29
    assert paced.stats["A"]["realtime"]["steps"] == 30 and paced.stats["B"]["links"]["coupling"]["exchanges"] == 121
    np.testing.assert_allclose(paced["B/j4.q"], unpaced["B/j4.q"], rtol=0, atol=1e-12)


def test_a_subsystem_without_couplings_runs_beside_the_others_as_on_its_own():
    """The block holds a slot for every subsystem, one without coupling points too (its layout read from the
    block, not from the couplings)."""
    chains = four_bar_chains()
    chains["C"] = ms.load(Path(__file__).resolve().parents[2] / "examples" / "double_pendulum.yaml")
    cs = ms.cosimulate(chains, [PIN], h=1e-3, t_end=0.2)
    alone = chains["C"].simulate(solver="RK4", h=1e-3, t_end=0.2)
    assert cs.success and list(cs.parts) == ["A", "B", "C"]
    np.testing.assert_allclose(cs["C/j1.q"], alone["j1.q"], rtol=0, atol=1e-12)
    relayed = through_the_coordinator(chains, [PIN], h=1e-3, t_end=0.2)
    np.testing.assert_allclose(cs["B/j4.q"], relayed["B/j4.q"], rtol=0, atol=1e-12)
