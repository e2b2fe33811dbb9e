"""What a switched element kind is (simulation/hybrid/__init__.py): one module — stops.py, frictions.py, contacts.py —
registered in elements.py SWITCHED_KINDS, holding its elements' rows and all of its mode logic:

- ``ELEMENTS``: the name of its list in Elements; ``rows(cm)``: its switched elements (Switched) of compiled model cm;
- ``events(modes, elements)``: the ModeEvents its elements' conditions raise in the current mode, each with the
  switch its action makes;
- ``start(modes, sim)``: its part of the mode at the start of a run (an action's handle ``sim``); True where it
  needs the mode iteration even with nothing switched;
- ``change(modes, t, y, (lam, a), log)``: the mode iteration's test of its elements at (t, y): makes one change and
  returns True, or returns False when they are consistent;
- ``logged(modes, before, why, log)``: a record of each of its elements switched since the mode ``before``;
- ``write(cm, elements, mode, data)``: what of the mode its elements' kernels read, into a run's Data (Modes.write).

Every function takes the run's Modes (its mode, its Plant, the other kinds' switches) and changes only the mode
and the state; none calls the driver."""
from ...dynamics.system import SILENT
from ...modeling.events import Event

OFF = [SILENT, 0, 0, 0], [0.0] * 4          # the compiled signal of a condition its mode does not watch


class Switched:
    """A switched element: its ``name`` and first ``row``."""

    def labelled_rows(self):
        """[(row, label)]: its rows, each with what names it within the element (Mode.names)."""
        raise NotImplementedError

    def impact_row(self, role, free):
        """Its row of Impacts.table (dynamics/impacts.py) for its event of ``role`` (resolved compiled while
        ``free``): none."""
        return [0.0] * 4


class JointRow(Switched):
    """The switched row of a joint element (a stop side, a friction's lock): its coordinate (q index qi, v index vi)
    and ``label``."""

    def __init__(self, cm, force, owner):
        self.force, self.name, self.label = force, force.name, owner[2]
        self.row = cm.rows.owner.index(owner)
        _, self.qi, self.vi = cm.coordinate_slot(force)

    def labelled_rows(self):
        return [(self.row, self.label)]


class ModeEvent(Event):
    """An event of a switched element whose compiled signal depends on the mode (``signal()``: (signal_i row,
    signal_f row) or None when it is off) and whose action ``act(sim)`` switches the mode."""
    rated = False       # its switch thresholds sit ulps off the states it switched at: its samples alone decide

    def __init__(self, element, role, direction, signal, act):
        self.element, self.role, self._signal, self._act = element, role, signal, act
        super().__init__(self._never, action=self._action, direction=direction, name=element.name)

    @staticmethod
    def _never(t, state):                          # evaluated compiled only (compiled_signal)
        raise AssertionError

    def compiled_signal(self, cm):
        """Its (signal_i row, signal_f row) in the current mode (dynamics/system.py signals); a condition off in the
        mode is SILENT."""
        rows = self._signal()
        return OFF if rows is None else rows

    def impact_row(self, free):
        """Its row of Impacts.table (dynamics/impacts.py): its element's (Switched.impact_row)."""
        return self.element.impact_row(self.role, free)

    def _action(self, sim, t, state):
        self._act(sim)
        sim.switch_mode()
