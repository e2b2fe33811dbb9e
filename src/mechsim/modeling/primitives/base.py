"""The contract of a joint primitive kind (SPEC §2: a joint is a sequence of primitives). One module per kind;
primitives/__init__.py PRIMITIVES is the registry, and a kind's code in the compiled nodes (layout.py PTYPE)
is its index there. Its kinematics in the kernels — the node's pose and motion subspace, qdot = H(q) v, q (+) dv
and the translations that place the reference point — are its branch of dynamics/kernels.py node_pose,
motion_subspace, kinematic_map, reference_point and dynamics/projection.py integrate_coordinates: cases held in
these modules and dispatched by code made a step 7-16 % slower in the paired benchmark.
tests/dynamics/test_primitive_kinds.py checks every registered kind's branches against each other."""
import numpy as np

ANGULAR = {"q": ["rad"], "v": ["rad/s"], "a": ["rad/s²"], "force": ["N·m"]}
LINEAR = {"q": ["m"], "v": ["m/s"], "a": ["m/s²"], "force": ["N"]}


class Primitive:
    """A joint primitive kind.

    ``letter`` names it (the viewer, a custom joint's spelling when ``custom``: ('R', axis), 'S'); ``nq``, ``nv``
    its coordinates; ``units`` theirs in the signals .q, .v, .a, .force; ``axial``: it moves along or about an
    axis (custom joints give one); ``turns``: a rotation about its axis (R, H), ``screw``: with a slide of
    pitch times the turn along it (H; the other kinds' pitch is 0); ``slides``: translations
    (P, T), ``slide_axes(axis)`` their directions; ``quaternion``: its q is a unit quaternion (S), whose
    coordinates are not v's; ``load_friction``: how a joint_friction with mu= takes the joint's load
    ("pin": mu r |F_perp| of a revolute, "guide": mu |F_perp| of a prismatic; None: it cannot)."""
    letter, custom, nq, nv = "", False, 0, 0
    units = {"q": [], "v": [], "a": [], "force": []}
    axial = turns = screw = slides = quaternion = False
    load_friction = None

    @classmethod
    def initial(cls, item, what):
        """Its part of a joint's q0 from the user's item (None: zero)."""
        return np.zeros(cls.nq) if item is None else np.array(item, dtype=float).ravel()

    @staticmethod
    def slide_axes(axis):
        return np.zeros((0, 3))
