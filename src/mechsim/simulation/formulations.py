"""The settings of the formulations of one run (SPEC §3 ``simulate(formulation=...)``), checked against
the model: what each supports, and the penalty formulation's springs.

- "lagrange": multipliers (dynamics/multipliers.py), every kind of element;
- "nullspace": independent velocities by the QTZ decomposition (dynamics/nullspace.py); joint limits,
  drivers and constant joint friction act as in "lagrange"; contacts and joint friction that grows with
  the load need the multipliers' friction directions and are refused;
- "penalty": the loop closures (cut joints, constraints) become spring-dampers on their violation,
  force -(k h + c hdot) per row (Khan, Tang & Krovi 2006, eq. 10; García de Jalón & Bayo 1994, §5.1.4),
  given per constraint or from a natural frequency omega and damping ratio zeta with the row's
  effective mass m = 1 / Lambda_ii (Lambda = G M^-1 G^T at the start): k = m omega^2, c = 2 zeta omega m
  (damping default: critical).
  Drivers, joint limits, frictions and contacts stay exact (multipliers). With ``iterations=n`` the
  penalty is the augmented Lagrangian's (Bayo, García de Jalón & Serna 1988, A modified Lagrangian
  formulation for the dynamic analysis of constrained mechanical systems, CMAME 71, 183–195): a mass
  penalty alpha = factor m on each row's acceleration besides the spring and damper, force
  lambda* - (alpha hddot + c hdot + k h), and up to n iterations lambda* <- lambda (dynamics/multipliers.py
  augmented_lagrangian) that converge to the exact multipliers of a violation held by
  alpha hddot + c hdot + k h = 0, with k and c as above on the mass m + alpha (default omega 10 rad/s,
  zeta 1, factor 1e6). These rows are solved with the held ones: no Lambda-free evaluation as
  with springs, but any stiffness without stiff steps, and redundant loops without a rank decision. The
  drift control projects them with the held rows (Bayo & Ledesma 1996's mass-orthogonal projections);
  with drift="none" only their own stabilization holds them.
"""
import numbers
from collections import namedtuple

import numpy as np

from ..dynamics.api import constraint_values, mass_matrix
from ..errors import ModelError, keyword
from .options import is_number

PENALIZED_OWNERS = ("joint", "constraint")     # the rows' owners the penalty formulation turns into springs
DEFAULT_PENALTY = dict(frequency=1000.0, damping_ratio=1.0)
DEFAULT_AUGMENTED = dict(frequency=10.0, damping_ratio=1.0)    # Bayo et al. 1988's Omega and mu
DEFAULT_FACTOR = 1e6                # the augmented Lagrangian's mass penalty over the rows' effective masses
KEYS = ("stiffness", "damping", "frequency", "damping_ratio", "iterations", "factor")
# The settings of one run: the penalized rows, each one's stiffness k, damping c and compliance 1 / alpha
# (0: a spring-damper), the augmented Lagrangian's iterations (0: none) and each row's frequency
# sqrt(k / (m + alpha)).
Penalty = namedtuple("Penalty", "rows stiffness damping compliance iterations omega")
# rad/s: a penalty this fast makes Radau the default solver. Explicit steps are ~3 / omega, so the compiled RK45
# costs ~omega steps a simulated second; scipy's Radau takes a few hundred, at ~3 ms each from Python. On the
# four-bar (0.2 s, rtol 1e-6): RK45 0.12 s, Radau 0.61 s at 1e5 rad/s; RK45 1.2 s, Radau 0.84 s at 1e6.
STIFF_FREQUENCY = 5e5


def check_formulation(model, opts, given):
    """ModelError when the run's formulation cannot take the model or its settings; the default solver
    of a penalty run whose springs are stiff (STIFF_FREQUENCY) becomes Radau (``given``: the options
    the call or the model file set)."""
    formulation = opts["formulation"]
    if opts["penalty"] is not None and formulation != "penalty":
        raise ModelError(f"simulate(): {keyword('penalty')}= applies to {keyword('formulation')}='penalty', not "
                         f"{formulation!r}")
    if formulation == "nullspace":
        load_frictions = [f.name for f in model.compile().load_frictions]
        refused = [f"contact '{name}'" for name in model.contacts] + [f"joint friction '{name}' (mu=)"
                                                                      for name in load_frictions]
        if refused:
            raise ModelError(f"simulate(): {keyword('formulation')}='nullspace' does not take {', '.join(refused)} "
                             "(their friction forces act along directions other than the constraints'); use "
                             f"{keyword('formulation', to_give=True)}='lagrange'")
    if formulation == "penalty" and "solver" not in given:
        cm = model.compile()
        omega = penalty_table(cm, cm.q0, opts["penalty"]).omega
        if omega.size and omega.max() > STIFF_FREQUENCY:
            opts["solver"] = "Radau"


