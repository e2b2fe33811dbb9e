"""ms.sweep: grids and Monte Carlo studies on processes, threads and a Dask cluster."""
import os
import signal

import numpy as np
import pytest
from scipy import stats
from scipy.special import ellipk

import mechsim as ms
from mechsim.distributed import sweeps as sweep_module

from distributed_helpers import G, pendulum

pd = pytest.importorskip("pandas")
THETA0 = 0.5
OPTIONS = dict(t_end=2.0, rtol=1e-10, atol=1e-12)
K = ellipk(np.sin(THETA0 / 2) ** 2)          # complete elliptic integral of the first kind, m = k^2


def period(result):
    """Twice the time of the first upward zero of j1.v after a release at rest (event 'half')."""
    return 2.0 * result.events[0].time


def exact_period(length):
    """T = 4 sqrt(L/g) K(sin(theta0/2)) of the simple pendulum released at rest from theta0."""
    return 4.0 * np.sqrt(np.asarray(length) / G) * K


def test_monte_carlo_on_the_length_reproduces_the_closed_form_period_distribution():
    runs = ms.sweep(pendulum(THETA0), {"bodies.bob.com[0]": ms.normal(1.0, 0.1)}, samples=1000, seed=7,
                    simulate_kwargs=OPTIONS, metrics={"period": period})
    assert len(runs) == 1000 and (runs.status == "ok").all() and (runs.error == "").all()
    length, T = runs["bodies.bob.com[0]"].to_numpy(), runs["period"].to_numpy()
    assert np.max(np.abs(T / exact_period(length) - 1)) < 1e-9
    # T(L) is increasing, so P(T <= t) = Phi((L(t) - 1) / 0.1) with L(t) = g (t / 4K)^2
    test = stats.kstest(T, lambda t: stats.norm.cdf((G * (t / (4 * K)) ** 2 - 1.0) / 0.1))
    assert test.pvalue > 0.05
    assert abs(np.mean(length) - 1.0) < 4 * 0.1 / np.sqrt(1000)


def test_run_values_come_from_their_own_streams_of_the_seed():
    m = pendulum(THETA0)
    parameters = {"bodies.bob.com[0]": ms.uniform(0.5, 1.5), "joints.j1.q0": ms.normal(0.3, 0.05)}
    ten = ms.sweep(m, parameters, samples=10, seed=3, simulate_kwargs=OPTIONS, isolation=False)
    four = ms.sweep(m, parameters, samples=4, seed=3, simulate_kwargs=OPTIONS, workers=1)
    assert ten.iloc[:4].equals(four)                   # run i's values do not depend on how many runs
    other = ms.sweep(m, parameters, samples=4, seed=4, simulate_kwargs=OPTIONS, isolation=False)
    assert not np.allclose(other["joints.j1.q0"], four["joints.j1.q0"])


def test_grid_rows_columns_and_metrics_in_words():
    m = pendulum(THETA0)
    runs = ms.sweep(m, {"bodies.bob.com": [[0.8, 0, 0], [1.2, 0, 0]], "inputs.u": [0.0, 0.5, 1.0]},
                    simulate_kwargs=OPTIONS, metrics=["max:j1.q", "event:half", "final:bob.position"],
                    isolation=False)
    assert list(runs.columns) == ["bodies.bob.com[0]", "bodies.bob.com[1]", "bodies.bob.com[2]", "inputs.u",
                                  "max:j1.q", "event:half", "final:bob.position[0]", "final:bob.position[1]",
                                  "final:bob.position[2]", "status", "error"]
    assert runs.index.name == "run" and len(runs) == 6
    assert list(runs["inputs.u"]) == [0.0, 0.5, 1.0] * 2 and list(runs["bodies.bob.com[0]"]) == [0.8] * 3 + [1.2] * 3
    free = runs[runs["inputs.u"] == 0.0]
    assert np.allclose(2 * free["event:half"], exact_period([0.8, 1.2]), rtol=1e-9)
    assert np.allclose(free["max:j1.q"], THETA0, atol=1e-12)
    final = m.with_parameters({"inputs.u": 1.0, "bodies.bob.com": [1.2, 0, 0]}).simulate(**OPTIONS)
    assert np.allclose(runs.iloc[5][["final:bob.position[0]", "final:bob.position[1]"]].to_numpy(float),
                       final["bob.position"][-1][:2], rtol=0, atol=1e-12)


