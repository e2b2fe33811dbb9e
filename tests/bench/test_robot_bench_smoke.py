"""Smoke test of the speed suite's "robots" group (mechsim.bench.robots): a quick run loads PR2,
checks mechsim's accelerations against pin.aba on PR2 and Solo12 and writes the target rows; a wrong
coordinate map stops the run instead of being timed. No speed is asserted (machine-dependent)."""
import sys

import numpy as np
import pytest

from mechsim import bench
from mechsim.bench import robots

def test_quick_robots_run_agrees_with_pinocchio_and_reports_the_targets(tmp_path):
    pytest.importorskip("pinocchio")
    out = tmp_path / "robots.md"
    res = bench.run(quick=True, output=str(out), engines=("pin",), groups=("robots",), verbose=False)
    rb = res["robots"]
    assert rb["load"]["dof"] == 30 and rb["load"]["seconds"] > 0 and not rb["notes"]
    assert [(r["robot"], r["dof"], r["base"]) for r in rb["rows"]] == [("pr2", 30, "fixed"), ("solo12", 18, "free flyer")]
    assert all(r["error"] <= rb["tolerance"] and r["mechsim_us"] > 0 and r["ratio_pin"] > 0 for r in rb["rows"])
    text = out.read_text()
    assert "## 6. Real robots" in text
    for what in ("loading PR2 (30 DOF, merge_fixed=True) warm", "forward_dynamics pr2 (30 DOF, fixed base): mechsim / pin.aba",
                 "forward_dynamics solo12 (18 DOF, free flyer base): mechsim / pin.aba"):
        assert what in text and any(t["what"].startswith(what) for t in res["targets"])


def test_a_wrong_coordinate_map_fails_the_agreement_check(monkeypatch):
    pytest.importorskip("pinocchio")
    monkeypatch.setattr(robots, "free_flyer_bias", lambda m, P, vp: np.zeros(P.shape[0]))
    with pytest.raises(AssertionError, match="solo12"):
        bench.run(quick=True, output=None, engines=("pin",), groups=("robots",), verbose=False)


def test_without_pinocchio_the_ratios_are_not_measured(monkeypatch):
    monkeypatch.setitem(sys.modules, "pinocchio", None)       # import pinocchio -> ImportError
    res = bench.run(quick=True, output=None, engines=("pin",), groups=("robots",), verbose=False)
    fd = [t for t in res["targets"] if t["what"].startswith("forward_dynamics")]
    assert len(fd) == 2 and all(t["value"] == "—" and t["met"] is None for t in fd)
    assert all("error" not in r and "pin_us" not in r for r in res["robots"]["rows"])
