"""The speed suite's first-use measurement (mechsim.bench.suite.first_compiles): its four-bar is the benchmark set's,
the report shows the row and its verdict, and with an empty cache both runs succeed (slow: it compiles)."""
import os

import numpy as np
import pytest
import yaml

import mechsim as ms
from mechsim.bench import loops, report, suite
from mechsim.bench.targets import FIRST_LOOP_TARGET_S


def test_the_first_loop_model_is_the_benchmark_four_bar_closed_at_its_start(tmp_path):
    path = tmp_path / "four_bar.yaml"
    suite.first_loop_model().to_yaml(path)                 # as first_compiles writes it
    data = yaml.safe_load(path.read_text())
    assert ms.load(path).name == "four-bar"
    p, q0 = loops.FOUR_BAR, {j["name"]: j["q0"] for j in data["joints"]}
    theta, alpha, phi = q0["j1"], q0["j1"] + q0["j2"], q0["j4"]            # absolute angles from the relative ones
    e = lambda a: np.array([np.cos(a), np.sin(a)])                          # noqa: E731
    coupler_tip = p["l1"] * e(theta) + p["l2"] * e(alpha)
    rocker_tip = np.array([p["l0"], 0.0]) + p["l3"] * e(phi)
    assert np.linalg.norm(coupler_tip - rocker_tip) < 1e-12                 # the loop is closed at the start
    assert theta == p["theta0"] and q0["j3"] == pytest.approx(phi - alpha, abs=1e-15)
    assert [f["value"] for f in data["forces"]] == [p["torque"]]


def test_the_report_gives_the_first_compile_its_row_and_verdict():
    first = {"open_chain_s": 55.0, "closed_loop_s": 94.0, "target_s": FIRST_LOOP_TARGET_S, "met": False}
    results = {"startup": {"runs": 4, "commands": [], "baselines": [], "first_compile": first}}
    text = "\n".join(report._markdown_startup(results))
    assert "| 55.0 | 94.0 | <= 45 | **not met** |" in text
    rows = [t for t in report.targets(results) if t["what"].startswith("first closed loop")]
    assert len(rows) == 1 and rows[0]["met"] is False and rows[0]["value"] == "94.0 s"


@pytest.mark.slow
def test_first_compiles_time_both_runs_with_an_empty_cache(tmp_path):
    (tmp_path / "pendulum.yaml").write_text(suite.STARTUP_MODEL)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join([suite._package_root(), env.get("PYTHONPATH", "")])
    first = suite.first_compiles(str(tmp_path), env)
    assert "failed" not in first, first
    assert first["open_chain_s"] > 1.0 and first["closed_loop_s"] > 1.0        # both compiled: the cache was empty
    assert first["met"] == (first["closed_loop_s"] <= FIRST_LOOP_TARGET_S)
    assert os.path.isdir(tmp_path / "empty-cache" / "mechsim" / "numba")
