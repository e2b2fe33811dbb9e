"""The three formulations of simulate (SPEC §3 C4): the null-space (QTZ) formulation against the
multiplier formulation and the published references (Khan, Tang & Krovi 2006's four-bar; Andrews'
squeezer; Bricard; the five-bar of Del Citto, Pennestrì & Vita with 7 redundant constraints; the N
four-bar through its singular flat positions), and the penalty formulation's springs (error as 1/k,
effective masses, the implicit solver it asks for)."""
import json
import sys
import warnings

import numpy as np
import pytest

import mechsim as ms
from mechsim.simulation.problem import derivative, system
from mechsim.status import OK
from mechsim.simulation.formulations import effective_masses, penalty_table

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "examples"))
from example_helpers import EXAMPLES, cached, script  # noqa: E402

FOUR_BAR_REFERENCE = json.loads((EXAMPLES / "reference" / "four_bar.json").read_text())


def four_bar():
    return ms.load(EXAMPLES / "four_bar.yaml")


def angles(res):
    """Absolute crank, coupler and rocker angles (the reference's theta, alpha, phi)."""
    return np.column_stack([res["j1.q"], res["j1.q"] + res["j2.q"], res["j4.q"]])


def reference_angles(k):
    ref = FOUR_BAR_REFERENCE
    return np.array([ref["crank"][k], ref["coupler"][k], ref["rocker"][k]])


# ------------------------------------------------------------------------------------- null space
def nullspace_four_bar():
    return cached("nullspace_four_bar", lambda: four_bar().simulate(
        t_end=10.0, formulation="nullspace", solver="DOP853", rtol=1e-11, atol=1e-11, t_eval=np.arange(11.0)))


def test_nullspace_four_bar_reaches_the_reference_crank_angle_at_10_s():
    res = nullspace_four_bar()
    assert abs(res["j1.q"][-1] - FOUR_BAR_REFERENCE["crank"][-1]) < 1e-6
    err = np.abs(angles(res) - np.array([reference_angles(k) for k in range(11)]))
    err[:, 1:] = np.abs((err[:, 1:] + np.pi) % (2 * np.pi) - np.pi)       # coupler, rocker: modulo turns
    assert err.max() < 1e-6


def test_nullspace_holds_the_loop_by_its_newton_solve_alone():
    res = nullspace_four_bar()
    assert np.max(res.constraint_error) < 1e-10


def test_nullspace_agrees_with_lagrange_in_every_signal():
    t = np.linspace(0.0, 1.0, 11)
    runs = [four_bar().simulate(t_end=1.0, t_eval=t, formulation=f, rtol=1e-11, atol=1e-11)
            for f in ("lagrange", "nullspace")]
    for name in ("j1.q", "j4.v", "j2.a", "j3.reaction", "rocker.position"):
        a, b = (np.asarray(r[name]) for r in runs)
        assert np.abs(a - b).max() <= 1e-6 * max(1.0, np.abs(a).max()), name


@pytest.mark.parametrize("case, redundant", [("five_bar", 7), ("bricard", 1)])
def test_nullspace_matches_lagrange_on_redundant_loops(case, redundant):
    """Del Citto et al.'s five-bar (7 redundant constraints) and Bricard's 6R loop (1): the QTZ drops them."""
    m = ms.load(EXAMPLES / f"{case}.yaml")
    assert len(m.check().redundant) == redundant
    t = np.linspace(0.0, 1.0, 11)
    lagrange = m.simulate(t_end=1.0, t_eval=t, rtol=1e-10, atol=1e-12)
    nullspace = m.simulate(t_end=1.0, t_eval=t, rtol=1e-10, atol=1e-12, formulation="nullspace")
    assert np.abs(nullspace.q - lagrange.q).max() < 1e-7
    assert np.max(nullspace.constraint_error) < 1e-10


def test_nullspace_driven_five_bar_follows_its_driver():
    m = ms.load(EXAMPLES / "five_bar.yaml")
    m.add_driver("a1", position="-0.7853981633974483 + 6.28 * t")
    res = m.simulate(t_end=1.0, formulation="nullspace", t_eval=np.linspace(0, 1, 11))
    assert np.abs(res["a1.q"] - (-np.pi / 4 + 6.28 * res.t)).max() < 1e-9
    assert np.abs(res["a3.q"] - res["a1.q"]).max() < 1e-9                 # the cranks stay parallel