def penalized_rows(cm):
    """The rows of the loop closures, and each one's name (the cut joint or constraint it belongs to)."""
    rows = [row for row in cm.every_row if cm.rows.owner[row][0] in PENALIZED_OWNERS]
    return np.array(rows, dtype=np.int64), [cm.rows.owner[row][1] for row in rows]


def penalty_table(cm, q, spec):
    """The Penalty of compiled model cm at positions q from the option ``spec`` (None: DEFAULT_PENALTY)."""
    spec = DEFAULT_PENALTY if spec is None else spec
    unknown = sorted(set(spec) - set(KEYS))
    if unknown:
        raise ModelError(f"simulate(): penalty= has unknown setting(s) {unknown}; give stiffness= and damping=, or "
                         "frequency= and damping_ratio=, and iterations= (with factor=) for the augmented Lagrangian")
    iterations = spec.get("iterations", 0)
    if isinstance(iterations, bool) or not isinstance(iterations, numbers.Integral) or iterations < 0:
        raise ModelError(f"simulate(): penalty iterations must be a whole number >= 0, got {iterations!r}")
    factor = spec.get("factor", DEFAULT_FACTOR)
    if "factor" in spec and not iterations:
        raise ModelError("simulate(): penalty factor= is the augmented Lagrangian's: give iterations= >= 1 with it")
    if not is_number(factor, True):
        raise ModelError(f"simulate(): penalty factor must be a finite positive number, got {factor!r}")
    if iterations and "stiffness" not in spec and "frequency" not in spec:
        spec = {**DEFAULT_AUGMENTED, **spec}
    if ("stiffness" in spec) == ("frequency" in spec):
        raise ModelError("simulate(): penalty= needs either stiffness= (N/m or N m/rad) or frequency= (rad/s)")
    rows, names = penalized_rows(cm)
    mass = effective_masses(cm, q, rows)
    # alpha; a row that moves nothing at q (a planar loop's out-of-plane rows) gets the rows' mean mass
    moving = mass[mass > 0]
    penalty_mass = factor * np.where(mass > 0, mass, moving.mean() if moving.size else 1.0) if iterations else 0 * mass
    inertia = mass + penalty_mass             # what the violation's spring moves
    values = {key: per_row(spec, key, names) for key in spec if key in KEYS[:4]}
    with np.errstate(over="ignore", invalid="ignore"):           # overflow: the ModelError below
        if "frequency" in spec:
            omega, zeta = values["frequency"], values.get("damping_ratio", np.ones(len(rows)))
            stiffness, damping = inertia * omega ** 2, 2.0 * zeta * omega * inertia
        else:
            stiffness = values["stiffness"]
            damping = values["damping"] if "damping" in values else 2.0 * np.sqrt(stiffness * inertia)  # critical
    if not (np.isfinite(stiffness).all() and np.isfinite(damping).all()):
        raise ModelError("simulate(): penalty= makes springs too stiff to represent (overflow); lower the stiffness, "
                         "frequency or factor")
    compliance = np.divide(1.0, penalty_mass, out=np.zeros_like(mass), where=penalty_mass > 0)
    omega = np.sqrt(np.divide(stiffness, inertia, out=np.zeros_like(mass), where=inertia > 0))
    return Penalty(rows, stiffness, damping, compliance, int(iterations), omega)


def per_row(spec, key, names):
    """The setting ``key`` for each penalized row: one number, or {constraint name: number}."""
    value, positive = spec[key], key != "damping"
    kind = "a finite positive number" if positive else "a finite number >= 0"
    valid = lambda x: is_number(x, positive) and (positive or x >= 0)      # noqa: E731
    if isinstance(value, dict):
        missing = sorted(set(names) - set(value))
        extra = sorted(set(value) - set(names))
        if missing or extra:
            raise ModelError(f"simulate(): penalty {key}= names {extra or missing} "
                             f"{'which are not loop closures' if extra else 'are missing'}; the loop closures "
                             f"are {sorted(set(names))}")
        bad = [name for name in value if not valid(value[name])]
        if bad:
            raise ModelError(f"simulate(): penalty {key} of {bad[0]!r} must be {kind}, got {value[bad[0]]!r}")
        return np.array([float(value[name]) for name in names])
    if not (isinstance(value, numbers.Real) and valid(value)):
        raise ModelError(f"simulate(): penalty {key} must be {kind} or {{constraint name: number}}, got {value!r}")
    return np.full(len(names), float(value))


def effective_masses(cm, q, rows):
    """1 / Lambda_ii of each row at q: the mass (or inertia) the row's constraint force moves."""
    if len(rows) == 0:
        return np.zeros(0)
    G = constraint_values(cm, q, np.zeros(cm.nv), rows=rows)[2][rows]
    M = mass_matrix(cm.model, q)
    Lambda = np.einsum("ij,ji->i", G, np.linalg.solve(M, G.T))
    return np.divide(1.0, Lambda, out=np.zeros_like(Lambda), where=Lambda > 1e-300)   # a row moving nothing: 0
