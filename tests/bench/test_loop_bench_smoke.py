"""Smoke tests of the closed-loop benchmarks (mechsim.bench.loops): every peer model builds, runs
over a short horizon, and agrees with the independent reference and with its own loop closure.
No speed is asserted (that is measured by `mechsim bench` and read from benchmarks/RESULTS.md)."""
import json
import math
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms
from mechsim.bench import chains, loops, models, report

SHORT = 1.0                                    # four-bar horizon with a reference sample (t = 1 s)
EXAMPLES = Path(__file__).parents[2] / "examples"


def test_four_bar_initial_angles_close_the_loop_and_match_the_paper():
    p = loops.FOUR_BAR
    theta, alpha, phi = loops.four_bar_initial()
    c = (p["l1"] * math.cos(theta) + p["l2"] * math.cos(alpha) - p["l0"] - p["l3"] * math.cos(phi),
         p["l1"] * math.sin(theta) + p["l2"] * math.sin(alpha) - p["l3"] * math.sin(phi))
    assert max(map(abs, c)) < 1e-13
    assert abs(alpha - p["alpha_paper"]) < 1e-4 and abs(phi - p["phi_paper"]) < 1e-4   # the paper's 4-digit values
    ref = json.loads((EXAMPLES / "reference" / "four_bar.json").read_text())
    assert abs(alpha - ref["parameters"]["alpha0"]) < 1e-12 and abs(phi - ref["parameters"]["phi0"]) < 1e-12


def test_the_shipped_four_bar_reference_is_the_examples_one():
    ref = json.loads((EXAMPLES / "reference" / "four_bar.json").read_text())
    assert ref["t"] == list(range(11)) and tuple(ref["crank"]) == loops.FOUR_BAR_REFERENCE
    assert loops.four_bar_reference_at(10.0) == ref["crank"][-1]
    with pytest.raises(ValueError, match="t = 0.5"):
        loops.four_bar_reference_at(0.5)


@pytest.mark.parametrize("built, example", [
    (lambda: models.four_bar(loops.FOUR_BAR, loops.four_bar_initial()), "four_bar.yaml"),
    (lambda: models.andrews(loops.ANDREWS, loops.ANDREWS_Q0), "andrews_squeezer.yaml"),
    (lambda: models.n_four_bar(loops.N_FOUR_BAR), "n_four_bar.yaml"),
    (lambda: models.bricard(loops.BRICARD), "bricard.yaml")])
def test_the_shipped_mechanisms_are_the_examples(built, example):
    """The suite's own models (built from the published parameters, so that it needs no file outside the
    package) have the example files' coordinates, initial state, loops and dynamics."""
    mine, theirs = built(), ms.load(EXAMPLES / example)
    assert mine.coordinates() == theirs.coordinates() and mine.check().dof == theirs.check().dof
    assert sorted(mine.compile().topology.cut) == sorted(theirs.compile().topology.cut)
    q, v = mine.compile().q0, mine.compile().v0
    np.testing.assert_allclose(q, theirs.compile().q0, rtol=0, atol=1e-9)
    np.testing.assert_allclose(v, theirs.compile().v0, rtol=0, atol=1e-12)
    v = np.random.default_rng(0).uniform(-1, 1, v.size)
    np.testing.assert_allclose(ms.mass_matrix(mine, q), ms.mass_matrix(theirs, q), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ms.forward_dynamics(mine, q, v), ms.forward_dynamics(theirs, q, v), rtol=1e-9, atol=1e-9)


def andrews_closure(q):
    """The largest distance between the points where the squeezer's loops close (loops.andrews_points)."""
    points = loops.andrews_points(q)
    return float(np.max(np.linalg.norm(points[1:] - points[0], axis=1)))