def test_nullspace_andrews_reaches_the_published_angles_at_t_003():
    m = ms.load(EXAMPLES / "andrews_squeezer.yaml")
    sim = script("andrews_squeezer")
    res = sim.simulate(m, t_end=0.03, formulation="nullspace")
    q, _ = sim.coordinates(res)
    assert np.abs(q - sim.reference()["t=0.03"]["q"]).max() < 1e-5


def test_nullspace_passes_the_n_four_bar_singular_positions():
    """The parallelogram motion's feasible direction does not turn in joint coordinates: one chart serves
    through the flat positions, where the loops' Jacobian loses rank (IFToMM A02)."""
    n_four_bar = script("n_four_bar")
    m = n_four_bar.build_model(n=4)
    t = np.linspace(0.0, 3.0, 61)
    res = m.simulate(t_end=3.0, t_eval=t, rtol=1e-10, atol=1e-12, formulation="nullspace")
    phi, _ = n_four_bar.exact_solution(t, n=4)
    assert n_four_bar.flat_crossings(phi) >= 2
    assert np.abs(res["a0.q"] - phi).max() < 1e-6
    assert np.max(res.constraint_error) < 1e-9


def test_lagrange_says_when_it_passed_near_a_singular_position_and_nullspace_does_not_need_to():
    """Near the N four-bar's flat position, Lambda = G M^-1 G^T (whose eigenvalues are the squares of G's
    singular values) falls below the multiplier solve's rank tolerance: the truncated QR drops the loops'
    nearly dependent directions with their constraint forces (README: singular positions). Started 3e-5
    rad from flat, inside that window, swinging through it, the run counts those evaluations (and rejects
    steps: 103 evaluations against 16) and warns, naming the null-space formulation, which decomposes G
    itself and passes the same motion without a warning, to 1e-9 rad of the same end. Only a fallback
    from the independent rows' Cholesky counts: a run that asks for the truncated QR itself, whose every
    solve drops the dependent row of Bricard's redundant loop, neither counts nor warns."""
    m = script("n_four_bar").build_model(n=4)
    for joint in m.joints.values():            # phi = -pi/2 + 3e-5 moving at -4 rad/s: the h joints opposite
        sign = -1.0 if joint.name.startswith("h") else 1.0
        joint.q0, joint.v0 = sign * (-np.pi / 2 + 3e-5), sign * -4.0
    with pytest.warns(UserWarning, match="passed near a singular position.*formulation='nullspace'"):
        res = m.simulate(t_end=0.05, rtol=1e-8, atol=1e-8)
    assert res.success and res.stats["near_singular"] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nullspace = m.simulate(t_end=0.05, rtol=1e-8, atol=1e-8, formulation="nullspace")
        redundant = script("bricard").build_model().simulate(t_end=1.0, constraint_solver="qr")
    assert nullspace.success and redundant.success
    assert nullspace.stats["near_singular"] == 0 and redundant.stats["near_singular"] == 0
    assert nullspace.stats["rhs_evaluations"] < res.stats["rhs_evaluations"] / 3
    assert abs(nullspace["a0.q"][-1] - res["a0.q"][-1]) < 1e-9


