"""Smoke tests of the hybrid-mechanics benchmark (benchmarks/hybrid.py): its interleaved timing keeps
every setting's best time and metrics, a failing setting is a failed row, and the summary pairs a peer
with mechsim's cheapest setting at least as accurate. No speed is asserted."""
import importlib.util
import math
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "hybrid.py"


@pytest.fixture(scope="module")
def hybrid():
    spec = importlib.util.spec_from_file_location("hybrid_benchmark", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_interleaved_rounds_time_every_setting_and_keep_failures(hybrid, monkeypatch):
    calls = []

    def fake_peer(label, error):
        def build():
            def run():
                calls.append(label)
                return lambda: {"error": error, "found": hybrid.N_IMPACTS, "ok": True}
            return run
        return build

    def broken():
        raise RuntimeError("no such solver")

    def flaky():                                    # warms up, then fails while timed
        def run():
            calls.append("flaky")
            if calls.count("flaky") > 1:
                raise FloatingPointError("diverged")
            return lambda: {"error": 0.0, "found": hybrid.N_IMPACTS, "ok": True}
        return run

    monkeypatch.setattr(hybrid, "peer_settings", lambda case, engine, quick: [
        ("coarse", fake_peer("coarse", 1e-2)), ("fine", fake_peer("fine", 1e-4)), ("broken", broken),
        ("flaky", flaky)])
    out = hybrid.measure_case("ball", ["peer"], [1e-3, 1e-6], quick=True, rounds=3, say=lambda s: None)
    mech = out["mechsim"]
    assert [r["setting"] for r in mech] == ["DOP853 rtol=atol=0.001", "DOP853 rtol=atol=1e-06",
                                            "RK45 rtol=atol=0.001", "RK23 rtol=atol=0.001", "RK23 rtol=atol=1e-06"]
    assert all(r["found"] >= hybrid.N_IMPACTS and math.isfinite(r["time"]) for r in mech)   # and the later ones
    assert max(r["error"] for r in mech) < 1e-10            # the flights are parabolas: every setting finds the impacts
    peers = {r["setting"]: r for r in out["peer"]}
    assert calls.count("coarse") >= 1 + 3 and calls.count("fine") >= 1 + 3   # a warm-up, then each round
    assert peers["broken"]["note"].startswith("failed: RuntimeError") and math.isnan(peers["broken"]["time"])
    assert peers["flaky"]["note"].startswith("failed: FloatingPointError") and math.isnan(peers["flaky"]["time"])
    assert calls.count("flaky") == 2                # not timed again in the later rounds
    (case, engine, best, paired, rmin, rmax), = hybrid.summary_rows({"ball": out})
    assert (case, engine, best["setting"]) == ("ball", "peer", "fine")
    assert paired["error"] <= 1e-4 and paired["time"] == min(r["time"] for r in mech)
    assert rmin <= rmax