def test_andrews_reference_closes_the_loops():
    """The geometry of the peer models (andrews_points) closes at the test set's initial values and
    at its solution: a wrong sign or length anywhere would leave a gap of order mm."""
    assert andrews_closure(loops.ANDREWS_Q0) < 1e-14
    assert andrews_closure(loops.ANDREWS_REFERENCE) < 1e-12
    ref = json.loads((EXAMPLES / "reference" / "andrews_squeezer.json").read_text())["t=0.03"]
    assert np.allclose(ref["q"], loops.ANDREWS_REFERENCE, rtol=0, atol=1e-12)


@pytest.mark.parametrize("engine", ["exudyn", "mujoco"])
def test_four_bar_peer_runs_and_agrees_with_the_reference(engine):
    pytest.importorskip(engine)
    crank_ref = loops.four_bar_reference_at(SHORT)
    build = loops.exudyn_four_bar if engine == "exudyn" else loops.mujoco_four_bar
    out = build(1e-3, t_end=SHORT)()
    assert out["t"] == pytest.approx(SHORT, abs=1e-9)
    error = abs(out["crank"] - crank_ref)
    assert np.isfinite(error) and np.isfinite(out["closure"])
    assert error < 1e-4                         # both are at 1e-6 … 1e-8 rad at h = 1 ms over 1 s
    assert out["closure"] < 1e-5


@pytest.mark.parametrize("engine", ["exudyn", "mujoco"])
def test_andrews_peer_runs_and_agrees_with_the_reference(engine):
    pytest.importorskip(engine)
    build = loops.exudyn_andrews if engine == "exudyn" else loops.mujoco_andrews
    out = build(1e-5)()
    assert out["t"] == pytest.approx(loops.ANDREWS["t_end"], abs=1e-9)
    error = float(np.max(np.abs(out["q"] - np.array(loops.ANDREWS_REFERENCE))))
    assert np.isfinite(error) and error < 1e-3   # Exudyn ~1e-4, MuJoCo ~1e-6 rad at h = 1e-5
    assert np.isfinite(out["closure"]) and out["closure"] < 1e-6


def test_measure_times_a_run_and_reports_a_failure():
    def build():
        return lambda: {"t": 1.0, "crank": 2.5, "closure": 1e-9}
    row = loops.measure("mujoco", "fake", build, lambda out: abs(out["crank"] - 2.0), t_end=1.0, repeats=2)
    assert row["error"] == pytest.approx(0.5) and row["closure"] == 1e-9 and row["seconds"] >= 0
    stopped = loops.measure("mujoco", "fake", lambda: (lambda: {"t": 0.5, "crank": 0.0, "closure": 0.0}),
                            lambda out: 0.0, t_end=1.0)
    assert "stopped at t = 0.5" in stopped["failed"]

    def broken():
        raise RuntimeError("solver diverged")
    assert "solver diverged" in loops.measure("exudyn", "x", broken, lambda out: 0.0, t_end=1.0)["failed"]


def test_compare_pairs_each_peer_with_the_cheapest_mechsim_setting_at_least_as_accurate():
    rows = [{"engine": "mechsim", "settings": "loose", "seconds": 0.01, "error": 1e-3, "closure": 1e-9},
            {"engine": "mechsim", "settings": "tight", "seconds": 0.05, "error": 1e-7, "closure": 1e-12},
            {"engine": "mujoco", "settings": "coarse", "seconds": 0.1, "error": 1e-2, "closure": 1e-4},
            {"engine": "mujoco", "settings": "fine", "seconds": 2.0, "error": 1e-5, "closure": 1e-6},
            {"engine": "exudyn", "settings": "h", "seconds": 3.0, "error": 1e-8, "closure": 1e-15},
            {"engine": "exudyn", "settings": "bad", "failed": "diverged"}]
    summary = loops.compare(rows, target_error=1e-6)
    coarse, fine, exu = rows[2], rows[3], rows[4]
    assert coarse["mechsim_match"] == "loose" and coarse["ratio"] == pytest.approx(10.0)
    assert fine["mechsim_match"] == "tight" and fine["ratio"] == pytest.approx(40.0)
    assert "ratio" not in exu                   # mechsim never reaches 1e-8: no ratio, not a win
    assert summary["mujoco"]["row"] is fine and not summary["mujoco"]["reached"]
    assert summary["exudyn"]["row"] is exu and summary["exudyn"]["reached"]
    assert summary["mechsim"]["row"] is rows[1] and summary["mechsim"]["reached"]
    case = {"summary": summary, "target_time": 0.1, "target_error": 1e-6, "title": "Four-bar (x), 10 s",
            "rows": rows}
    v = loops.verdict(case)
    assert v["peers"]["mujoco"] == {"ratio": 40.0, "reached": False, "met": True}
    assert v["peers"]["exudyn"]["met"] is False and v["time_met"] is True and v["met"] is False
    case["verdict"] = v
    lines = report._loop_targets(case)
    assert any("never as accurate" in t["value"] and t["met"] is False for t in lines)


