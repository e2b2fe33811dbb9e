"""Constraint rows of a compiled model: the scalar equations of the cut joints, the constraints
and the drivers, as the flat tables con_i / con_f (layout.py) the kernels in constraints.py read.

A cut joint keeps its frames F (on the parent) and M (on the child) related as the joint allows:
the components of M's origin offset along F's locked directions vanish, and M's axes keep their
angles to F's locked axes (a unit vector of F stays perpendicular to one of M).
"""
import numpy as np

from ..expressions import Expression
from ..modeling.joints import plane_axes
from . import layout as L

class ConstraintRows:
    """con_i, con_f, the targets (f, f', f'') of the rows that do not move, the owner of every row
    (name, kind, label), and the rows whose target moves with time: ``expressions`` (row, expression of
    t), evaluated by the compiled kernels, and ``timed`` (row, Motion) for the other motions, evaluated
    from Python by ``targets``."""

    def __init__(self, cm):
        self.cm = cm
        self._i, self._f, self.owner, self.motions = [], [], [], []
        model = cm.model
        for name in cm.topology.cut:
            self._cut_joint(model.joints[name])
        for constraint in model.constraints.values():
            constraint.constraint_rows(self)
        for driver in model.drivers.values():
            self.coordinate_row(driver, ("driver", driver.name, driver.joint), motion=driver.motion)
        for force in model.forces.values():             # rows held only in some modes (simulation/hybrid)
            force.constraint_rows(self)
        rates = [self._contact(contact) for contact in model.contacts.values() if contact.model == "rigid"]
        self.con_i = np.array(self._i, dtype=np.int64).reshape(-1, L.CON_I_COLS)
        self.con_f = np.zeros((len(self._f), max((f.size for f in self._f), default=L.CON_F_COLS)))
        for row, f in enumerate(self._f):             # a ROW_POLY row is wider: the others padded with zeros
            self.con_f[row, :f.size] = f
        self.constant_targets = np.zeros((len(self.owner), 3))
        moving = [(row, m) for row, m in self.motions if not m.is_constant]
        self.expressions = [(row, expression_of(m)) for row, m in moving if expression_of(m) is not None]
        self.timed = [(row, m) for row, m in moving if expression_of(m) is None]
        for row, m in self.motions:
            if m.is_constant:
                self.constant_targets[row] = m(0.0)
        for rows, rate in rates:                          # slip measured against the surface material
            self.constant_targets[rows, 1] = rate

    def coordinate_row(self, element, owner, **params):
        """A ROW_COORD row on the joint coordinate of a driver, stop or friction (CompiledModel.coordinate_slot)."""
        node, _, vi = self.cm.coordinate_slot(element)
        self._row(L.ROW_COORD, node, -1, owner, KA=vi - self.cm.node_i[node, L.VI], **params)

    def _row(self, kind, na, nb, owner, motion=None, **params):
        f = np.zeros(max([L.CON_F_COLS, *(getattr(L, key) + np.size(value) for key, value in params.items())]))
        for key, value in params.items():
            column = getattr(L, key)
            f[column:column + np.size(value)] = value
        self.owner.append(owner)
        if motion is not None:
            self.motions.append((len(self.owner) - 1, motion))
        self._i.append([kind, na, nb])
        self._f.append(f)

    def targets(self, t, out):
        """The targets of the rows moved from Python (callables, integrated or differentiated motions) at
        t, into out (n_rows, 3)."""
        for row, motion in self.timed:
            out[row] = motion(t)

    # ------------------------------------------------------------- cut joints
    def _cut_joint(self, joint):
        cm = self.cm
        na, R_na, p_na = cm._body_lookup[joint.parent]
        nb, R_nb, p_nb = cm._body_lookup[joint.child]
        (p_f, R_f), (p_m, R_m) = joint.parent_pose, joint.child_pose
        in_a, in_b = R_na @ R_f, R_nb @ R_m             # F's and M's axes in the node frames
        PA, PB = R_na @ p_f + p_na, R_nb @ p_m + p_nb
        owner = lambda k: ("joint", joint.name, f"{joint.name}[{k}]")

        rows = joint.closure()
        for k, row in enumerate(rows):
            if row[0] == "offset":                      # M's origin has no offset along F's direction
                self._row(L.ROW_POINT_DIR, na, nb, owner(k), PA=PA, PB=PB, DA=in_a @ row[1])
            elif row[0] == "angle":                     # F's u keeps its angle to M's s
                u, s = row[1], row[2]
                self._row(L.ROW_PERP, na, nb, owner(k), DA=in_a @ u, DB=in_b @ s, C0=float(u @ s))
            else:                                       # screw: slide = pitch x turn along the axis
                axis, pitch = joint.primitives[0][1:]
                e1 = plane_axes(axis)[0]
                self._row(L.ROW_SCREW, na, nb, owner(k), PA=PA, PB=PB, DA=in_a @ axis, EA=in_a @ e1,
                          DB=in_b @ e1, C1=pitch)
        if len(rows) != 6 - joint.nv:
            raise AssertionError(f"joint kind {joint.kind!r}: {len(rows)} closure rows for {joint.nv} DOF (6 - DOF needed)")

    # ------------------------------------------------------------- contacts
    def _contact(self, c):
        """A contact's rows (held in some modes only, simulation/hybrid), per point of its shape: the gap
        and the slip along t1 and t2 at the contact point (layout.py: contacts). Returns (tangent rows, their
        target rates t . surface_velocity)."""
        cm = self.cm
        na, origin = cm.body_point_in_node(c.surface, c.origin)
        code, radius, direction, e = c.surface_frame()
        axis = cm.body_direction_in_node(c.body, c.axis)
        slips = []
        for centre, labels in zip(c.points(), c.labels()):
            nb, centre = cm.body_point_in_node(c.body, centre)
            shape = dict(PA=origin, EA=cm.body_direction_in_node(c.surface, direction), PB=centre, DB=axis,
                         C1=c.radius, SURF=code, RS=radius)
            self._row(L.ROW_CONTACT_GAP, na, nb, ("contact", c.name, labels[0]), **shape)
            for k, label in enumerate(labels[1:]):
                self._row(L.ROW_CONTACT_SLIP, na, nb, ("contact", c.name, label),
                          DA=cm.body_direction_in_node(c.surface, e), TK=k + 1, **shape)
            slips += [len(self.owner) - 2, len(self.owner) - 1]
        return slips, [float(t @ c.surface_velocity) for t in c.tangents] * (len(slips) // 2)

    # ------------------------------------------------------------- rows of the constraint kinds
    def point_on_direction(self, na, nb, owner, PA, PB, DA):
        """(x_b - x_a) . d = 0: points PA on node a and PB on node b, d = DA fixed in a (node coordinates)."""
        self._row(L.ROW_POINT_DIR, na, nb, owner, PA=PA, PB=PB, DA=DA)

    def distance(self, na, nb, owner, PA, PB, length):
        """|x_b - x_a| = length(t) (a Motion)."""
        self._row(L.ROW_DISTANCE, na, nb, owner, motion=length, PA=PA, PB=PB)

    def coordinate_ratio(self, na, nb, owner, ratio, offset):
        """q_a - ratio q_b = offset between the coordinates of two one-coordinate nodes."""
        self._row(L.ROW_COORD, na, nb, owner, C1=ratio, C0=offset)

    def polynomial(self, owner, y_terms, x_terms, coefficients, y0, x0):
        """y - y0 = a0 + a1 (x - x0) + ... + a4 (x - x0)^4, y and x linear combinations of coordinates given as
        flat (q index, v index, coefficient) terms (layout.py ROW_POLY)."""
        a = np.asarray(coefficients, dtype=float)
        self._row(L.ROW_POLY, -1, -1, owner, C0=y0 + a[0], POLY_A=a[1:5], POLY_X0=x0, POLY_NY=len(y_terms) // 3,
                  POLY_NX=len(x_terms) // 3, POLY_TERMS=[*y_terms, *x_terms])


def expression_of(motion):
    """The expression of t a motion is given by as a position alone (compiled with its exact
    derivatives), else None."""
    position, velocity, acceleration = motion.sources
    if velocity is None and acceleration is None and position is not None and \
            isinstance(position.function, Expression):
        return position.function
    return None
