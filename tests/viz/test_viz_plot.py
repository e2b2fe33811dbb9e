"""res.plot and mechsim simulate --plot: one unit per axis and named in its label, a capped number of
axes with the rest drawn together and a note on how to choose, curves drawn dense enough between the
samples (a bouncing ball's parabolas), and draw/unit_problems holding any figure to the same rule."""
import numpy as np
import pytest

import mechsim as ms
from mechsim.cli.main import main
from mechsim.results.resample import densify
from mechsim.viz.plot import MAX_PANELS, Line, Panel, PlotData, draw, draw_plot, plot_data, signal_units, unit_problems
from mechsim.viz.plot_worker import PlotWorker

pytest.importorskip("matplotlib")
from matplotlib.figure import Figure  # noqa: E402

G, RADIUS, HEIGHT, RESTITUTION = 9.81, 0.05, 1.0, 0.8


def axis_units(figure):
    """The y unit each axis names in its label ("" for none)."""
    return [ax.get_ylabel().rpartition("(")[2].rstrip(")") if ax.get_ylabel().endswith(")") else ""
            for ax in figure.axes]


def test_plot_gives_each_unit_of_a_signal_its_own_axis(four_bar_2s, tmp_path):
    figure = four_bar_2s.plot(["j1.q", "j1.v", "j1.force", "crank.position", "j3.reaction"], path=tmp_path / "p.png")
    assert [ax.get_ylabel() for ax in figure.axes] == [
        "j1.q (rad)", "j1.v (rad/s)", "j1.force (N·m)", "crank.position (m)", "j3.reaction (N·m)", "j3.reaction (N)"]
    legend = [text.get_text() for text in figure.axes[-1].get_legend().get_texts()]
    assert legend == ["j3.reaction[3]", "j3.reaction[4]", "j3.reaction[5]"]
    assert figure.axes[-1].get_xlabel() == "t (s)" and (tmp_path / "p.png").stat().st_size > 0
    assert unit_problems(figure) == []
    with pytest.raises(ms.MechsimError, match="unknown signal 'j9.q'"):
        four_bar_2s.plot(["j9.q"])


def test_units_of_prismatic_spherical_and_gear_signals():
    m = ms.Model("m")
    for name in ("a", "b", "c"):
        m.add_body(name, mass=1, inertia=(1, 1, 1))
    m.add_joint("slide", "prismatic", "ground", "a")
    m.add_joint("ball", "spherical", "a", "b")
    m.add_joint("hinge", "revolute", "b", "c")
    m.add_constraint("g", "gear", joints=("slide", "hinge"), ratio=2.0)
    assert signal_units(m, "slide.a") == ["m/s²"] and signal_units(m, "slide.force") == ["N"]
    assert signal_units(m, "ball.q") == [""] * 4 and signal_units(m, "ball.v") == ["rad/s"] * 3
    assert signal_units(m, "g.reaction") == ["N"] and signal_units(m, "c.acceleration")[3:] == ["m/s²"] * 3


def test_units_of_element_and_contact_signals():
    m = ms.Model("m", gravity=(0, 0, -9.81))
    m.add_body("block", mass=1, inertia=(1, 1, 1))
    m.add_body("wheel", mass=1, inertia=(1, 1, 1))
    m.add_joint("slide", "prismatic", "ground", "block")
    m.add_joint("spin", "revolute", "block", "wheel")
    m.add_force("rub", "joint_friction", joint="slide", static=2.0, kinetic=1.0)
    m.add_force("stop", "joint_limit", joint="spin", lower=-1.0)
    m.add_contact("floor", body="wheel", shape="sphere", radius=0.1)
    assert signal_units(m, "rub.force") == ["N"] and signal_units(m, "rub.mode") == [""]
    assert signal_units(m, "stop.force") == ["N·m"]
    assert signal_units(m, "floor.normal_force") == ["N"] and signal_units(m, "floor.slip_velocity") == ["m/s"] * 3


# ------------------------------------------------------------------------------ panels
def chain(n):
    """n links hinged about z in a row, hanging."""
    m = ms.Model(f"chain{n}", gravity=(0, -9.81, 0))
    parent = "ground"
    for k in range(n):
        m.add_body(f"l{k}", mass=1, inertia=(0.1, 0.1, 0.1), com=(0.5, 0, 0), frames={"tip": (1.0, 0, 0)})
        m.add_joint(f"j{k}", "revolute", parent=parent, child=f"l{k}", axis=(0, 0, 1), q0=-1.0 if k == 0 else 0.0,
                    **({"parent_frame": "tip"} if k else {}))
        parent = f"l{k}"
    return m