@pytest.mark.parametrize("engine", ["exudyn", "mujoco"])
def test_n_four_bar_peer_runs_and_follows_the_parallelogram_motion(engine):
    pytest.importorskip(engine)
    t_end = 0.1
    build = loops.exudyn_n_four_bar if engine == "exudyn" else loops.mujoco_n_four_bar
    out = build(1e-3, t_end=t_end)()
    assert out["t"] == pytest.approx(t_end, abs=1e-9)
    error = abs(out["phi"] - loops.n_four_bar_reference(t_end))
    assert np.isfinite(error) and error < 1e-4
    assert np.isfinite(out["closure"]) and out["closure"] < 1e-5


# ------------------------------------------------------------------------------------------ Bricard, 20-link chain
BRICARD_JSON = json.loads((EXAMPLES / "reference" / "bricard.json").read_text())
TINY = 0.05                                     # peer horizon of the smoke tests (one Bricard reference sample)


def test_the_shipped_bricard_reference_is_the_examples_one_and_mechsim_follows_it():
    t, p3 = np.array(BRICARD_JSON["t"]), np.array(BRICARD_JSON["P3"])
    np.testing.assert_array_equal(loops._at(t, p3, range(1, 11)), np.array(loops.BRICARD_REFERENCE))
    assert loops.bricard_error({"ts": t, "p3": p3}) == 0.0
    run, evaluate = loops.mechsim_bricard(t_end=1.0, rtol=1e-10)
    out = evaluate(run())
    first = np.linalg.norm(loops._at(out["ts"], out["p3"], (1.0,))[0] - loops.BRICARD_REFERENCE[0])
    assert first < 1e-8 and out["closure"] < 1e-10          # the reference is good to ~3e-9 m


@pytest.mark.parametrize("engine", ["exudyn", "mujoco"])
def test_bricard_peer_runs_and_agrees_with_the_reference(engine):
    pytest.importorskip(engine)
    build = loops.exudyn_bricard if engine == "exudyn" else loops.mujoco_bricard
    out = build(1e-3, t_end=TINY)()
    assert out["t"] == pytest.approx(TINY, abs=1e-9)
    error = np.linalg.norm(loops._at(out["ts"], out["p3"], (TINY,))[0] - BRICARD_JSON["P3"][1])
    assert np.isfinite(error) and error < 1e-6 and np.isfinite(out["closure"]) and out["closure"] < 1e-6


def test_the_shipped_chain_is_the_example():
    """chains.mechsim_chain with CHAIN20's link and chain20_q0 has the dynamics of examples/chain20.yaml."""
    mine, theirs = chains.mechsim_chain(20, loops.chain20_q0(), loops.CHAIN20["link"]), ms.load(EXAMPLES / "chain20.yaml")
    q = mine.compile().q0
    np.testing.assert_array_equal(q, theirs.compile().q0)
    v = np.random.default_rng(1).uniform(-1, 1, q.size)
    np.testing.assert_allclose(ms.mass_matrix(mine, q), ms.mass_matrix(theirs, q), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ms.forward_dynamics(mine, q, v), ms.forward_dynamics(theirs, q, v), rtol=1e-10, atol=1e-10)


