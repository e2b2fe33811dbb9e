"""ms.cosimulate: Khan, Tang & Krovi's four-bar split into two open chains, each in its own worker."""
import json
import os
import signal
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms
from mechsim.distributed.cosim import coupled_model, couplings_of

from distributed_helpers import L2, L3, PIN, four_bar_chains

REFERENCE = json.loads((Path(__file__).resolve().parents[2] / "examples" / "reference" / "four_bar.json").read_text())


def reference_at(t, key):
    """The reference at a whole second (it is sampled once a second)."""
    return REFERENCE[key][REFERENCE["t"].index(t)]


def monolithic(chains, **options):
    """The same machine as one model (the chains as submodels, the pin a constraint), same solver."""
    return coupled_model(chains, couplings_of(chains, [PIN])).simulate(**options)


def test_projection_coupling_at_every_stage_is_the_monolithic_run():
    chains = four_bar_chains()
    cs = ms.cosimulate(chains, [PIN], method="projection", baumgarte=10.0, h=1e-3, t_end=1.0)
    mono = monolithic(chains, solver="RK4", h=1e-3, t_end=1.0)
    assert cs.success and np.array_equal(cs.t, mono.t)
    for name in ("A/j1.q", "A/j2.q", "B/j4.q", "A/j1.v", "B/j4.v"):
        assert np.allclose(cs[name], mono[name], rtol=0, atol=1e-9), name
    assert abs(cs["A/j1.q"][-1] - reference_at(1.0, "crank")) < 1e-9
    assert abs(cs["B/j4.q"][-1] - reference_at(1.0, "rocker")) < 1e-9
    assert np.abs(cs["pin.violation"]).max() < 1e-9 and cs.constraint_error.max() < 1e-9
    # the pin's force on the rocker is the monolithic pin constraint's reaction force on it
    assert np.allclose(cs["pin.force"][1:], mono["pin.reaction"][1:, 3:], rtol=0, atol=1e-6)
    assert cs["pin.force"].shape == (len(cs.t), 3) and "B/rocker.position" in cs.signals
    assert np.allclose(cs.point("A/coupler", (L2, 0, 0)), cs.point("B/rocker", (L3, 0, 0)), atol=1e-9)


def test_a_paced_cosimulation_runs_on_the_wall_clock_and_computes_the_unpaced_one():
    """realtime: each subsystem paced to the wall clock (the other waits for its coupling quantities); a step
    exchange (one round trip per 10 ms step) keeps up with real time here, even on a loaded machine."""
    import time
    options = dict(h=1e-2, t_end=0.5, exchange="step")
    unpaced = ms.cosimulate(four_bar_chains(), [PIN], **options)
    started = time.perf_counter()
    paced = ms.cosimulate(four_bar_chains(), [PIN], realtime=True, **options)
    assert time.perf_counter() - started >= 0.49                  # the last step starts at 0.49 s on the clock
    for subsystem in ("A", "B"):
        stats = paced.stats[subsystem]["realtime"]
        assert stats["factor"] == 1.0 and stats["steps"] == 50 and "realtime" not in unpaced.stats[subsystem]
    assert np.array_equal(paced.t, unpaced.t)
    for name in ("A/j1.q", "B/j4.q", "pin.force"):
        np.testing.assert_allclose(paced[name], unpaced[name], rtol=0, atol=1e-12)


def test_compliance_error_falls_with_the_stiffness():
    chains = four_bar_chains()
    errors = []
    for k in (1e2, 1e3, 1e4):
        cs = ms.cosimulate(chains, [PIN], method="compliance", stiffness=k, damping=2 * np.sqrt(k), h=1e-3, t_end=1.0)
        errors.append(abs(cs["A/j1.q"][-1] - reference_at(1.0, "crank")))
        assert np.abs(cs["pin.violation"]).max() > 0
    assert errors[0] > errors[1] > errors[2] and errors[2] < 0.1 * errors[0]


def test_a_step_exchange_holds_the_forces_over_the_macro_step_first_order_in_h():
    crank = reference_at(1.0, "crank")
    for ordering in ("jacobi", "gauss-seidel"):
        errors = [ms.cosimulate(four_bar_chains(), [PIN], h=h, t_end=1.0, exchange="step", ordering=ordering)
                  ["A/j1.q"][-1] - crank for h in (1e-3, 5e-4)]
        assert 0.45 < errors[1] / errors[0] < 0.55, (ordering, errors)      # zero-order hold: O(h)
    assert abs(errors[0]) < 0.05


def test_a_distance_coupling_keeps_its_length():
    chains = four_bar_chains()
    rod = ("rod", "distance", dict(body_a="A/coupler", point_a=(L2, 0, 0), body_b="B/rocker", point_b=(L3, 0, 0),
                                   length=0.2))
    cs = ms.cosimulate(chains, [rod], h=1e-3, t_end=0.3)
    assert np.abs(cs["rod.violation"]).max() < 1e-8
    mono = coupled_model(chains, couplings_of(chains, [rod])).simulate(solver="RK4", h=1e-3, t_end=0.3)
    assert np.allclose(cs["B/j4.q"], mono["B/j4.q"], rtol=0, atol=1e-8)


