"""Modes of a run (SPEC §3 ``joint_limit``, ``joint_friction``, ``add_contact``): rigid stops, joint
stiction and contacts as constraint rows held in some modes only, switched by events and settled by a
mode iteration.

A mode (mode.py) is the set of switched rows that hold (dynamics/closure.py: a stop side's row q - value = 0,
a friction's lock row q - q_stuck = 0, a contact point's normal and tangent rows) and the slip direction of each
slipping friction and sliding contact. Each kind of switched element is one module holding its rows, events,
switches and tests (switched.py: the contract; elements.py SWITCHED_KINDS: stops.py, frictions.py, contacts.py).
The run driver watches, compiled, the events of the current mode:

- a stop side, open: *hit* when q crosses the stop towards it. Newton's impact law (Glocker &
  Pfeiffer 1995; Brogliato, *Nonsmooth Mechanics*, 2016, §4.2) over every row that holds: the
  post-impact velocities v+ solve  M (v+ - v-) = A^T p,  A v+ = b,  b = f' for the rows that always
  hold, 0 for the other held switched rows and -e (A v-) for the hitting row — the impulse form of
  M vdot = f + G^T lambda (Wood & Kennedy 2003, eqs. 11–14; impulses.py). Kinetic energy never grows for
  e <= 1 and is kept for e = 1. A rebound slower than the stop's min_bounce_speed closes it.
- a stop side, closed: *release* when its force (the row's multiplier, positive pushing) falls
  through zero.
- a friction, slipping in direction d (kinetic friction -d F_k as a generalized force): *stick*
  when its velocity reaches zero.
- a friction, stuck: *unlock* when its holding force |lambda| reaches the static level F_s
  (stops.py, frictions.py; records "limit" for stops, "lock"/"unlock" for friction).
- a contact (modeling/contacts), open: *hit* when its gap crosses zero: Newton's law on its normal
  row with a sticking impulse (slip after = 0) if that lies in the static friction cone, else a
  sliding one; it closes below min_bounce_speed, else bounces. The impact is passed on through the
  contacts resting at its instant: they are free during it and strike in turn if it leaves them
  approaching (Newton's cradle).
- a contact, closed: *separate* when its normal force falls through zero; sticking or rolling (its
  two tangent rows held): *slide* when |lambda_t| reaches mu_s lambda_n; sliding (kinetic friction
  -mu_k lambda_n s through the force directions of dynamics/multipliers.py): *stick* when the slip
  along its direction falls through zero (contacts.py; records "impact", "contact", "separate", "slide",
  "stick").

At every switch the mode iteration (iteration.py, Wood & Kennedy 2003 §6) finds a consistent mode before the
integration restarts, with one complementarity solve where it cycles (complementarity.py).

The driver sees ``Modes``: the elements, their events and the mode, run on one Plant (simulation/plant.py: the
compiled model, the run's Data, evaluations), into whose Data a mode is written in place — rows, lock targets,
friction forces, sliding contacts, the events' compiled signals — so that a switch allocates no Data and the
stepper goes on. A switch takes the state (and the action's handle) and returns the state and records; it never
calls the driver.
"""
from ...dynamics.data import LAGRANGE, NULLSPACE, write_rows
from ...dynamics.impacts import new_impacts
from ...dynamics.nullspace import VALID
from .contacts import ContactSwitches
from .elements import SWITCHED_KINDS, Elements, mode_events
from .impulses import ImpactLaws
from .iteration import consistent, settle, start
from .mode import Mode, analysis


class Modes:
    """The switched elements of a compiled model (elements.py), their Mode, events and switches; ``previous``: the
    Modes of the model before an action recompiled it, whose mode goes on."""

    def __init__(self, cm, previous=None):
        self.elements = Elements(cm)
        self.mode = Mode() if previous is None else previous.mode.carried(previous.elements, self.elements)
        self.laws = ImpactLaws(self.mode)
        self.contacts = ContactSwitches(self.elements, self.mode, self.laws)
        self.events = mode_events(self)
        self.plant, self.signal_rows = None, []

    def new_impacts(self, n_signals):
        """The Impacts of a Data with ``n_signals`` compiled event signals (dynamics/impacts.py), none resolved
        compiled until ``write``; None without rigid contacts."""
        if not self.elements.contacts:
            return None
        return new_impacts([[0.0] * 4] * n_signals, [c.row for c in self.elements.contacts])

    def use(self, plant, signal_rows, active):
        """Run on ``plant`` from now on, the compiled signals of the events at ``signal_rows`` of its Data, in the
        current mode with the rows ``active`` (write)."""
        self.plant, self.signal_rows = plant, signal_rows
        self.write(active)

    def write(self, active):
        """The mode into the run's Data, in place: its rows (``active``: its redundancy analysis; dynamics/data.py
        write_rows), lock targets, friction forces and sliding contacts (each kind's write), its events'
        compiled signals and the contact points' hits resolved compiled (while no switched row holds and nothing
        slips, in the Lagrange formulation); a null-space chart made on other rows is dropped."""
        cm, data = self.plant.cm, self.plant.data
        write_rows(cm, data, active)
        for kind in SWITCHED_KINDS:
            kind.write(cm, self.elements, self.mode, data)
        free = data.formulation == LAGRANGE and not self.mode.switched()
        for event, row in zip(self.events, self.signal_rows):
            data.signal_i[row], data.signal_f[row] = event.compiled_signal(cm)
            if data.impacts is not None:
                data.impacts.table[row] = event.impact_row(free)
        if data.formulation == NULLSPACE:
            data.ns.meta[VALID] = 0

    def use_mode(self, t, y):
        """Run in the current mode from now on: its redundancy analysis at (t, y) and the mode written into the
        run's Data. Returns y projected onto its rows."""
        nq = self.elements.nq
        self.write(self.analysis(self.plant.cm, y[:nq], y[nq:], t).active)
        y = y.copy()
        self.plant.correct(t, y)
        return y

    def analysis(self, cm, q, v, t):
        """The redundancy analysis of the current mode of compiled model cm at (q, v, t)."""
        return analysis(cm, self.mode, q, v, t)

    def start(self, sim):
        """The mode at the start of a run, through the action's handle ``sim`` (iteration.py start)."""
        start(self, sim)

    def settle(self, t, y, fresh=False):
        """(y projected, EventRecords) of the mode iteration at (t, y) (iteration.py settle)."""
        return settle(self, t, y, fresh)

    def consistent(self, t, y):
        return consistent(self, t, y)

    def targets(self):
        """{row: (f, f', f'')} of the held lock rows (for the Result of this mode)."""
        return self.mode.targets()

    def described(self):
        """(the mode's key, the contact points' hit gaps): what tells two modes apart."""
        return self.mode.key(), dict(self.mode.touch)

    def rearmed(self, key, gap):
        """Contact point ``key`` hits next at ``gap`` (a bounce the compiled loop resolved re-armed it)."""
        self.mode.touch[key] = gap

    def added_contacts(self, t, y, before):
        """Contacts an action added (their names not in ``before``): each point must start on or off its
        surface, and hits when its gap falls below where it starts."""
        self.contacts.added(self.plant, t, y, before)
