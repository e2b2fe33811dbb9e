"""The numba cache directory is keyed on every compiled source, kernels compile aside (mechsim/_jit_cache.py), and
they are called with one array layout. Processes compiling at once share mechsim's kernels (mechsim/_kernel_cache.py):
one compiles a kernel, a second that misses it meanwhile waits and loads it; a failed compile releases its lock. The
kernels a closed loop's results compile aside are those its run calls (results/result.py: Result._compile_aside)."""
import fcntl
import importlib
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from numba import typeof, types
from numba.core import config
from numba.core.errors import TypingError

import mechsim as ms
from mechsim import _jit_cache
from mechsim import _kernel_cache
from mechsim._kernel_cache import SharedCompileCache
from mechsim.dynamics.cut_joints import cut_joint_motion
from mechsim.simulation.problem import system

SRC = Path(ms.__file__).resolve().parent


@pytest.fixture(autouse=True)
def keep_numba_cache_dir(monkeypatch):
    monkeypatch.setattr(config, "CACHE_DIR", config.CACHE_DIR)     # restored after each test


def test_every_module_with_compiled_code_or_its_constants_is_keyed():
    """Kernels, the kinds' kernel cases (``def kernel(inline)``, compiled by dynamics: force elements, contact
    surfaces, in subpackages too) and the constants frozen into kernels (the primitives' codes among them)."""
    compiled = {p.relative_to(SRC).as_posix() for p in compiled_modules()}
    cases = {p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py") if re.search(r"def kernel\(", p.read_text())}
    constants = {"dynamics/layout.py", "modeling/primitives/__init__.py", "expressions/language.py"}
    keyed = {p.relative_to(SRC).as_posix() for name in _jit_cache.COMPILED_SOURCES
             for p in ((SRC / name).rglob("*.py") if (SRC / name).is_dir() else [SRC / name])}
    assert "modeling/contacts/surfaces/plane.py" in cases
    assert compiled | cases | constants <= keyed


def compiled_modules():
    return sorted(p for p in SRC.rglob("*.py") if re.search(r"@njit|@jit\b", p.read_text()))


def test_every_module_with_kernels_registers_the_first_compile_notice():
    """numba is imported by the modules that define kernels, not by ``import mechsim``: each registers the
    notice itself (_jit_cache.listen) or through spatial/algebra.py, whose compile options every kernel takes."""
    for path in compiled_modules():
        text = path.read_text()
        assert re.search(r"^listen\(\)", text, re.M) or "from ..spatial.algebra import" in text, path


@pytest.mark.parametrize("module", ["mechsim.dynamics.motion", "mechsim.integrators.problem"])
def test_first_compile_of_a_mechsim_kernel_is_announced_once(module):
    code = (f"import {module}, numba\n"
            "def kernel(x):\n    return x + 1\n"
            "kernel.__module__ = 'mechsim.kernel'\n"
            "numba.njit(lambda x: x)(1)\n"            # not mechsim's: no notice
            "numba.njit(kernel)(1)\n"
            "numba.njit(kernel)(2.0)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stderr.count("note: compiling mechsim's kernels") == 1


def test_cache_directory_follows_the_sources(monkeypatch, tmp_path):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    _jit_cache.configure()
    first = Path(_jit_cache.os.environ["NUMBA_CACHE_DIR"])
    assert first.parent == tmp_path / "mechsim" / "numba" and first.is_dir()
    original = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: original(self) + (b"#" if self.name == "kernels.py" else b""))
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    _jit_cache.configure()
    assert Path(_jit_cache.os.environ["NUMBA_CACHE_DIR"]) != first


def test_user_cache_directory_is_respected(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    _jit_cache.configure()
    assert _jit_cache.os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")


PROBE = "from numba import njit\n\n\n@njit(cache=True)\ndef twice(x):\n    return 2.0 * x\n"


def import_probe(monkeypatch, tmp_path, source, cores=2):
    """A module of ``source`` importable here and in child processes, caching its kernels into tmp_path, on a
    machine with ``cores`` cores."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(_jit_cache, "cores", lambda: cores)
    name = f"probe_{tmp_path.name}"
    (tmp_path / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    return importlib.import_module(name)


@pytest.fixture
def probe(monkeypatch, tmp_path):
    """A module with one cached kernel (PROBE)."""
    yield import_probe(monkeypatch, tmp_path, PROBE)
    sys.modules.pop(f"probe_{tmp_path.name}")


def test_a_kernel_compiled_aside_is_loaded_from_the_cache_not_compiled_again(probe):
    aside = _jit_cache.compile_aside([(probe.twice, (1.5,))])
    assert len(aside.processes) == 1                  # compiling in a child process
    aside.wait()
    assert aside.processes == ()
    assert probe.twice(1.5) == 3.0
    assert sum(probe.twice.stats.cache_hits.values()) == 1 and not probe.twice.stats.cache_misses
    assert _jit_cache.compile_aside([(probe.twice, (2.5,))]).processes == ()     # compiled here already


def test_threads_asking_for_one_kernel_share_one_aside(probe):
    """simulate_batch's threads start the same results kernel: one child compiles it, every thread waits for it."""
    asides = []
    threads = [threading.Thread(target=lambda: asides.append(_jit_cache.compile_aside([(probe.twice, (1.5,))])))
               for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert asides[0].processes == asides[1].processes and len(asides[0].processes) == 1
    waits = [threading.Thread(target=aside.wait) for aside in asides]
    for thread in waits:
        thread.start()
    for thread in waits:
        thread.join()
    assert probe.twice(1.5) == 3.0 and sum(probe.twice.stats.cache_hits.values()) == 1


def test_an_aside_waits_for_the_earlier_child_compiling_some_of_its_kernels(probe):
    """Kernels asked for again while a first child compiles one of them: a second child compiles only the new one,
    and the Aside returned waits for both children, so that every kernel asked for loads from the cache."""
    first = _jit_cache.compile_aside([(probe.twice, (1.5,))])
    both = _jit_cache.compile_aside([(probe.twice, (1.5,)), (probe.twice, (2,))])
    assert len(both.processes) == 2 and first.processes[0] in both.processes
    both.wait()
    assert all(process.poll() is not None for process in first.processes)
    assert probe.twice(1.5) == 3.0 and probe.twice(2) == 4
    assert sum(probe.twice.stats.cache_hits.values()) == 2 and not probe.twice.stats.cache_misses


def test_nothing_is_compiled_aside_when_cached_or_on_one_core(probe, monkeypatch):
    _jit_cache.compile_aside([(probe.twice, (1.5,))]).wait()
    fresh = importlib.reload(probe)                           # a new dispatcher: the kernel is in the cache only
    assert _jit_cache.compile_aside([(fresh.twice, (1.5,))]).processes == ()
    assert len(fresh.twice.signatures) == 1                   # loaded from the cache, as a first call would
    monkeypatch.setattr(_jit_cache, "cores", lambda: 1)
    assert _jit_cache.compile_aside([(fresh.twice, (1,))]).processes == ()        # an int: cached nowhere
    assert len(fresh.twice.signatures) == 1                   # left to the first call


def array_layouts(numba_type):
    """The layouts of the arrays in a numba type, through tuples (namedtuples of the model and data)."""
    if isinstance(numba_type, types.Array):
        return {numba_type.layout}
    if isinstance(numba_type, types.BaseTuple):
        return set().union(*(array_layouts(t) for t in numba_type.types))
    return set()


def test_scipy_solvers_and_results_call_the_kernels_with_c_contiguous_arrays():
    """Strided states (scipy's finite-difference Jacobians pass columns of an array) or Fortran-ordered samples
    would compile the whole dynamics a second time, for that layout."""
    from mechsim.results.result import Result
    from mechsim.cli.warmup import OPEN_CHAIN
    from mechsim.dynamics.multipliers import constrained_trajectory
    from mechsim.simulation.problem import derivative
    m = ms.load_dict(OPEN_CHAIN)
    res = m.simulate(t_end=0.05, solver="Radau")              # Radau's Jacobian by finite differences
    fortran = (np.asfortranarray(x) for x in (res.q, res.v, res.u_force))
    assert np.isfinite(Result(m.compile(), res.t, *fortran, tau=np.asfortranarray(res.tau))["upper.position"]).all()
    signatures = derivative.signatures + constrained_trajectory.signatures
    assert signatures and set().union(*(array_layouts(t) for sig in signatures for t in sig)) == {"C"}


FORCE_LOOP_SIGNATURES = """
import numpy as np
import mechsim as ms
from mechsim.cli.warmup import LOAD_FRICTION
from mechsim.dynamics.forces import each_force
drive = dict(LOAD_FRICTION, forces=LOAD_FRICTION["forces"][:1])   # a wheel turned by 2 t: a tree whose force varies
m = ms.load_dict(drive)                                             # (forward_dynamics' own tables)
assert np.isfinite(m.simulate(t_end=0.01)["axle.q"]).all()
assert np.isfinite(ms.forward_dynamics(m, [0.0], [0.0], t=1.0)).all()
print(len(each_force.signatures))
"""


@pytest.mark.slow
def test_the_force_elements_loop_compiles_once_for_runs_and_forward_dynamics(tmp_path):
    """applied_forces types the force tables and values read-only: the runs' model tables (read-only) and
    forward_dynamics' packed tables (writable: each thread writes its force values there) share one compiled loop
    over the rows (each compile of it takes seconds). From an empty cache, in a process of its own: loaded from
    the cache, the kernels that inline the loop do not compile it."""
    run = subprocess.run([sys.executable, "-c", FORCE_LOOP_SIGNATURES], capture_output=True, text=True, timeout=900,
                         env={**{k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"},
                              "XDG_CACHE_HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[-1] == "1"


# ----------------------------------------------------- processes compiling at once (mechsim/_kernel_cache.py)
# a module whose kernels are shared as mechsim's are (_kernel_cache.SHARED_PACKAGES)
SHARED_PROBE = PROBE + "\n\n@njit(cache=True)\ndef broken(x):\n    return x.no_such_attribute\n"

# a second process: says it is ready, then calls the kernel; prints its cache hits and misses
CALLER = '''import mechsim.dynamics.motion
from mechsim import _kernel_cache
_kernel_cache.SHARED_PACKAGES.add("{name}")
import {name} as probe
print("ready", flush=True)
assert probe.twice(1.5) == 3.0
print(sum(probe.twice.stats.cache_hits.values()), sum(probe.twice.stats.cache_misses.values()))
'''


@pytest.fixture
def shared_probe(monkeypatch, tmp_path):
    """A module with two kernels whose caches are shared (SHARED_PROBE)."""
    monkeypatch.setattr(_kernel_cache, "SHARED_PACKAGES", {"mechsim", f"probe_{tmp_path.name}"})
    yield import_probe(monkeypatch, tmp_path, SHARED_PROBE)
    sys.modules.pop(f"probe_{tmp_path.name}")


def held(cache_dir):
    """The lock files in cache_dir (in numba's folder for the probe's source) some process holds."""
    taken = []
    for path in cache_dir.rglob("*.lock"):
        with open(path, "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                taken.append(path.name)
    return taken


def test_a_kernel_another_process_is_compiling_is_waited_for_and_loaded_not_compiled_again(shared_probe, tmp_path):
    twice = shared_probe.twice
    assert isinstance(twice._cache, SharedCompileCache)
    assert twice._cache.load_overload((types.float64,), twice.targetctx) is None     # a miss: this process locks it
    caller = subprocess.Popen([sys.executable, "-c", CALLER.format(name=shared_probe.__name__)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert caller.stdout.readline().strip() == "ready"
        time.sleep(1.0)                       # the caller misses the kernel and waits (compiling it takes ~0.2 s)
        assert caller.poll() is None, caller.communicate()
        assert twice(1.5) == 3.0             # compiled here, saved, the lock released
        out, err = caller.communicate(timeout=60)
    finally:
        caller.kill()
    assert caller.returncode == 0, err
    assert out.split() == ["1", "0"]          # the caller loaded it from the cache: one hit, no compile
    assert not held(tmp_path / "cache")


def test_a_compile_that_fails_releases_its_lock(shared_probe, tmp_path):
    with pytest.raises(TypingError):
        shared_probe.broken(1.0)
    assert list((tmp_path / "cache").rglob("*.lock")) and not held(tmp_path / "cache")
    assert shared_probe.broken._cache._locks == {}


@pytest.fixture(scope="module")
def four_bar_result():
    m = ms.load(Path(__file__).parents[2] / "examples" / "four_bar.yaml")
    return m, m.simulate(t_end=0.05)


def test_the_results_compile_aside_the_kernels_they_call(four_bar_result):
    """The results' pass calls solve_constrained with the types the run's integrator does (no load frictions,
    penalized rows or sliding contacts: None for their tables), so the two processes share one; the cut joint's
    coordinates are measured with the types the aside compiled (both with C arrays): the aside compiled nothing
    the run compiles again."""
    m, res = four_bar_result
    assert np.isfinite(res["j3.q"]).all() and np.isfinite(res["j1.reaction"]).all()     # j3: the loop's cut joint
    cm = m.compile()
    s = system(cm.arrays, cm.new_data(), cm.is_tree)
    y, dy, nq = np.zeros(cm.nq + cm.nv), np.zeros(cm.nq + cm.nv), cm.nq
    integrator = (s.model, s.data, s.cw, s.friction, s.penalized, s.slide, y[:nq], y[nq:], s.data.tau, dy[nq:])
    model, data, cw, friction, penalized, slide, samples, out = res._trajectory_arguments()
    results = (model, data, cw, friction, penalized, slide, samples.Q[0], samples.V[0], samples.TAU[0], out.QDD[0])
    assert (friction, penalized, slide) == (None,) * 3
    assert [typeof(a) for a in results] == [typeof(a) for a in integrator]      # multiplier_derivative's call
    aside = cm.cut_coordinates.arguments(res.t, out.R, out.p, out.vel, out.acc)     # as Result._compile_aside
    assert tuple(typeof(a) for a in aside) in cut_joint_motion.signatures