@pytest.fixture(scope="module")
def chain12():
    return chain(12).simulate(t_end=0.5)


def test_plot_of_every_joint_caps_the_axes_and_says_how_to_choose(chain12):
    figure = chain12.plot()
    assert len(figure.axes) == MAX_PANELS
    assert [ax.get_ylabel() for ax in figure.axes[:-1]] == [f"j{k}.q (rad)" for k in range(MAX_PANELS - 1)]
    last = figure.axes[-1]
    assert last.get_ylabel() == "5 more (rad)" and len(last.lines) == 5
    note = last.get_title(loc="left")
    assert "5 more signals (j7.q … j11.q), 7 of 12 shown" in note and "--signals" in note
    assert unit_problems(figure) == []
    assert len(chain12.plot(["j0.q", "j1.q"], max_panels=2).axes) == 2
    assert len(chain12.plot(max_panels=12).axes) == 12


def test_cli_plot_of_the_n_four_bar_stays_readable(tmp_path, capsys):
    png = tmp_path / "n.png"
    model = tmp_path / "n.yaml"
    chain(30).to_yaml(model)
    assert main(["simulate", str(model), "--t-end", "0.2", "--plot", str(png)]) == 0
    from matplotlib.image import imread
    height, width = imread(png).shape[:2]
    assert width == 800 and height <= 100 * (1.2 + 2.0 * MAX_PANELS)
    assert "plot: 23 more signals (j7.q … j29.q)" in capsys.readouterr().out


# ------------------------------------------------------------------------------ dense enough to draw curves
@pytest.fixture(scope="module")
def bouncing_ball():
    """A ball dropped from HEIGHT onto a rigid floor (examples/bouncing_ball.py): parabolas between impacts."""
    m = ms.Model("ball", gravity=(0, -G, 0))
    m.add_body("ball", mass=0.1, inertia=(1e-4, 1e-4, 1e-4))
    m.add_joint("height", "prismatic", parent="ground", child="ball", axis=(0, 1, 0), q0=HEIGHT)
    m.add_force("floor", "joint_limit", joint="height", lower=RADIUS, restitution=RESTITUTION)
    return m.simulate(t_end=2.5, solver="DOP853", rtol=1e-10, atol=1e-12)


def parabola(res, t):
    """The exact height at times t: free flights between the run's impacts, each starting at the floor
    with the rebound speed (the first from rest at HEIGHT)."""
    hits = np.array([e.time for e in res.events if e.kind == "limit"])
    v1 = np.sqrt(2 * G * (HEIGHT - RADIUS))
    k = np.searchsorted(hits, t)                       # impacts before t
    since = t - np.where(k > 0, hits[np.maximum(k - 1, 0)], 0.0)
    up = np.where(k > 0, RESTITUTION ** k * v1, 0.0)
    return np.where(k > 0, RADIUS, HEIGHT) + up * since - G * since ** 2 / 2


def chord_error(t, y, res):
    """Largest distance, over a fine grid, between the polyline (t, y) and the exact flights."""
    fine = np.linspace(t[0], t[-1], 20001)
    return np.abs(np.interp(fine, t, y) - parabola(res, fine)).max()


def test_plotted_flights_follow_their_parabolas(bouncing_ball):
    raw = chord_error(bouncing_ball.t, bouncing_ball["height.q"], bouncing_ball)
    line = bouncing_ball.plot("height.q").axes[0].lines[0]
    drawn = chord_error(*line.get_data(), bouncing_ball)
    span = HEIGHT - RADIUS
    assert raw > 0.02 * span                 # the solver's own samples draw chords: the test can fail
    assert drawn < 2e-3 * span               # densify's tolerance, 1e-3 of the range, with slack for its bound


def test_densified_velocity_follows_an_oscillation_between_long_steps():
    """A mass on a spring (omega = 2 rad/s, amplitude 1 m) taken in DOP853's long steps: the velocity
    between the samples is cubic Hermite with the accelerations, not the chord."""
    m = ms.Model("spring", gravity=(0, 0, 0))
    m.add_body("mass", mass=1.0, inertia=(1, 1, 1))
    m.add_joint("x", "prismatic", parent="ground", child="mass", axis=(1, 0, 0), q0=1.0)
    m.add_force("spring", "joint_spring_damper", joint="x", stiffness=4.0)
    res = m.simulate(t_end=6.0, solver="DOP853", rtol=1e-8, atol=1e-8)
    exact = lambda t: -2.0 * np.sin(2.0 * t)
    fine = np.linspace(0.0, 6.0, 20001)
    line_error = lambda t, v: np.abs(np.interp(fine, t, v) - exact(fine)).max()
    dense = densify(res)
    assert line_error(res.t, res["x.v"]) > 0.01 * 4.0                # the samples alone: chords
    assert line_error(dense.t, dense["x.v"]) < 1e-3 * 4.0


