"""The mode of a run's switched elements as data (simulation/hybrid/__init__.py): which switched rows hold, how each
friction and contact point slips, where each stuck friction stuck; its redundancy analysis, and what of it the
kernels read, written into the run's Data."""
import numpy as np

from ...assembly.redundancy import analyse
from ...dynamics.api import constraint_values


class Mode:
    """``closed``: the held switched rows; ``slip``: friction name -> its slip direction +-1; ``stuck_at``: lock
    row -> the q it stuck at; ``sliding``: contact point key -> its slip direction (d1, d2); ``touch``: contact point
    key -> the gap at which it hits; ``due``: rows of closed contacts whose normal force was just located falling
    through zero (for the settle at that instant)."""

    def __init__(self):
        self.closed, self.slip, self.stuck_at, self.sliding = set(), {}, {}, {}
        self.touch, self.due = {}, set()

    def key(self):
        """The mode as a hashable key."""
        return frozenset(self.closed), tuple(sorted(self.slip.items())), tuple(sorted(self.sliding.items()))

    def switched(self):
        """Whether some switched row holds or something slips or slides."""
        return bool(self.closed or self.slip or self.sliding)

    def saved(self):
        """A copy of what a trial of the mode iteration changes, for ``restore``."""
        return set(self.closed), dict(self.slip), dict(self.stuck_at), dict(self.sliding)

    def restore(self, saved):
        self.closed, self.slip, self.stuck_at, self.sliding = saved

    def targets(self):
        """{row: (f, f', f'')} of the held lock rows."""
        return {row: (q, 0.0, 0.0) for row, q in self.stuck_at.items() if row in self.closed}

    def lock(self, lk, q):
        """Friction lock ``lk`` stuck at q."""
        self.slip.pop(lk.name, None)
        self.closed.add(lk.row)
        self.stuck_at[lk.row] = float(q)

    def close(self, c, slip, sticks=False):
        """Close contact point c: sticking (its tangent rows held) if ``sticks`` or its slip is zero, else sliding
        along its slip; a frictionless point (static 0) always slides."""
        self.closed.add(c.row)
        speed = np.hypot(*slip)
        if c.contact.static > 0.0 and (sticks or speed == 0.0):
            self.closed.update(c.tangents)
        else:
            self.sliding[c.key] = tuple(slip / speed) if speed > 0.0 else (1.0, 0.0)

    def open(self, c):
        """Contact point c leaves its surface."""
        self.closed.difference_update(c.rows)
        self.sliding.pop(c.key, None)

    def stick(self, c):
        """Contact point c sticks (rolls)."""
        self.sliding.pop(c.key, None)
        self.closed.update(c.tangents)

    def names(self, elements):
        """The mode by the elements' names, not their rows: (held {(name, side or label)}, {friction: q stuck})."""
        held = {(e.name, label) for e in elements.every() for r, label in e.labelled_rows() if r in self.closed}
        return held, {lk.name: self.stuck_at[lk.row] for lk in elements.locks if lk.row in self.stuck_at}

    def carried(self, before, after):
        """This mode, of the elements ``before``, on the elements ``after`` of a recompiled model."""
        held, stuck = self.names(before)
        mode = Mode()
        mode.closed = {r for e in after.every() for r, label in e.labelled_rows() if (e.name, label) in held}
        mode.slip = {lk.name: self.slip[lk.name] for lk in after.locks if self.slip.get(lk.name)}
        mode.stuck_at = {lk.row: stuck[lk.name] for lk in after.locks if lk.name in stuck}
        mode.sliding = {c.key: self.sliding[c.key] for c in after.contacts if c.key in self.sliding}
        mode.touch = dict(self.touch)
        return mode


def analysis(cm, mode, q, v, t):
    """The redundancy analysis of the mode at (q, v, t), its held switched rows included (assembly/redundancy.py)."""
    rows = np.union1d(cm.every_row, sorted(mode.closed)).astype(np.int64)
    return analyse(cm, constraint_values(cm, q, v, t, rows=rows, targets=mode.targets())[2],
                   closed=sorted(mode.closed))