def test_nullspace_started_at_a_singular_position_re_chooses_its_independent_set_and_says_so():
    """Started lying flat, the N four-bar's chart has N + 1 feasible motions; moving off, the loops'
    rows taken as dependent become independent: a new chart, logged, and the parallelogram motion
    (a pendulum equation) followed. At the singular start the accelerations along the N lost
    directions are not determined by the first-order constraints (both formulations take the
    minimum-norm ones), so the run leaves the start slightly off the branch: 4e-5 rad here, against
    2e-2 rad for the multiplier formulation."""
    from scipy.integrate import solve_ivp
    n, n_four_bar = 3, script("n_four_bar")
    m = n_four_bar.build_model(n=n)
    for joint in m.joints.values():            # phi = -pi/2: cranks lying along -x, couplers along +x
        joint.q0 = -np.pi / 2 if joint.name.startswith(("a", "b")) else np.pi / 2
    t = np.linspace(0.0, 1.0, 21)
    res = m.simulate(t_end=1.0, t_eval=t, rtol=1e-10, atol=1e-12, formulation="nullspace")
    inertia, moment = (n + 1) / 3 + n, 9.81 * ((n + 1) / 2 + n)
    exact = solve_ivp(lambda _, y: [y[1], moment * np.sin(y[0]) / inertia], (0, 1), [-np.pi / 2, -1.0], t_eval=t,
                      rtol=1e-12, atol=1e-12).y[0]
    assert np.abs(res["a0.q"] - exact).max() < 1e-4
    assert np.max(res.constraint_error) < 1e-9
    repartitions = [e for e in res.events if e.kind == "repartition"]
    assert repartitions and repartitions[0].name == "nullspace"
    assert "became independent" in repartitions[0].detail and repartitions[0].time < 0.1


def test_nullspace_with_a_joint_stop_in_the_loop_matches_lagrange():
    """A rigid stop on the rocker: impacts (multipliers of the closed loop with the stop's row) and resting
    phases where the stop's row joins the chart's rows."""
    runs = []
    for formulation in ("lagrange", "nullspace"):
        m = four_bar()
        m.add_force("stop", "joint_limit", joint="j4", upper=1.9, restitution=0.5)
        runs.append(m.simulate(t_end=2.5, formulation=formulation, rtol=1e-10, atol=1e-10, t_eval=[2.5]))
    limits = [[e.time for e in r.events if e.kind == "limit"] for r in runs]
    assert len(limits[0]) >= 1 and len(limits[0]) == len(limits[1])
    assert np.allclose(limits[0], limits[1], atol=1e-6)
    assert np.abs(runs[0].q - runs[1].q).max() < 1e-5


@pytest.mark.parametrize("options", [dict(formulation="nullspace"), dict(formulation="penalty"),
                                     dict(formulation="penalty", penalty=dict(iterations=2))])
def test_every_formulation_runs_an_open_tree_as_lagrange_does(options):
    """Without loops there is nothing to reduce or penalize: an open tree (the spherical pendulum with its
    flywheel, QTZ example) runs the tree's dynamics alone under every formulation."""
    m = ms.load(EXAMPLES / "spherical_pendulum_flywheel.yaml")
    assert m.compile().is_tree
    settings = dict(t_end=0.5, solver="DOP853", rtol=1e-9, atol=1e-11)
    res, reference = m.simulate(**settings, **options), m.simulate(**settings)
    np.testing.assert_array_equal(res.q, reference.q)
    np.testing.assert_array_equal(res.v, reference.v)


@pytest.mark.parametrize("solver, extra", [("RK4", dict(h=1e-3)), ("Radau", {}), ("RK45", dict(backend="python"))])
def test_nullspace_runs_with_fixed_step_implicit_and_python_solvers(solver, extra):
    res = four_bar().simulate(t_end=1.0, formulation="nullspace", solver=solver, t_eval=[1.0], **extra)
    assert abs(res["j1.q"][-1] - FOUR_BAR_REFERENCE["crank"][1]) < 1e-4
    assert np.max(res.constraint_error) < 1e-10


def test_method_b_holds_the_loop_by_its_velocities_alone():
    """Khan, Tang & Krovi's method B with fixed RK4 steps of 1e-3 s: no Newton, velocities consistent at
    every evaluation; the loop stays closed to integration error (their Fig. 10b: ~1e-12 m)."""
    for sigma in (10.0, 60.0):
        res = four_bar().simulate(t_end=2.0, formulation="nullspace", drift="baumgarte", sigma=sigma, solver="RK4",
                                  h=1e-3, t_eval=np.linspace(0, 2, 201))
        assert np.max(res.constraint_error) < 1e-7
        assert abs(res["j1.q"][-1] - FOUR_BAR_REFERENCE["crank"][2]) < 1e-6


