"""benchmarks/opcount.py (issue 15): the counted kernel is the real one, its counts grow exactly linearly with the
chain's length, and benchmarks/README.md quotes the numbers the script measures."""
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).parents[2] / "benchmarks"
SCRIPT = BENCHMARKS / "opcount.py"


def _opcount_module():
    spec = importlib.util.spec_from_file_location("opcount", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _measured():
    out = subprocess.run([sys.executable, str(SCRIPT), "--json", "--sizes", "1", "2", "3", "4", "5"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def test_counts_are_of_the_real_kernel_linear_in_n_and_quoted_by_the_readme():
    result = _measured()
    assert result["max_error"] <= 1e-12                     # the counted run gives the compiled accelerations
    totals = {int(n): kinds for n, kinds in result["totals"].items()}
    for kind in ("add", "mul", "div", "sin", "cos", "load", "store"):
        assert totals[5][kind] - totals[4][kind] == totals[3][kind] - totals[2][kind] > 0, kind
    assert result["linear"]
    readme = (BENCHMARKS / "README.md").read_text(encoding="utf-8")
    assert _opcount_module().markdown(result) in readme, "refresh README.md: python benchmarks/opcount.py"
