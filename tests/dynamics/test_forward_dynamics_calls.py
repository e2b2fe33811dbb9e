"""ms.forward_dynamics as the public call: a tree with constant force values shares one workspace among
threads (its kernel holds the GIL), a tree whose force values vary gets them per call and per thread,
every call gives what the same call gives alone, and a change to the model drops the tables with the compiled model
they belong to (CompiledModel.fd_tables)."""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import mechsim as ms
from mechsim.bench.chains import mechsim_chain


def _states(n, count, seed):
    rng = np.random.default_rng(seed)
    return [tuple(rng.uniform(-1.0, 1.0, n) for _ in range(3)) for _ in range(count)]


def test_threads_sharing_a_trees_workspace_get_the_accelerations_of_single_calls():
    m = mechsim_chain(6)
    states = _states(6, 400, 1)
    other = mechsim_chain(6)                                      # the same chain, its own tables, one thread
    alone = [ms.forward_dynamics(other, q, v, tau) for q, v, tau in states]
    with ThreadPoolExecutor(4) as pool:
        shared = list(pool.map(lambda s: ms.forward_dynamics(m, *s), states * 5))
    assert m.compile().fd_tables is not None                      # one set, shared
    for k, a in enumerate(shared):
        np.testing.assert_array_equal(a, alone[k % len(states)])


def test_a_tree_whose_force_varies_in_time_reads_it_at_every_call_in_every_thread():
    """A joint motor tau = 2 t on a 1-link pendulum: the acceleration changes with t by 2 t / I about the pin,
    also from threads calling at different times (each thread writes its own force values)."""
    m = ms.Model("motor", gravity=(0, 0, 0))
    m.add_body("rod", mass=1.0, com=(0.5, 0, 0), inertia=(0.0, 1 / 12, 1 / 12))
    m.add_joint("j1", "revolute", parent="ground", child="rod", axis=(0, 0, 1))
    m.add_force("motor", "joint_force", joint="j1", value="2*t")
    inertia = 1 / 12 + 0.25                                       # about the pin: I_com + m (l/2)^2
    times = np.linspace(0.0, 5.0, 200)
    with ThreadPoolExecutor(4) as pool:
        accelerations = list(pool.map(lambda t: ms.forward_dynamics(m, [0.3], [0.0], t=t)[0], times))
    np.testing.assert_allclose(accelerations, 2 * times / inertia, rtol=1e-13, atol=1e-15)
    assert m.compile().fd_tables is None                          # never shared tables


def test_a_change_to_the_model_drops_the_tables_the_calls_read_first():
    """The call reads the tables of the model's compiled form (two attributes, SPEC §6 call overhead); every change
    that recompiles the model drops that form, so that the next call sees the change: gravity here, 9.81 to
    3.71 m/s^2 on a rod pinned at one end and lying horizontal (qdd = -3 g / 2 L)."""
    m = ms.Model("rod", gravity=(0, -9.81, 0))
    m.add_body("rod", mass=1.0, com=(0.5, 0, 0), inertia=(0.0, 1 / 12, 1 / 12))
    m.add_joint("j1", "revolute", parent="ground", child="rod", axis=(0, 0, 1))
    assert ms.forward_dynamics(m, [0.0], [0.0])[0] == pytest.approx(-1.5 * 9.81, rel=1e-14)
    tables = m._compiled_model.fd_tables
    m.gravity = (0, -3.71, 0)
    assert m._compiled_model is None
    assert ms.forward_dynamics(m, [0.0], [0.0])[0] == pytest.approx(-1.5 * 3.71, rel=1e-14)
    assert m._compiled_model.fd_tables is not tables
