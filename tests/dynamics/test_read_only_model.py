"""The compiled model is read-only (dynamics/compiled.py): writing a table its kernels read raises, and runs of
every kind, their Results' signals, the assembly and the public dynamics functions leave the tables and every
attribute of the compiled model, and the Model's own, as compile made them."""
import numpy as np
import pytest

import mechsim as ms
from mechsim.cli.warmup import CLOSED_LOOP, CONTACTS, LOAD_FRICTION, OPEN_CHAIN


def tables(cm):
    """Every array the kernels read of a compiled model, by name."""
    named = {name: array for name, array in cm.arrays._asdict().items() if name != "nq"}
    named.update(u_const=cm.u_const, constant_targets=cm.rows.constant_targets, cut_i=cm.cut_coordinates.cut_i,
                 cut_f=cm.cut_coordinates.cut_f)
    named.update(cm.sparsity._asdict())
    return named


def test_writing_a_table_of_the_compiled_model_raises():
    cm = ms.load_dict(CLOSED_LOOP).compile()
    assert cm.arrays.node_f.size and cm.arrays.con_f.size and cm.cut_coordinates.cut_f.size
    for name, array in tables(cm).items():
        with pytest.raises(ValueError, match="read-only"):
            array[...] = 1
        assert cm.new_data().arrays.ws.flags.writeable                   # a run's arrays are its own


def closed_loop_runs(m):
    m.simulate(t_end=0.05)
    m.simulate(t_end=0.05, formulation="nullspace")
    return m.simulate(t_end=0.05, events=[ms.Event("j1.q", value=0.99999)], drift="stabilization")


RUNS = {"open chain": (OPEN_CHAIN, lambda m: m.simulate(t_end=0.05), "upper.position"),
        "closed loop": (CLOSED_LOOP, closed_loop_runs, "j3.reaction"),
        "contacts": (CONTACTS, lambda m: m.simulate(t_end=0.6), "floor.normal_force"),
        "load friction": (LOAD_FRICTION, lambda m: m.simulate(t_end=0.2), "pin.force")}


@pytest.mark.parametrize("kind", RUNS)
def test_runs_results_and_the_dynamics_functions_leave_the_compiled_model_unchanged(kind):
    model, run, signal = RUNS[kind]
    m = ms.load_dict(model)
    cm = m.compile()
    before = {name: array.copy() for name, array in tables(cm).items()}
    attributes = {name: dict(vars(x)) for name, x in (("compiled model", cm), ("model", m))}
    res = run(m)
    assert np.isfinite(res[signal]).all()
    ms.forward_dynamics(m, res.q[-1], res.v[-1], np.ones(cm.nv))
    ms.mass_matrix(m, res.q[-1])
    m.check()
    assert m.compile() is cm
    for name, array in tables(cm).items():
        assert not array.flags.writeable and np.array_equal(array, before[name]), name
    for name, x in (("compiled model", cm), ("model", m)):
        after = vars(x)
        assert after.keys() == attributes[name].keys(), name
        assert all(after[key] is value for key, value in attributes[name].items()), name