def test_method_b_removes_a_violation_at_the_rate_sigma():
    """Eq. 11 of Khan, Tang & Krovi: Cdot + sigma C = 0, so a violation decays as exp(-sigma t); without
    stabilization (drift="none") it stays."""
    import types
    m = four_bar()
    state = m.assemble()
    q = state.q.copy()
    q[m.coordinates()[0].index("j4.q")] += 1e-3
    start = types.SimpleNamespace(q=q, v=state.v, t=0.0, analysis=state.analysis)
    t = np.linspace(0.0, 0.3, 4)
    for drift, sigma, rate in (("baumgarte", 10.0, 10.0), ("baumgarte", 40.0, 40.0), ("none", 10.0, 0.0)):
        res = m.simulate(t_end=0.3, formulation="nullspace", drift=drift, sigma=sigma, solver="RK4", h=1e-3,
                         t_eval=t, initial=start)
        assert res.constraint_error[0] > 1e-3
        assert np.allclose(-np.diff(np.log(res.constraint_error)) / 0.1, rate, rtol=1e-3, atol=1e-6)


# ------------------------------------------------------------------------------------- penalty
def test_penalty_constraint_error_falls_as_one_over_k():
    errors = []
    for k in (1e4, 1e5, 1e6):
        res = four_bar().simulate(t_end=1.0, formulation="penalty", penalty=dict(stiffness=k, damping=2e2),
                                  solver="Radau", rtol=1e-8, atol=1e-10, t_eval=np.linspace(0.5, 1.0, 51))
        errors.append(np.mean(res.constraint_error))
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    assert np.all((ratios > 6.0) & (ratios < 14.0)), ratios


def test_penalty_converges_to_the_rigid_motion():
    res = four_bar().simulate(t_end=1.0, formulation="penalty", penalty=dict(stiffness=1e7, damping=1e3),
                              solver="Radau", rtol=1e-9, atol=1e-11, t_eval=[1.0])
    assert np.abs(angles(res)[-1] - reference_angles(1)).max() < 1e-4


def test_penalty_reactions_are_the_springs_forces():
    res = four_bar().simulate(t_end=0.5, formulation="penalty", penalty=dict(stiffness=1e6, damping=1e3),
                              t_eval=[0.5])
    rigid = four_bar().simulate(t_end=0.5, t_eval=[0.5])
    a, b = np.asarray(res["j3.reaction"])[-1], np.asarray(rigid["j3.reaction"])[-1]
    assert np.abs(a - b).max() < 1e-2 * np.abs(b).max()


def test_penalty_from_frequency_uses_each_rows_effective_mass():
    m = four_bar()
    cm = m.compile()
    rows, k, c, compliance, iterations, omega = penalty_table(cm, cm.q0, dict(frequency=300.0, damping_ratio=0.5))
    assert not compliance.any() and iterations == 0           # springs: no augmented Lagrangian
    mass = effective_masses(cm, cm.q0, rows)
    # the cut revolute j3 gives 5 rows; in the plane only the 2 of the pin's position move anything
    assert len(rows) == 5 and np.count_nonzero(mass > 0) == 2
    G = ms.dynamics.api.constraint_values(cm, cm.q0, np.zeros(cm.nv), rows=rows)[2][rows]
    M = ms.dynamics.api.mass_matrix(four_bar(), cm.q0)
    for row, g in zip(mass, G):                  # 1 / (g M^-1 g^T): the mass the row's force moves
        assert row == pytest.approx(1 / (g @ np.linalg.solve(M, g)) if np.abs(g).max() > 0 else 0.0)
    assert np.allclose(k, mass * 300.0 ** 2) and np.allclose(c, 2 * 0.5 * 300.0 * mass)
    assert np.allclose(omega[mass > 0], 300.0)


def test_penalty_per_constraint_stiffness_and_default_damping_is_critical():
    cm = four_bar().compile()
    rows, k, c = penalty_table(cm, cm.q0, dict(stiffness={"j3": 2e5}))[:3]
    mass = effective_masses(cm, cm.q0, rows)
    assert np.allclose(k, 2e5) and np.allclose(c, 2 * np.sqrt(2e5 * mass))