def test_local_processes_and_a_dask_cluster_give_the_same_results():
    """Local workers exchange through shared memory, a cluster's through the coordinator: the same numbers."""
    distributed = pytest.importorskip("distributed")
    chains = four_bar_chains()
    local = ms.cosimulate(chains, [PIN], h=1e-3, t_end=0.05)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = ms.cosimulate(chains, [PIN], h=1e-3, t_end=0.05, workers=client)
    for name in ("A/j1.q", "A/j2.q", "B/j4.q", "pin.violation"):
        np.testing.assert_allclose(local[name], remote[name], rtol=0, atol=1e-12, err_msg=name)
    np.testing.assert_allclose(local["pin.force"], remote["pin.force"], rtol=1e-12, atol=1e-12)


def test_a_dask_cluster_of_threads_in_this_process_reaches_the_coordinator_on_loopback():
    """A LocalCluster(processes=False) has an "inproc://" scheduler address, which names no host."""
    distributed = pytest.importorskip("distributed")
    local = ms.cosimulate(four_bar_chains(), [PIN], h=1e-3, t_end=0.02)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = ms.cosimulate(four_bar_chains(), [PIN], h=1e-3, t_end=0.02, workers=client)
    np.testing.assert_allclose(local["B/j4.q"], remote["B/j4.q"], rtol=0, atol=1e-12)


def _suicide(t):
    """A torque that kills its worker process at t = 0.02 s."""
    if t > 0.02:
        os.kill(os.getpid(), signal.SIGKILL)
    return 0.0


def test_a_worker_that_dies_stops_the_run_naming_its_subsystem_and_keeps_the_rest():
    chains = four_bar_chains()
    chains["B"].add_force("fuse", "joint_force", joint="j4", value=_suicide)
    with pytest.raises(ms.SimulationError, match="subsystem 'B': its worker process died") as info:
        ms.cosimulate(chains, [PIN], h=1e-3, t_end=0.1)
    partial = info.value.partial
    assert not partial.success and list(partial.parts) == ["A"]
    assert 0.015 < partial.t[-1] < 0.03 and "A/j1.q" in partial.signals and "B/j4.q" not in partial.signals


def test_a_failing_subsystem_stops_the_others():
    chains = four_bar_chains()

    def broken(t):
        if t > 0.02:
            raise RuntimeError("sensor fault")
        return 0.0
    chains["A"].add_force("fuse", "joint_force", joint="j1", value=broken)
    with pytest.raises(ms.SimulationError, match="subsystem 'A' failed: .*sensor fault") as info:
        ms.cosimulate(chains, [PIN], h=1e-3, t_end=0.1)
    assert set(info.value.partial.parts) == {"A", "B"} and info.value.partial.t[-1] < 0.03


@pytest.mark.parametrize("change, message", [
    (dict(couplings=[("pin", "weld", {})]), "kind 'weld' is not one of point_coincident, distance"),
    (dict(couplings=[("pin", "point_coincident", dict(body_a="C/coupler", body_b="B/rocker"))]), "with a subsystem of A, B"),
    (dict(couplings=[("pin", "point_coincident", dict(body_a="A/rockr", body_b="B/rocker"))]), "no moving body 'rockr'"),
    (dict(couplings=[("pin", "point_coincident", dict(body_a="A/coupler", body_b="A/crank"))]), "both ends are in subsystem 'A'"),
    (dict(method="penalty"), "method 'penalty' is not one of projection, compliance"),
    (dict(method="compliance"), "needs stiffness="),
    (dict(solver="RK45"), "use RK4 or Euler"),
    (dict(h=None), "give the step h"),
    (dict(ordering="gauss-seidel"), "use it with exchange='step'"),
    (dict(rtol=1e-6), "unknown option(s) ['rtol']; options are ['assemble', 'baumgarte', 'damping', 'exchange', 'h', "
                      "'ordering', 'realtime', 'solver', 'stiffness', 't_end', 't_eval', 'transport']"),
    (dict(transport="udp"), "transport 'udp' is not one of auto, shared_memory, connections"),
    (dict(transport="shared_memory", exchange="step"), "transport='shared_memory' is not possible: exchange='step'"),
    (dict(realtime=-1), "realtime must be True, False or a positive factor"),
])
def test_bad_input_is_refused_before_any_worker_starts(change, message):
    arguments = dict(couplings=[PIN], h=1e-3, t_end=0.1)
    arguments.update(change)
    with pytest.raises(ms.ModelError, match="cosimulate") as info:
        ms.cosimulate(four_bar_chains(), **arguments)
    assert message in str(info.value)


def test_a_subsystem_with_a_loop_is_refused():
    chains = four_bar_chains()
    chains["A"].add_constraint("tie", "distance", body_a="crank", body_b="coupler", point_b=(1, 0, 0), length=1.0)
    with pytest.raises(ms.ModelError, match="subsystem 'A' has loops"):
        ms.cosimulate(chains, [PIN], h=1e-3, t_end=0.1)


@pytest.mark.slow
def test_the_papers_benchmark_macro_step_reaches_the_reference_at_10_s():
    """Khan et al. §6.3: h = 1e-4 s for 10 s; the crank, coupler and rocker within 1e-6 rad."""
    cs = ms.cosimulate(four_bar_chains(), [PIN], method="projection", baumgarte=10.0, h=1e-4, t_end=10.0,
                       t_eval=np.arange(11.0))
    assert abs(cs["A/j1.q"][-1] - REFERENCE["crank"][-1]) < 1e-6
    assert abs(cs["A/j1.q"][-1] + cs["A/j2.q"][-1] - REFERENCE["coupler"][-1]) < 1e-6
    assert abs(cs["B/j4.q"][-1] - REFERENCE["rocker"][-1]) < 1e-6
