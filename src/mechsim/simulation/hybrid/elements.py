"""The switched elements of a compiled model and their constraint rows (dynamics/closure.py): a rigid stop's side
(q - value = 0 while closed), a joint friction's lock (q - q_stuck = 0 while stuck) and a rigid contact point's
normal and two tangent rows."""


class Switched:
    """A switched row of one element: the row, its coordinate (q index qi, v index vi)."""

    def __init__(self, cm, force, owner):
        self.force, self.name = force, force.name
        self.row = cm.rows.owner.index(owner)
        _, self.qi, self.vi = cm.coordinate_slot(force)


class StopSide(Switched):
    """One side of a rigid stop; sign +1 for lower (the stop pushes q up), -1 for upper."""

    def __init__(self, cm, force, side, value, sign):
        super().__init__(cm, force, ("limit", force.name, side))
        self.side, self.value, self.sign = side, value, sign


class Lock(Switched):
    """The lock row of a joint friction; ``load`` its row in ConstraintWorkspace.friction when its levels
    grow with the joint's load, else None."""

    def __init__(self, cm, force):
        super().__init__(cm, force, ("lock", force.name, "lock"))
        self.node = cm.joint_nodes[force.joint][force.primitive]
        self.load = cm.load_frictions.index(force) if force.loaded else None


class ContactRows:
    """The rows of one point of a contact (dynamics/closure.py: a box has eight): its gap row, its slip
    rows t1 and t1 + 1; ``key`` names the point (the contact's name, with a box corner's index)."""

    def __init__(self, cm, contact, labels):
        self.contact, self.name, self.labels = contact, contact.name, labels
        self.key = contact.name + labels[0][len("normal"):]
        self.row = cm.rows.owner.index(("contact", contact.name, labels[0]))
        self.t1 = self.row + 1
        self.tangents = [self.t1, self.t1 + 1]
        self.rows = [self.row] + self.tangents


class Elements:
    """The switched elements of a compiled model: ``sides`` of rigid stops, ``locks`` of exact joint frictions,
    ``contacts``, the points of rigid contacts, and ``groups``, each contact's points by its name; ``nq``, and
    ``friction``, the load frictions' table (CompiledModel.friction_table)."""

    def __init__(self, cm):
        forces = cm.model.forces.values()
        self.sides = [StopSide(cm, f, side, value, sign) for f in forces if f.kind == "joint_limit" and f.rigid
                      for side, value, sign in f.stops()]
        self.locks = [Lock(cm, f) for f in forces if f.kind == "joint_friction" and f.exact]
        self.contacts = [ContactRows(cm, c, labels) for c in cm.model.contacts.values() if c.model == "rigid"
                         for labels in c.labels()]
        self.groups = {}
        for c in self.contacts:
            self.groups.setdefault(c.name, []).append(c)
        self.nq, self.friction = cm.nq, cm.friction_table()