def test_default_metrics_are_the_final_coordinates_and_a_build_callable_works():
    def build(length, theta0=THETA0):
        return pendulum(theta0, length)
    runs = ms.sweep(build, {"length": [0.9, 1.1]}, simulate_kwargs=OPTIONS)
    assert list(runs.columns) == ["length", "final:j1.q", "status", "error"]
    assert np.allclose(runs["final:j1.q"], -THETA0, atol=1e-8)      # the event ends each run at the far side


def test_a_failed_run_is_recorded_and_the_sweep_goes_on(tmp_path):
    def late(sim, t, state):
        if t > 1.2:
            raise RuntimeError("released too late")
    m = pendulum(THETA0)
    m.events["half"] = ms.Event("j1.v", action=late, direction=1, terminal=True, name="half")
    runs = ms.sweep(m, {"bodies.bob.com[0]": [1.0, 2.5, -1.0]}, simulate_kwargs=OPTIONS, metrics=["final:j1.q"],
                    trajectories=tmp_path / "runs", output=tmp_path / "runs.csv")
    assert list(runs.status) == ["ok", "failed", "ok"]
    assert "released too late" in runs.error[1] and np.isnan(runs["final:j1.q"][1])
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["run_00000.npz", "run_00001.npz", "run_00002.npz"]
    partial = np.load(tmp_path / "runs" / "run_00001.npz")
    assert 1.2 < partial["t"][-1] < 2.0                               # what the failed run computed is kept
    written = pd.read_csv(tmp_path / "runs.csv", index_col="run", keep_default_na=False)
    assert list(written.status) == ["ok", "failed", "ok"] and written.error[1] == runs.error[1]


def test_a_value_add_star_refuses_fails_that_run_only():
    runs = ms.sweep(pendulum(THETA0), {"bodies.bob.mass": [1.0, -2.0]}, simulate_kwargs=OPTIONS)
    assert list(runs.status) == ["ok", "failed"] and "mass must be non-negative" in runs.error[1]


def _killing_metric(marker, always_at=None):
    """A metric that SIGKILLs its own worker process: once (the run that creates the marker file, created
    atomically: two workers running at once must not both die), or every time for the run with bob.com[0] ==
    always_at."""
    def first_to_mark():
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return False
        return True

    def metric(result):
        length = result.model.bodies["bob"].com[0]
        if length == always_at or first_to_mark():
            open(marker, "a").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return period(result)
    return metric


def test_a_killed_worker_process_costs_no_run(tmp_path):
    lengths = list(np.linspace(0.8, 1.2, 9))
    runs = ms.sweep(pendulum(THETA0), {"bodies.bob.com[0]": lengths}, simulate_kwargs=OPTIONS, workers=2,
                    metrics={"period": _killing_metric(tmp_path / "killed")})
    assert (tmp_path / "killed").exists()
    assert (runs.status == "ok").all() and np.allclose(runs.period, exact_period(lengths), rtol=1e-9)


def test_a_run_that_kills_its_worker_every_time_is_recorded_as_failed(tmp_path):
    lengths = [0.8, 0.9, 1.0, 1.1]
    runs = ms.sweep(pendulum(THETA0), {"bodies.bob.com[0]": lengths}, simulate_kwargs=OPTIONS, workers=2,
                    metrics={"period": _killing_metric(tmp_path / "killed", always_at=1.0)})
    assert list(runs.status) == ["ok", "ok", "failed", "ok"]
    assert "worker process died twice" in runs.error[2]
    assert np.allclose(runs.period[[0, 1, 3]], exact_period([0.8, 0.9, 1.1]), rtol=1e-9)