def test_stiff_penalty_pairs_with_an_implicit_solver_unless_one_is_given():
    m = four_bar()
    del m.simulation["solver"]                   # the file names DOP853
    stiff = dict(formulation="penalty", penalty=dict(frequency=1e6), t_end=0.02, rtol=1e-6, atol=1e-8)
    assert m.simulate(**stiff).stats["solver"] == "Radau"
    assert m.simulate(**stiff, solver="DOP853").stats["solver"] == "DOP853"
    assert m.simulate(formulation="penalty", t_end=0.02).stats["solver"] == "RK45"
    assert four_bar().simulate(**stiff).stats["solver"] == "DOP853"            # the file names it


# ------------------------------------------------------------------------------------- augmented Lagrangian
def accelerations(cm, penalty, q, v):
    """vdot of the penalty formulation with the given Penalty at (q, v), t = 0."""
    data = cm.new_data(formulation="penalty", penalty=penalty, drift="none")
    dy = np.zeros(cm.nq + cm.nv)
    assert derivative(system(cm.arrays, data, cm.is_tree), 0.0, np.concatenate([q, v]), dy) == OK
    return dy[cm.nq:]


@pytest.mark.parametrize("iterations", [1, 2, 4])
def test_augmented_lagrangian_is_the_books_iteration_on_the_mass_matrix(iterations):
    """(M + G^T alpha G) qdd_0 = Q + G^T (alpha gamma - c hdot - k h), then (M + G^T alpha G) qdd_{j+1} = M qdd_j
    + G^T (alpha gamma - c hdot - k h) (García de Jalón & Bayo 1994; Bayo, García de Jalón & Serna 1988), in
    dense matrices, against the kernel's solves by the matrix inversion lemma; factor 2 converges slowly
    (1/3 an iteration), so that every iteration shows, at a state off the constraints."""
    m = four_bar()
    cm = m.compile()
    q, v = cm.q0 + np.array([0.01, -0.02, 0.015]), np.array([3.0, -1.0, 2.0])
    p = penalty_table(cm, cm.q0, dict(iterations=iterations, factor=2.0, frequency=30.0, damping_ratio=0.7))
    rows = p.rows
    tree = p._replace(stiffness=0 * p.stiffness, damping=0 * p.damping, compliance=0 * p.compliance, iterations=0)
    M = ms.dynamics.api.mass_matrix(m, q)
    Q = M @ accelerations(cm, tree, q, v)        # free springs: the tree's accelerations
    h, hd, _ = ms.dynamics.api.constraint_values(cm, q, v, rows=rows)
    G, gamma = ms.dynamics.api.constraint_accelerations(cm, q, v, rows=rows)
    G, gamma, h, hd, alpha = G[rows], gamma[rows], h[rows], hd[rows], 1 / p.compliance
    assert np.abs(h).max() > 1e-3
    A, b = M + G.T @ (alpha[:, None] * G), G.T @ (alpha * gamma - p.damping * hd - p.stiffness * h)
    qdd = np.linalg.solve(A, Q + b)
    for _ in range(iterations):
        qdd = np.linalg.solve(A, M @ qdd + b)
    assert np.allclose(accelerations(cm, p, q, v), qdd, rtol=1e-9, atol=1e-9)


def test_augmented_lagrangian_error_falls_by_the_factor_at_each_iteration():
    """An iteration multiplies the error of lambda by 1 / (1 + factor) on a row of one effective mass: the
    constraint error falls ~10x an iteration at factor 9 (no projection, which would hide it)."""
    errors = []
    for iterations in (1, 2, 3):
        res = four_bar().simulate(t_end=1.0, formulation="penalty", t_eval=np.linspace(0.5, 1.0, 51), drift="none",
                                  penalty=dict(iterations=iterations, factor=9.0), rtol=1e-10, atol=1e-12)
        errors.append(np.mean(res.constraint_error))
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    assert np.all((ratios > 5.0) & (ratios < 20.0)), ratios


