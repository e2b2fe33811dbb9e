"""A run compiles only what it uses: no event code without compiled events, no event scan in its stepper without
events, no load-friction code without load frictions, no Python entry to the drift correction for a run whose start
the compiled stepper corrects (simulation/problem.py, simulation/driver.py, integrators/explicit.py); the Results'
kernel starts compiling aside before the assembly."""
import importlib

import numpy as np
import pytest

import mechsim as ms
from mechsim.cli.warmup import CLOSED_LOOP, CONTACTS, LOAD_FRICTION, OPEN_CHAIN
from mechsim.simulation import plant
from mechsim.dynamics.system import COORDINATE
from mechsim.simulation.events import compile_signals
from mechsim.simulation.problem import events, system
from mechsim.status import OK


def loop_model(v0):
    data = {**CLOSED_LOOP, "joints": [dict(j) for j in CLOSED_LOOP["joints"]]}
    data["joints"][0]["v0"] = v0
    return ms.load_dict(data)


def test_the_system_of_a_run_without_compiled_events_has_no_signals():
    cm = loop_model(0.0).compile()
    plain = system(cm.arrays, cm.new_data(), cm.is_tree)
    assert plain.signal_i is None and plain.signal_f is None
    g = np.full(0, np.nan)
    assert events(plain, 0.0, np.concatenate([cm.q0, cm.v0]), g) == OK        # compiled to nothing
    signal_i, signal_f, compiled, rates = compile_signals(cm, [ms.Event("j1.q", value=0.5)])
    watched = system(cm.arrays, cm.new_data(signals=(signal_i, signal_f)), cm.is_tree)
    assert compiled == [0] and watched.signal_i is signal_i and watched.signal_f is signal_f
    assert list(rates) == [1] and list(signal_i[1]) == [COORDINATE, cm.nq, 0, 0]      # j1.q's rate: j1.v


def test_the_system_passes_load_frictions_only_where_the_model_has_them():
    plain = loop_model(0.0)
    cm = plain.compile()
    assert system(cm.arrays, cm.new_data(), cm.is_tree).friction is None
    data = {**CLOSED_LOOP, "forces": [{"name": "pin", "kind": "joint_friction", "joint": "j1", "mu": 0.2,
                                       "radius": 0.01}]}
    cm = ms.load_dict(data).compile()
    held = cm.new_data()
    assert system(cm.arrays, held, cm.is_tree).friction is held.cw.friction and held.cw.friction.shape == (1, 6)


def test_a_start_corrected_by_the_stepper_equals_the_one_python_corrects(monkeypatch):
    """The crank turning at 2 rad/s with the rest of the parallelogram at rest is off the velocity constraints.
    A run without events corrects it in its stepper's start; a run with an event (that never fires) in Python
    first. Both give the same first sample, on the constraints."""
    calls = []
    python_correct = plant.correct
    monkeypatch.setattr(plant, "correct", lambda *args: calls.append(args[1]) or python_correct(*args))
    m = loop_model(2.0)
    plain = m.simulate(t_end=0.05)
    assert calls == []
    watched = m.simulate(t_end=0.05, events=[ms.Event("j1.q", value=100.0)])
    assert calls[0] == 0.0 and not watched.events
    crank, coupler, rocker = (plain[f"{j}.v"][0] for j in ("j1", "j2", "j4"))
    assert 0.1 < crank < 1.9                                                    # the correction moved it
    assert np.allclose(plain.v[0], watched.v[0], rtol=0, atol=1e-12)
    assert np.allclose(plain.q[0], watched.q[0], rtol=0, atol=1e-12)
    assert np.max(plain.constraint_error) < 1e-8
    # the parallelogram's velocities: the rocker turns with the crank, the coupler counter-rotates
    assert np.isclose(rocker, crank, rtol=0, atol=1e-10) and np.isclose(coupler, -crank, rtol=0, atol=1e-10)


