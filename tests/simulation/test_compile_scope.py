"""A run compiles only what it uses: no event code without compiled events, no load-friction code without load
frictions, no Python entry to the drift correction for a run whose start the compiled stepper corrects
(simulation/problem.py, simulation/driver.py)."""
import numpy as np

import mechsim as ms
from mechsim.cli.warmup import CLOSED_LOOP
from mechsim.simulation import driver
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
    signal_i, signal_f, compiled = compile_signals(cm, [ms.Event("j1.q", value=0.5)])
    watched = system(cm.arrays, cm.new_data(signal_i=signal_i, signal_f=signal_f), cm.is_tree)
    assert compiled == [0] and watched.signal_i is signal_i and watched.signal_f is signal_f


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
    python_correct = driver.system_correct
    monkeypatch.setattr(driver, "system_correct", lambda *args: calls.append(args[1]) or python_correct(*args))
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