def test_augmented_lagrangian_holds_the_loop_as_the_multipliers_do_at_a_frequency_of_10_rad_s():
    """Default settings (10 rad/s, factor 1e6), no projection: the four-bar as with Lagrange multipliers, the
    loop held to the integration's tolerance by the converged forces alone, where springs of 1000 rad/s leave
    it 1e-4 open; no stiff solver asked for."""
    m = four_bar()
    del m.simulation["solver"]
    t = np.linspace(0.0, 2.0, 21)
    augmented = m.simulate(t_end=2.0, formulation="penalty", penalty=dict(iterations=3), t_eval=t, rtol=1e-10,
                           atol=1e-12, drift="none")
    assert augmented.stats["projections"] == 0
    springs = m.simulate(t_end=2.0, formulation="penalty", t_eval=t, rtol=1e-10, atol=1e-12)
    lagrange = m.simulate(t_end=2.0, t_eval=t, rtol=1e-10, atol=1e-12)
    assert augmented.stats["solver"] == "RK45"
    assert np.abs(augmented.q - lagrange.q).max() < 1e-7
    assert np.max(augmented.constraint_error) < 1e-9 < 1e-4 < np.max(springs.constraint_error)
    a, b = np.asarray(augmented["j3.reaction"]), np.asarray(lagrange["j3.reaction"])
    assert np.abs(a - b).max() < 1e-6 * np.abs(b).max()


@pytest.mark.parametrize("case, redundant", [("five_bar", 7), ("bricard", 1)])
def test_augmented_lagrangian_takes_redundant_loops_whole(case, redundant):
    """Every row of the redundant loops in the regularized solve, none dropped: the motion of the multipliers."""
    m = ms.load(EXAMPLES / f"{case}.yaml")
    t = np.linspace(0.0, 1.0, 11)
    lagrange = m.simulate(t_end=1.0, t_eval=t, rtol=1e-10, atol=1e-12)
    augmented = m.simulate(t_end=1.0, t_eval=t, rtol=1e-10, atol=1e-12, formulation="penalty",
                           penalty=dict(iterations=3))
    assert np.abs(augmented.q - lagrange.q).max() < 1e-7
    assert np.max(augmented.constraint_error) < 1e-9


def test_augmented_lagrangian_projects_its_rows_through_the_driven_five_bars_singular_positions():
    """Driven at 6.28 rad/s the five-bar lies flat (singular) every half turn: without position projection
    neither the augmented Lagrangian nor Lagrange multipliers with Baumgarte stay closed (the loop opens a
    little more at each flat position), with the mass-orthogonal projection of Bayo & Ledesma (the default
    drift) both do."""
    m = ms.load(EXAMPLES / "five_bar.yaml")
    m.add_driver("a1", position="-0.7853981633974483 + 6.28 * t")
    t, options = np.linspace(0.0, 2.0, 21), dict(t_end=2.0, solver="DOP853", rtol=1e-10, atol=1e-12)
    augmented = m.simulate(t_eval=t, formulation="penalty", penalty=dict(iterations=3), **options)
    lagrange = m.simulate(t_eval=t, **options)
    assert np.max(augmented.constraint_error) < 1e-9
    assert np.abs(augmented.q - lagrange.q).max() < 1e-7
    unprojected = m.simulate(t_eval=t, formulation="penalty", penalty=dict(iterations=3), drift="none", **options)
    assert np.max(unprojected.constraint_error) > 1e-5


