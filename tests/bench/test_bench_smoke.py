"""Smoke test of the speed suite (mechsim.bench): a quick run writes its report, and the three
engines agree on the benchmark chain's accelerations (no timing targets asserted here — those
depend on the machine and are read from benchmarks/RESULTS.md)."""
import sys

import numpy as np
import pytest

import mechsim as ms
from mechsim import bench
from mechsim.bench import chains, suite


def test_quick_run_writes_report_and_engines_agree(tmp_path):
    pytest.importorskip("pinocchio")
    out = tmp_path / "RESULTS.md"
    res = bench.run(quick=True, output=str(out), verbose=False)
    text = out.read_text()
    assert out.exists() and "Cross-engine agreement" in text and "Targets (SPEC §6)" in text
    assert res["machine"]["cpu"] and res["machine"]["numba"]
    ag = res["agreement"]
    assert ag["ok"] and ag["checked"] and ag["worst"]["pin"] <= 1e-8
    if "mujoco" in res["engines"]:
        assert ag["worst"]["mujoco"] <= 1e-8 and ag["worst"]["mujoco_pure"] <= 1e-8
    rows = res["forward_dynamics"]["rows"]
    assert [r["n"] for r in rows] == list(suite.N_QUICK)
    assert all(r["mechsim_us"] > 0 and r["pin_us"] > 0 and r["ratio_pin"] > 0 for r in rows)
    assert set(res["forward_dynamics"]["fit"]) >= {"mechsim", "pin"}
    scaling = res["loop_scaling"]
    assert [r["n"] for r in scaling["rows"]] == list(suite.LOOP_SIZES_QUICK)
    assert all(r["mechsim_us"] > 0 and r["rows"] == 5 * r["n"] for r in scaling["rows"])
    assert scaling["rows"][-1]["mechsim_us"] > scaling["rows"][0]["mechsim_us"] and "N four-bar" in text
    assert {"exponent", "linear", "exponent_sizes"} <= set(scaling["fit"])       # None where load hid the growth
    whole = res["whole_run"]
    assert whole["diff_simulate_vs_pin_loop"] < 1e-8 and whole["diff_simulate_vs_mechsim_loop"] < 1e-8
    assert whole["mechsim_simulate_s"] > 0 and whole["pin_python_loop_s"] > 0
    assert all(t["met"] in (True, False, None) for t in res["targets"])
    assert res["startup"]["commands"], res["startup"]
    cosim = res["cosim"]
    shared = [r for r in cosim["rows"] if r["transport"].startswith("shared memory")]
    assert [r["h"] for r in shared] == [1e-4, 1e-3] and all(r["t_end"] == 10.0 for r in shared)
    assert shared[0]["error"] < 1e-6 and shared[1]["error"] < 1e-2   # the reference at 10 s
    assert all(r["error"] < 1e-9 for r in cosim["rows"] if r["error_against"] == "shared memory")
    assert "split four-bar" in text
    if "mujoco" not in res["engines"]:
        return
    equal, same = res["batch"]["rows"]
    assert equal["mujoco_error"] <= 1e-6 and equal["mechsim_error"] <= 1e-6 and equal["ratio"] > 0
    assert same["mechsim_error"] == pytest.approx(same["mujoco_error"], rel=0.1)     # one method, one step
    assert "## 8. Many small runs" in text


def test_missing_peers_are_skipped_with_a_note(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pinocchio", None)       # import pinocchio -> ImportError
    monkeypatch.setitem(sys.modules, "mujoco", None)
    out = tmp_path / "r.md"
    assert bench.main(["--quick", "--no-startup", "--output", str(out)]) == 0
    text = out.read_text()
    assert "pip install" in text and "mechsim[bench]" in text
    assert "pin.aba µs" not in text and "agreement not checked" in text


def test_chains_match_pinocchio_at_rest_and_moving():
    pin = pytest.importorskip("pinocchio")
    rng = np.random.default_rng(3)
    for n in (1, 3, 8):
        q, v, tau = suite.random_state(rng, n)
        model, data = chains.pinocchio_chain(n)
        a = ms.forward_dynamics(chains.mechsim_chain(n), q, v, tau)
        np.testing.assert_allclose(a, pin.aba(model, data, q, v, tau), rtol=1e-10, atol=1e-10)


def test_python_rk4_matches_compiled_rk4():
    n = 4
    q0 = chains.initial_angles(n)
    m = chains.mechsim_chain(n, q0=q0)
    res = m.simulate(t_end=0.05, solver="RK4", h=1e-3)
    zero = np.zeros(n)
    q, v = suite.python_rk4(lambda q, v: ms.forward_dynamics(m, q, v, zero), q0, np.zeros(n), 1e-3, 50)
    np.testing.assert_allclose(res.q[-1], q, atol=1e-12)
    np.testing.assert_allclose(res.v[-1], v, atol=1e-12)


def test_cli_options():
    args = bench.build_parser().parse_args(["--quick", "--output", "x.md"])
    assert args.quick and args.output == "x.md" and not args.no_startup
