"""A run advanced in steps (an exported FMU's doStep, SPEC §3 C12): one m.simulate whose caller says how far to go
next and may hold new input values from there, the run's hybrid state — the stepper and its step size, the mode of
the stops, frictions and contacts, the events armed — kept from one step to the next. Its steps are one
m.simulate's (a step past the time asked for is read there from its dense output, Driver.advance), cut at that time
only where the step holds an event or a time stop after it, or new inputs are held there: a stepped run equals one
m.simulate to round-off, or to its tolerances. ``snapshot``/``restore`` go back to an instant reached
(fmi2Get/SetFMUstate)."""
import copy
from collections import namedtuple
from contextlib import ExitStack

import numpy as np

from ..errors import ModelError, SimulationError, StepError
from .driver import Driver, part_result
from .simulate import checked_options, initial_state

Snapshot = namedtuple("Snapshot", "t y inputs mode fired time_stops ended cm")
Snapshot.__doc__ = "What a SteppedRun needs to go on from an instant: the state, inputs and mode there."


class SteppedRun:
    """m.simulate(**options) from its start towards ``options["t_end"]`` (the steps' first guess), advanced by
    ``advance(t)``; ``signals()`` the Result of the instant reached. Nothing is recorded on the way. ``close()``
    ends it (the model's I/O links closed)."""

    def __init__(self, model, **options):
        opts = checked_options(model, {**options, "t_eval": None})
        t0, y0, analysis = initial_state(model, opts)
        opts["t_eval"] = np.array([t0])                   # the start only: a long run keeps no samples
        self.model, self.driver = model, Driver(model, opts, t0, y0, analysis)
        self._links = ExitStack()
        self._links.enter_context(self.driver.inputs.links_open())
        self._failing(self.driver.start)

    @property
    def t(self):
        """The time the run has reached (its stepper may be a step ahead, advance)."""
        return self.driver.reached

    @property
    def ended(self):
        """Whether a termination event ended the run before the time asked for."""
        return self.driver.ended

    @property
    def events(self):
        """The EventRecords so far (mode switches, user events)."""
        return self.driver.records

    def advance(self, t):
        """Go on to time t (past t_end, the run's end moves there); SimulationError if the integration fails."""
        if t < self.t:
            raise ModelError(f"advance({t!r}): the run is at t = {self.t!r}; give a later time")
        self.driver.t_end = max(self.driver.t_end, t)
        self._failing(self.driver.advance, t, True)

    def hold_inputs(self, values):
        """Input values held from the instant reached on ({input: number}); the integration restarts there, in a
        new mode if they make the current one inconsistent (a load that now exceeds static friction)."""
        self._failing(self.driver.hold_inputs, values)

    def signals(self):
        """The one-sample Result at the instant reached, in the run's mode (its constraint and friction forces)."""
        d = self.driver
        t, y = d.reached_state()
        u = np.asarray(d.inputs.force_values(t, y), dtype=float)
        return part_result(d._part(1), np.array([t]), y[None], u[None])

    def snapshot(self):
        """The run's instant: state, inputs, mode, events fired."""
        d = self.driver
        return Snapshot(*d.reached_state(), dict(d.inputs.values), copy.deepcopy(d.modes.mode),
                        d.fired.copy(), list(d.time_stops), d.ended, d.cm)

    def restore(self, snapshot):
        """Go back (or on) to a snapshot's instant and go on from there as the run did."""
        self._failing(self.driver.restore, snapshot)

    def close(self):
        self._links.close()

    def _failing(self, step, *args):
        """step(*args), a failure of the integration as m.simulate reports it."""
        try:
            step(*args)
        except (StepError, SimulationError) as exc:
            raise SimulationError(f"simulation of '{self.model.name}' failed: {exc}") from exc
