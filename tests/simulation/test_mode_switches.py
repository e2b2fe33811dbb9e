"""A run's mode switches write the run's one Data in place (simulation/driver.py _write_mode, dynamics/data.py
write_rows): the stick-slip belt (examples/stick_slip_belt.yaml), which locks and unlocks its friction about ten
times in 4 s, allocates one Data and one stepper for the whole run."""
from pathlib import Path

import mechsim as ms
from mechsim.dynamics import compiled
from mechsim.integrators import explicit

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_run_with_mode_switches_allocates_one_data_and_one_stepper(monkeypatch):
    """Counted on a second run of the model: the first also makes the Data of the one-off evaluations (assembly,
    mode logic) and of the Results' compile aside, which belong to the compiled model, not to a run."""
    m = ms.load(EXAMPLES / "stick_slip_belt.yaml")
    m.simulate(t_end=0.1)
    made = {"Data": 0, "stepper": 0}

    def counted(name, make):
        def wrapper(*args, **kwargs):
            made[name] += 1
            return make(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(compiled, "new_data", counted("Data", compiled.new_data))
    monkeypatch.setattr(explicit.CompiledStepper, "__init__", counted("stepper", explicit.CompiledStepper.__init__))
    res = m.simulate()
    assert made == {"Data": 1, "stepper": 1}
    switches = [e for e in res.events if e.kind in ("lock", "unlock")]
    assert len(switches) >= 10 and {e.kind for e in switches} == {"lock", "unlock"}
    assert set(res["friction.mode"]) == {1, 2}                  # both modes ran: slipping and stuck
