"""The units of a model's signals (SI, "" for a pure number), component by component: what a plot labels its axes
with (viz/plot.py) and an FMU declares for its variables (io/fmu.py)."""
from ..modeling.primitives import PRIMITIVES

BODY_UNITS = {"position": ["m"] * 3, "rotation": [""] * 9, "quat": [""] * 4, "velocity": ["m/s"] * 3,
              "omega": ["rad/s"] * 3, "acceleration": ["rad/s²"] * 3 + ["m/s²"] * 3}
CONTACT_UNITS = {"normal_force": ["N"], "friction_force": ["N"] * 3, "slip_velocity": ["m/s"] * 3, "gap": ["m"],
                 "mode": [""]}
BUSHING_UNITS = {"translation": ["m"] * 3, "angles": ["rad"] * 3, "force": ["N"] * 3, "torque": ["N·m"] * 3}
WRENCH = ["N·m"] * 3 + ["N"] * 3


def signal_units(model, name):
    """The unit of each component of a signal (row-major, as in saved files; "" for a pure number),
    or None for a signal this table does not know."""
    section, owner, kind = model.compile().signals.get(name) or (None, None, None)
    if section == "joints":
        return WRENCH if kind == "reaction" else _joint_units(model.joints[owner], kind)
    if section == "constraints":
        used = model.constraints[owner].joints_used          # a coordinate coupling's multiplier
        return signal_units(model, f"joints.{used[0]}.force") if used else WRENCH
    if section == "bodies":
        return BODY_UNITS[kind]
    if section == "contacts":
        return CONTACT_UNITS[kind]
    if section == "forces":
        return _element_units(model, model.forces[owner], kind)
    return None


def _joint_units(joint, kind):
    return [u for ptype, _, _ in joint.primitives for u in PRIMITIVES[ptype].units[kind]]


def _element_units(model, element, kind):
    if element.kind == "bushing":
        return BUSHING_UNITS[kind]
    if kind == "mode":
        return [""]
    if hasattr(element, "coordinate"):                       # on one joint coordinate: its force's unit
        return [_joint_units(model.joints[element.joint], "force")[element.coordinate]]
    if element.kind == "fixed_tendon":                       # sum c_i q_i over the joints' first coordinates
        units = {_joint_units(model.joints[joint], "q")[0] for joint in element.joints}
        length = units.pop() if len(units) == 1 else ""
        return [length] if kind == "length" else [{"m": "N", "rad": "N·m"}.get(length, "")]
    return None


def coordinate_units(cm):
    """The unit of each position coordinate q of compiled model ``cm``, in q's order."""
    units = [""] * cm.nq
    for name, block in cm.joint_q.items():
        units[block] = _joint_units(cm.model.joints[name], "q")
    return units