# ------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("options, message", [
    (dict(formulation="qtz"), "formulation='qtz' is not one of lagrange, nullspace, penalty"),
    (dict(formulation="penalty", penalty=dict(stiffness=-1.0)), "stiffness must be a finite positive number"),
    (dict(formulation="penalty", penalty=dict(stiffness=0.0)), "stiffness must be a finite positive number"),
    (dict(formulation="penalty", penalty=dict(stifness=1e5)), "unknown setting"),
    (dict(formulation="penalty", penalty=dict(stiffness={"j9": 1e5})), "j9"),
    (dict(formulation="penalty", penalty=dict(stiffness=1e5, frequency=10.0)), "either stiffness"),
    (dict(formulation="penalty", penalty=dict(frequency=10.0, damping_ratio=-1)), "damping_ratio"),
    (dict(formulation="penalty", penalty="stiff"), "penalty must be a dict"),
    (dict(penalty=dict(stiffness=1e5)), "penalty= applies to formulation='penalty'"),
    (dict(formulation="penalty", penalty=dict(iterations=-1)), "iterations must be a whole number >= 0, got -1"),
    (dict(formulation="penalty", penalty=dict(iterations=1.5)), "iterations must be a whole number"),
    (dict(formulation="penalty", penalty=dict(iterations=True)), "iterations must be a whole number"),
    (dict(formulation="penalty", penalty=dict(factor=1e3)), "factor= is the augmented Lagrangian's"),
    (dict(formulation="penalty", penalty=dict(iterations=2, factor=0)), "factor must be a finite positive number"),
    (dict(formulation="penalty", penalty=dict(frequency=1e200)), "too stiff to represent"),
])
def test_bad_formulation_settings_are_model_errors_naming_them(options, message):
    with pytest.raises(ms.ModelError, match=message.replace("(", r"\(").replace(")", r"\)")):
        four_bar().simulate(t_end=0.01, **options)


def test_nullspace_refuses_contacts_by_name():
    m = ms.load(EXAMPLES / "billiard_ball.yaml")
    with pytest.raises(ms.ModelError, match="formulation='nullspace' does not take contact '"):
        m.simulate(t_end=0.01, formulation="nullspace")


# ------------------------------------------------------------------------------------- files and CLI
def test_model_file_and_command_line_choose_the_formulation(tmp_path, capsys):
    from mechsim.cli.main import main
    text = (EXAMPLES / "four_bar.yaml").read_text().replace(
        "  solver: DOP853\n", "  solver: DOP853\n  formulation: penalty\n  penalty: {stiffness: {j3: 1.0e+6}, damping: 0}\n")
    path = tmp_path / "four_bar.yaml"
    path.write_text(text)
    penalty = ms.load(path).simulate(t_end=0.2, t_eval=[0.2])
    assert 1e-9 < penalty.constraint_error[-1] < 1e-3           # springs: a small, nonzero violation
    out = tmp_path / "out.csv"
    assert main(["simulate", str(path), "--t-end", "0.2", "--formulation", "nullspace", "-o", str(out)]) == 1
    assert "penalty= applies to --formulation='penalty'" in capsys.readouterr().err
    assert main(["simulate", str(EXAMPLES / "four_bar.yaml"), "--t-end", "0.2", "--formulation", "nullspace",
                 "-o", str(out), "--signals", "j1.q"]) == 0
    lagrange = four_bar().simulate(t_end=0.2, t_eval=[0.2])
    assert abs(np.loadtxt(out, delimiter=",", skiprows=1)[-1, 1] - lagrange["j1.q"][-1]) < 1e-8


# ------------------------------------------------------------------------------------- the study
def study():
    import importlib.util
    spec = importlib.util.spec_from_file_location("formulations_study", EXAMPLES / "formulations" / "study.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stiff_springs_need_the_smaller_fixed_step_as_khan_tang_and_krovi_observe():
    """Their §7: k beyond 1e6 N/m does not run with fixed steps of 1e-3 s, and does with 1e-4 s."""
    m, options = four_bar(), dict(t_end=1.0, formulation="penalty", penalty=dict(stiffness=1e7, damping=0.0),
                                  solver="RK4", t_eval=np.linspace(0, 1, 101))
    coarse, _, failure = study().run(m, h=1e-3, **options)
    assert failure or not np.all(coarse.constraint_error < 1e-2)
    fine, _, failure = study().run(m, h=1e-4, **options)
    assert not failure and np.max(fine.constraint_error) < 1e-4


@pytest.mark.slow
def test_study_tables_run():
    text = study().main(["--quick"])
    assert text.count("| A: penalty") == 18 and text.count("| B: nullspace") == 12
    assert "spherical pendulum + flywheel | penalty" in text
    assert text.count("| augmented Lagrangian (penalty, 3 iterations) |") == 3
    assert "five-bar, free | augmented Lagrangian |" in text
