"""Processes compiling at once share mechsim's kernels (mechsim/_kernel_cache.py): one compiles a kernel, a second
that misses it meanwhile waits and loads it; a failed compile releases its lock. And the kernels a closed loop's
results compile aside are those its run calls (results/result.py: Result._compile_aside)."""
import fcntl
import importlib
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from numba import typeof, types
from numba.core import config
from numba.core.errors import TypingError

import mechsim as ms
from mechsim._kernel_cache import SharedCompileCache
from mechsim.dynamics.cut_joints import cut_joint_motion
from mechsim.dynamics.multipliers import solve_constrained

# a kernel of a module named as mechsim's, whose cached kernels are shared (_kernel_cache.function_cache)
PROBE = '''from numba import njit


def twice(x):
    return 2.0 * x


def broken(x):
    return x.no_such_attribute


twice.__module__ = broken.__module__ = "mechsim.probe"
twice, broken = njit(cache=True)(twice), njit(cache=True)(broken)
'''

# a second process: says it is ready, then calls the kernel; prints its cache hits and misses
CALLER = '''import mechsim.dynamics.motion, {name} as probe
print("ready", flush=True)
assert probe.twice(1.5) == 3.0
print(sum(probe.twice.stats.cache_hits.values()), sum(probe.twice.stats.cache_misses.values()))
'''


@pytest.fixture
def probe(monkeypatch, tmp_path):
    """The probe module, importable here and in a child process, caching into tmp_path."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "cache"))
    name = f"shared_probe_{tmp_path.name}"
    (tmp_path / f"{name}.py").write_text(PROBE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    yield importlib.import_module(name)
    sys.modules.pop(name)


def held(cache_dir):
    """The lock files in cache_dir some process holds."""
    taken = []
    for path in cache_dir.glob("*.lock"):
        with open(path, "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                taken.append(path.name)
    return taken


def test_a_kernel_another_process_is_compiling_is_waited_for_and_loaded_not_compiled_again(probe, tmp_path):
    assert isinstance(probe.twice._cache, SharedCompileCache)
    assert probe.twice._cache.load_overload((types.float64,), probe.twice.targetctx) is None   # a miss: locked
    caller = subprocess.Popen([sys.executable, "-c", CALLER.format(name=probe.__name__)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert caller.stdout.readline().strip() == "ready"
        time.sleep(1.0)                       # the caller misses the kernel and waits (compiling it takes ~0.2 s)
        assert caller.poll() is None, caller.communicate()
        assert probe.twice(1.5) == 3.0       # compiled here, saved, the lock released
        out, err = caller.communicate(timeout=60)
    finally:
        caller.kill()
    assert caller.returncode == 0, err
    assert out.split() == ["1", "0"]          # the caller loaded it from the cache: one hit, no compile
    assert not held(tmp_path / "cache")


def test_a_compile_that_fails_releases_its_lock(probe, tmp_path):
    with pytest.raises(TypingError):
        probe.broken(1.0)
    assert list((tmp_path / "cache").glob("*.lock")) and not held(tmp_path / "cache")
    assert probe.broken._cache._locks == {}


@pytest.fixture(scope="module")
def four_bar_result():
    m = ms.load(Path(__file__).parents[2] / "examples" / "four_bar.yaml")
    return m, m.simulate(t_end=0.05)


def test_the_results_compile_aside_the_kernels_they_call(four_bar_result):
    """The results' pass calls solve_constrained with the types the run's integrator does (friction None: no
    load frictions), so the two processes share one; the cut joint's coordinates are measured with the types the
    aside compiled (both with C arrays): the aside compiled nothing the run compiles again."""
    m, res = four_bar_result
    assert np.isfinite(res["j3.q"]).all() and np.isfinite(res["j1.reaction"]).all()     # j3: the loop's cut joint
    cm = m.compile()
    mine = [sig for sig in solve_constrained.signatures if sig[0] == typeof(cm.arrays) and sig[3] == types.none]
    assert len(mine) == 1
    cut = cm.cut_coordinates
    n = cm.n_nodes + 1
    aside = cut.arguments(res.t[:1], np.zeros((1, n, 3, 3)), np.zeros((1, n, 3)), np.zeros((1, n, 6)),
                          np.zeros((1, n, 6)))
    assert tuple(typeof(a) for a in aside) in cut_joint_motion.signatures