def test_the_system_class_follows_the_formulation_and_each_evaluates_from_python():
    """One System class per formulation (simulation/problem.py), each with its own right-hand side and correction
    compiled without the others' code; from Python, derivative and correct take any of them. The closed loop's
    three agree on the accelerations at a consistent state, and a tree's is ABA's."""
    from mechsim.simulation.problem import MultiplierSystem, NullspaceSystem, System, TreeSystem, correct, derivative
    cm = loop_model(1.0).compile()
    y = np.concatenate([cm.q0, cm.v0])
    accelerations = {}
    for formulation, kind in [("lagrange", MultiplierSystem), ("penalty", MultiplierSystem),
                              ("nullspace", NullspaceSystem)]:
        problem = system(cm.arrays, cm.new_data(formulation=formulation), cm.is_tree)
        assert type(problem) is kind and isinstance(problem, System)
        assert (problem.ns is not None) == (kind is NullspaceSystem)
        z = y.copy()
        assert correct(problem, 0.0, z) == OK
        dy = np.zeros_like(y)
        assert derivative(problem, 0.0, z, dy) == OK
        accelerations[formulation] = dy[cm.nq:]
    assert np.allclose(accelerations["nullspace"], accelerations["lagrange"], rtol=0, atol=1e-8)
    assert np.allclose(accelerations["penalty"], accelerations["lagrange"], rtol=0, atol=1e-10)  # no penalty table:
    # no row is a spring, the multipliers hold them all
    chain = ms.load_dict(OPEN_CHAIN)
    tree = chain.compile()
    problem = system(tree.arrays, tree.new_data(), tree.is_tree)
    assert type(problem) is TreeSystem and problem.cw is None
    y = np.concatenate([tree.q0, tree.v0 + 0.3])
    dy = np.zeros_like(y)
    assert derivative(problem, 0.0, y, dy) == OK
    assert np.allclose(dy[tree.nq:], ms.forward_dynamics(chain, tree.q0, tree.v0 + 0.3),
                       rtol=1e-12, atol=1e-12)


def test_the_tables_only_some_runs_use_are_none_in_the_others():
    """Data.optional_tables (dynamics/data.py), which the System and the results' pass hand to the kernels: a
    closed loop's Lagrange run passes None for the load frictions, the penalty formulation's rows and the sliding
    contacts' table, so that its kernels compile none of their code; a run that uses one passes cw's, and the
    penalty formulation's System evaluates with its springs."""
    from mechsim.simulation.formulations import penalty_table
    from mechsim.simulation.problem import correct, derivative
    cm = loop_model(1.0).compile()
    assert cm.new_data().optional_tables(cm.arrays) == (None, None, None)
    data = cm.new_data(formulation="penalty", penalty=penalty_table(cm, cm.q0, None))
    friction, penalized, slide = data.optional_tables(cm.arrays)
    assert friction is None and slide is None and penalized is data.cw.penalized and penalized.size
    problem = system(cm.arrays, data, cm.is_tree)
    assert problem.penalized is penalized and problem.friction is None and problem.slide is None
    y = np.concatenate([cm.q0, cm.v0])
    dy = np.zeros_like(y)
    assert correct(problem, 0.0, y) == OK and derivative(problem, 0.0, y, dy) == OK and np.isfinite(dy).all()
    for model, table in ((CONTACTS, "slide"), (LOAD_FRICTION, "friction")):
        other = ms.load_dict(model).compile()
        data = other.new_data()
        tables = dict(zip(("friction", "penalized", "slide"), data.optional_tables(other.arrays)))
        assert tables.pop(table) is getattr(data.cw, table) and set(tables.values()) == {None}


def test_a_stepper_watches_events_only_where_it_has_them():
    # rk_advance's watch None: a run without events compiles no event scan (its dense output, its problem calls)
    from mechsim.integrators.explicit import CompiledStepper
    from mechsim.simulation.problem import System
    cm = loop_model(0.0).compile()
    problem = system(cm.arrays, cm.new_data(), cm.is_tree)
    assert isinstance(problem, System)
    y0 = np.concatenate([cm.q0, cm.v0])
    assert CompiledStepper(problem, "RK45", 0.0, y0, 1.0).watching is None
    assert CompiledStepper(problem, "RK45", 0.0, y0, 1.0, n_events=1).watching is True


def test_the_results_kernel_starts_compiling_before_the_assembly(monkeypatch):
    # a head start for the aside process, which shares kernels with the run through numba's cache
    simulate_module = importlib.import_module("mechsim.simulation.simulate")     # the module, not its function

    class Assembling(Exception):
        pass

    order = []
    monkeypatch.setattr(simulate_module, "compile_results_aside",
                        lambda part, t, y: order.append(("aside", part.penalty, part.cm.nv, y.size)))

    def initial_state(model, opts):
        order.append("assembly")
        raise Assembling                                   # the order is all this test needs

    monkeypatch.setattr(simulate_module, "initial_state", initial_state)
    m = loop_model(0.0)
    for formulation, expected in (("lagrange", [("aside", None, 3, 6), "assembly"]), ("nullspace", None),
                                  ("penalty", ["assembly"])):       # the penalty's types come with its run
        order.clear()
        with pytest.raises(Assembling):
            m.simulate(t_end=0.01, formulation=formulation)
        assert order == (expected or [("aside", None, 3, 6), "assembly"])