@pytest.mark.parametrize("arguments, message", [
    (dict(parameters={"bodies.bob.mas": [1, 2]}), "parameter 'bodies.bob.mas'"),
    (dict(parameters={"bodies.bob.mass": ms.normal(1, 0.1)}), "give samples=N"),
    (dict(parameters={"bodies.bob.mass": [1, 2]}, samples=10), "is a list, which spans a grid"),
    (dict(parameters={"bodies.bob.mass": [1, 2]}, metrics=["max:j9.q"]), "no signal 'j9.q'"),
    (dict(parameters={"bodies.bob.mass": [1, 2]}, metrics=["peak:j1.q"]), "write it as <kind>:<signal>"),
    (dict(parameters={"bodies.bob.mass": [1, 2]}, simulate_kwargs={"solver": "RK99"}), "simulate_kwargs: simulate(): solver='RK99'"),
    (dict(parameters={"bodies.bob.mass": [1, 2]}, output="runs.xlsx"), "use a file name ending in .csv"),
    (dict(parameters={"bodies.bob.mass": [-1, 2]}), "parameters bodies.bob.mass = -1"),
    (dict(parameters={"bodies.bob.mass": [1, 2]}, t_end=1.0), "sweep(): unknown option(s) ['t_end']; options are "
                                                               "['client', 'isolation', 'output', 'progress', "
                                                               "'trajectories', 'workers']"),
])
def test_bad_input_raises_before_anything_is_launched(monkeypatch, arguments, message):
    def launched(*args):
        raise AssertionError("a run was launched")
    for name in ("on_processes", "on_threads", "on_dask"):
        monkeypatch.setattr(sweep_module, name, launched)
    with pytest.raises(ms.ModelError, match="sweep|parameter") as info:
        ms.sweep(pendulum(THETA0), **{"simulate_kwargs": OPTIONS, **arguments})
    assert message in str(info.value)


def test_distributions_check_their_arguments():
    with pytest.raises(ms.ModelError, match="std must be non-negative"):
        ms.normal(1.0, -0.1)
    with pytest.raises(ms.ModelError, match="high must exceed low"):
        ms.uniform(2.0, 1.0)


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def test_a_dask_cluster_gives_the_results_of_local_processes(dask_client):
    m = pendulum(THETA0)
    parameters = {"bodies.bob.com[0]": ms.normal(1.0, 0.1), "joints.j1.q0": ms.uniform(0.2, 0.6)}
    local = ms.sweep(m, parameters, samples=40, seed=11, simulate_kwargs=OPTIONS, metrics={"period": period})
    remote = ms.sweep(m, parameters, samples=40, seed=11, simulate_kwargs=OPTIONS, metrics={"period": period},
                      client=dask_client)
    pd.testing.assert_frame_equal(local, remote)


def _cancelling_metric(marker):
    """A metric that has the Dask cluster cancel its own task, the first time it runs (the marker file)."""
    def metric(result):
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return period(result)
        from distributed import Future, get_client, get_worker
        client = get_client()
        client.cancel([Future(get_worker().get_current_task(), client)], force=True, reason="the test cancelled it")
        return period(result)
    return metric


@pytest.mark.parametrize("lose", [_killing_metric, _cancelling_metric], ids=["worker killed", "task cancelled"])
def test_a_dask_cluster_losing_a_task_costs_no_run(dask_client, tmp_path, lose):
    """A worker killed mid-run (Dask runs its task again) or a task the cluster cancels (the sweep submits it
    again): every run still comes back, right."""
    lengths = list(np.linspace(0.8, 1.2, 6))
    runs = ms.sweep(pendulum(THETA0), {"bodies.bob.com[0]": lengths}, simulate_kwargs=OPTIONS,
                    metrics={"period": lose(tmp_path / "lost")}, client=dask_client)
    assert (tmp_path / "lost").exists()
    assert (runs.status == "ok").all() and np.allclose(runs.period, exact_period(lengths), rtol=1e-9)
