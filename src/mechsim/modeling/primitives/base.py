"""The contract of a joint primitive kind (SPEC §2: a joint is a sequence of primitives). One module per kind;
primitives/__init__.py PRIMITIVES is the registry, and a kind's code in the compiled nodes (layout.py PTYPE)
is its index there."""
from functools import cache
from typing import Callable, NamedTuple

import numpy as np

ANGULAR = {"q": ["rad"], "v": ["rad/s"], "a": ["rad/s²"], "force": ["N·m"]}
LINEAR = {"q": ["m"], "v": ["m/s"], "a": ["m/s²"], "force": ["N"]}


class Case(NamedTuple):
    """A primitive's kernel cases (dynamics/kernels.py dispatches on the node's code), each taking one tuple:

    move((a, pitch, q, qi, RF, RJ, axis, pF, R, p, S)): the node's world rotation R and origin p from its joint
    frame F (rotation RF, origin pF), its axis (a in F, ``axis`` in world), pitch and q (RJ: the joint's rotation),
    then the nv columns of its motion subspace S at the reference point (world axes), fixed in the node's frame:
    the kernels take Sdot = v x S (Wood & Kennedy 2003, §2.1).
    rate((q, v, qi, vi, qdot)): qdot = H(q) v.     advance((q, dv, qi, vi)): q <- q (+) dv.
    slide((a, q, qi)): (whether the primitive translates, its translation in F's axes), for reference_point."""
    move: Callable
    rate: Callable
    advance: Callable
    slide: Callable


class Primitive:
    """A joint primitive kind.

    ``letter`` names it (the viewer, a custom joint's spelling when ``custom``: ('R', axis), 'S'); ``nq``, ``nv``
    its coordinates; ``units`` theirs in the signals .q, .v, .a, .force; ``axial``: it moves along or about an
    axis (custom joints give one); ``turns``: a rotation about its axis (R, H); ``slides``: translations
    (P, T), ``slide_axes(axis)`` their directions; ``quaternion``: its q is a unit quaternion (S), whose
    coordinates are not v's; ``load_friction``: how a joint_friction with mu= takes the joint's load
    ("pin": mu r |F_perp| of a revolute, "guide": mu |F_perp| of a prismatic; None: it cannot)."""
    letter, custom, nq, nv = "", False, 0, 0
    units = {"q": [], "v": [], "a": [], "force": []}
    axial = turns = slides = quaternion = False
    load_friction = None

    @classmethod
    def initial(cls, item, what):
        """Its part of a joint's q0 from the user's item (None: zero)."""
        return np.zeros(cls.nq) if item is None else np.array(item, dtype=float).ravel()

    @staticmethod
    def slide_axes(axis):
        return np.zeros((0, 3))

    @staticmethod
    def kernel(inline):
        """Case, the kernels compiled by ``inline`` (numba's njit with the options dynamics/kernels.py inlines
        with); numba is imported here, not with the modeling layer."""
        raise NotImplementedError


@cache
def fixed_kernels(inline):
    """(keep_frame, no_rate, no_advance, no_slide): the cases of a primitive that does not move in that way (R = RF
    and p = pF with no column of S, ...); made once, so that the kinds share them (and their branch of the kernels'
    dispatch)."""
    @inline
    def keep_frame(args):
        a, pitch, q, qi, RF, RJ, axis, pF, R, p, S = args
        for r in range(3):
            p[r] = pF[r]
            for k in range(3):
                R[r, k] = RF[r, k]

    @inline
    def no_rate(args):
        pass

    @inline
    def no_slide(args):
        return False, 0.0, 0.0, 0.0

    return keep_frame, no_rate, no_rate, no_slide


@cache
def copy_kernels(inline, n):
    """(rate, advance) of n coordinates that are v's own: qdot = v, q <- q + dv; made once for each n, shared."""
    @inline
    def rate(args):
        q, v, qi, vi, qdot = args
        for k in range(n):
            qdot[qi + k] = v[vi + k]

    @inline
    def advance(args):
        q, dv, qi, vi = args
        for k in range(n):
            q[qi + k] += dv[vi + k]

    return rate, advance