def test_chain_reference_energy_and_mechsim_agree():
    """mechsim follows the shipped table to 1 s; its energy (chain_energy, own kinematics) is conserved; the
    error measure is 0 on the table itself."""
    run, evaluate = loops.mechsim_chain20(t_end=1.0, rtol=1e-12)
    res = run()
    out = evaluate(res)
    assert np.max(np.abs(out["q"][-1] - loops.CHAIN20_REFERENCE[0])) < 1e-9
    assert out["closure"] < 1e-9 and abs(loops.chain_energy(out["q"][:1], np.zeros((1, 20)))[0]) > 0.1
    assert loops.chain20_error({"ts": np.array(loops.CHAIN20_REFERENCE_T), "q": np.array(loops.CHAIN20_REFERENCE)}) == 0.0
    kinetic = 0.5 * res.v[-1] @ ms.mass_matrix(chains.mechsim_chain(20, loops.chain20_q0(), loops.CHAIN20["link"]),
                                        res.q[-1]) @ res.v[-1]
    potential = loops.chain_energy(res.q[-1:], np.zeros((1, 20)))[0]
    assert loops.chain_energy(res.q[-1:], res.v[-1:])[0] == pytest.approx(kinetic + potential, rel=1e-12, abs=1e-12)


def test_the_shipped_chain_reference_is_pinocchios():
    pytest.importorskip("pinocchio")
    ref = loops.chain20_reference(times=loops.CHAIN20_REFERENCE_T[:1])
    np.testing.assert_allclose(ref, np.array(loops.CHAIN20_REFERENCE[:1]), rtol=0, atol=1e-12)


@pytest.mark.parametrize("engine", ["exudyn", "mujoco", "drake"])
def test_chain_peer_runs_and_agrees_with_mechsim(engine):
    pytest.importorskip("pydrake" if engine == "drake" else engine)
    build = {"exudyn": lambda: loops.exudyn_chain20("DOPRI5", 1e-10, t_end=TINY, sample=0.01),
             "mujoco": lambda: loops.mujoco_chain20(1e-4, t_end=TINY, sample=0.01),
             "drake": lambda: loops.drake_chain20("runge_kutta5", 1e-10, t_end=TINY, sample=0.01)}[engine]
    run, evaluate = build()
    out = evaluate(run())
    ms_run, ms_evaluate = loops.mechsim_chain20(t_end=TINY, rtol=1e-12)
    expected = ms_evaluate(ms_run())
    assert out["t"] == pytest.approx(TINY, abs=1e-9) and len(out["ts"]) == 6
    error = np.max(np.abs(out["q"][-1] - expected["q"][-1]))
    assert np.isfinite(error) and error < 1e-8 and np.isfinite(out["closure"]) and out["closure"] < 1e-8


def test_a_missing_peer_is_skipped_with_the_install_hint(monkeypatch):
    monkeypatch.setattr(loops, "_engine_available", lambda engine: engine != "drake")
    case = loops.Case("x", "x", 1.0, "e", (1e-6, None), {"source": "s"}, lambda out: 0.0,
                      lambda quick, t_end: [("mechsim", "m", lambda: (lambda: {"t": 1.0, "closure": 0.0})),
                                            ("drake", "d", lambda: None)])
    out = loops.run_case(case, engines=("drake",), repeats=1)
    assert [r["engine"] for r in out["rows"]] == ["mechsim"]
    assert out["notes"] == ['drake not installed: its rows are skipped — pip install "mechsim[bench]"']


def test_an_error_measure_that_cannot_be_taken_is_a_failed_row():
    row = loops.measure("exudyn", "x", lambda: (lambda: {"t": 1.0, "ts": [0.0, 1.0], "q": [[0.0], [0.0]], "closure": 0.0}),
                        lambda out: loops._at(out["ts"], out["q"], (0.5,)), t_end=1.0, repeats=1)
    assert row["failed"].startswith("error measure: ValueError: no output sample at t = 0.5 s")