def test_densify_keeps_every_sample_and_the_pair_at_each_impact(bouncing_ball):
    dense = densify(bouncing_ball)
    kept = np.isin(dense.t, bouncing_ball.t)
    assert kept.sum() == len(bouncing_ball.t) and np.all(np.diff(dense.t) >= 0)
    np.testing.assert_array_equal(dense.q[kept], bouncing_ball.q)
    np.testing.assert_array_equal(dense.v[kept], bouncing_ball.v)       # both velocities of an impact
    few = densify(bouncing_ball, most=10)
    assert len(few.t) <= len(bouncing_ball.t) + 10


# ------------------------------------------------------------------------------ any figure
def test_draw_refuses_a_second_unit_on_one_axis_and_unit_problems_finds_the_rest():
    figure = Figure()
    mixed, unlabelled, untagged = figure.subplots(1, 3)
    draw(mixed, [0, 1], [0, 1], "m", label="x")
    mixed.set_ylabel("x (m)")
    mixed.set_xlabel("t (s)")
    with pytest.raises(ms.MechsimError, match="this axis shows m against s: draw N against s on an axis of its own"):
        draw(mixed, [0, 1], [3, 5], "N", label="force")
    mixed.axhline(0.5)                                       # across the axis: in its unit by construction
    draw(unlabelled, [0, 1], [0, 1], "rad")
    unlabelled.set_xlabel("t (s)")
    untagged.plot([0, 1], [0, 1], label="speed")
    problems = unit_problems(figure)
    assert len(problems) == 2
    assert "its y label does not name the unit rad" in problems[0]
    assert "line 'speed' drawn without a unit" in problems[1]


def test_a_value_steady_to_rounding_gets_limits_around_it_not_an_offset():
    from mechsim.viz.plot import _steady_limits
    ax = Figure().subplots()
    values = 25.487 + 1e-13 * np.sin(np.arange(50.0))
    draw(ax, np.arange(50.0), values, "N")
    _steady_limits(ax, values)
    np.testing.assert_allclose(ax.get_ylim(), (0.95 * 25.487, 1.05 * 25.487), rtol=1e-9)


def test_a_mode_is_drawn_against_the_names_of_its_values():
    m = ms.Model("rub", gravity=(0, 0, -9.81))
    m.add_body("block", mass=1, inertia=(1, 1, 1))
    m.add_joint("slide", "prismatic", parent="ground", child="block", axis=(1, 0, 0), v0=1.0)
    m.add_force("rub", "joint_friction", joint="slide", static=2.0, kinetic=1.0)
    figure = m.simulate(t_end=2.0).plot(["slide.v", "rub.mode"])
    mode = figure.axes[1]
    assert [label.get_text() for label in mode.get_yticklabels()] == ["slipping", "stuck"]
    assert set(mode.lines[0].get_ydata()) == {1, 2}                  # slips until it stops at t = 1 s, then sticks


# ---------------------------------------------------------------- drawn in another process (mechsim simulate --plot)
def test_a_plot_drawn_in_a_plot_process_is_the_plot_drawn_here(four_bar_2s, tmp_path):
    data = plot_data(four_bar_2s, ["j1.q", "j3.reaction"])
    with PlotWorker() as worker:
        worker.draw(data, tmp_path / "there.png")
    draw_plot(data, tmp_path / "here.png")
    assert (tmp_path / "there.png").read_bytes() == (tmp_path / "here.png").read_bytes()


def test_the_plot_process_gives_its_warnings_and_raises_its_errors_here(tmp_path):
    t = [0.0, 1.0]
    unlabelled = Panel("x", "m", [Line("_a", "x", 0), Line("_b", "x", 1)])      # a legend without labels warns
    with PlotWorker() as worker, pytest.warns(UserWarning, match="No artists with labels"):
        worker.draw(PlotData("warns", t, [unlabelled], [[t, t]]), tmp_path / "p.png")
    with PlotWorker() as worker, pytest.raises(FileNotFoundError):
        worker.draw(PlotData("fails", t, [Panel("y", "m", [Line("y", "y", 0)])], [[t]]), tmp_path / "no" / "p.png")


def test_a_failed_run_leaves_no_plot_process_behind():
    with pytest.raises(ms.SimulationError), PlotWorker() as worker:
        raise ms.SimulationError("the run failed")
    assert worker.process.exitcode is not None
