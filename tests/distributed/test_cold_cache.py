"""The first call of every entry point that runs work in parallel, on an empty numba cache, in a process
of its own: threads that compile the same kernels at once (numba compiles under one lock, but loading a
kernel from the cache outside it raced with another thread's compilation) must all succeed, and give what
the same runs give one after another. Slow: each compiles the kernels of an open chain from nothing."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
NOTICE = "note: compiling mechsim's kernels"
PROLOGUE = """
import numpy as np
import mechsim as ms
from distributed_helpers import PIN, four_bar_chains, pendulum

RUNS = [{"joints.j1.q0": 0.1 * (i + 1)} for i in range(6)]
SETTINGS = dict(t_end=0.5, solver="RK4", h=1e-3)


def one_after_another():
    return [pendulum().with_parameters(run).simulate(**SETTINGS) for run in RUNS]


def sweep(**where):
    table = ms.sweep(pendulum(), {"joints.j1.q0": [run["joints.j1.q0"] for run in RUNS]}, simulate_kwargs=SETTINGS,
                     metrics={"end": lambda res: res["j1.q"][-1]}, **where)
    assert (table.status == "ok").all(), list(table.error)
    assert table.end.tolist() == [res["j1.q"][-1] for res in one_after_another()]
"""


def run_cold(tmp_path, body):
    """Run PROLOGUE + body in a new Python process whose numba cache is a new, empty directory."""
    path = os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": path}
    env.pop("NUMBA_CACHE_DIR", None)
    script = tmp_path / "first_call.py"
    script.write_text(PROLOGUE + textwrap.dedent(body))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=1800)
    assert run.returncode == 0, run.stderr[-3000:]
    assert NOTICE in run.stderr          # it did compile: the cache was empty
    return run


@pytest.mark.slow
def test_simulate_batch_on_threads(tmp_path):
    run_cold(tmp_path, """
        batch = ms.simulate_batch(pendulum(), RUNS, threads=2, **SETTINGS)
        assert all(res.success for res in batch), [res.message for res in batch]
        for res, alone in zip(batch, one_after_another()):
            assert np.array_equal(res.q, alone.q)           # the same kernels on the same machine
    """)


@pytest.mark.slow
def test_sweep_on_threads(tmp_path):
    run_cold(tmp_path, """
        sweep(workers=2, isolation=False)
    """)


@pytest.mark.slow
def test_sweep_on_the_threads_of_a_dask_worker(tmp_path):
    pytest.importorskip("distributed")
    run_cold(tmp_path, """
        import distributed
        if __name__ == "__main__":
            with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                          dashboard_address=None) as cluster, distributed.Client(cluster) as client:
                sweep(client=client)
    """)


@pytest.mark.slow
def test_cosimulate_on_local_processes_and_dask_threads(tmp_path):
    pytest.importorskip("distributed")
    run_cold(tmp_path, """
        import distributed
        if __name__ == "__main__":
            local = ms.cosimulate(four_bar_chains(), [PIN], h=1e-3, t_end=0.05)
            with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                          dashboard_address=None) as cluster, distributed.Client(cluster) as client:
                remote = ms.cosimulate(four_bar_chains(), [PIN], h=1e-3, t_end=0.05, workers=client)
            for name in ("A/j1.q", "B/j4.q", "pin.violation"):
                assert np.array_equal(local[name], remote[name]), name
    """)
