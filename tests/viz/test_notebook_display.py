"""What a notebook shows (issue 47, viz/notebook.py): a Result's summary and quick plot, a Model's
topology, ms.animate(res) without a path as the player inline; names escaped, failures shown."""
import base64
import html
import importlib
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms
from mechsim.results.result import CoupledResult, Outcome, Result
from mechsim.viz import notebook

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ODD = '<b>"odd" & \'name\'</b>'        # markup, quotes and an ampersand in every name the user gives
ODD_INPUT = '<i>"u"&\'v\'</i>'             # an input's name has no spaces


@pytest.fixture(scope="module")
def odd_pendulum():
    """A pendulum whose model, body, joint, force and input are all named with markup, simulated 0.5 s."""
    m = ms.Model(ODD, gravity=(0, 0, -9.81))
    m.add_body(f"{ODD} arm", mass=1.0, com=(0.5, 0, 0), inertia=(0.01, 0.1, 0.1))
    m.add_joint(f"{ODD} hinge", "revolute", "ground", f"{ODD} arm", axis=(0, 1, 0))
    m.add_input(ODD_INPUT, 0.0)
    m.add_force(f"{ODD} motor", "joint_force", joint=f"{ODD} hinge", value=0.5)
    return m, m.simulate(t_end=0.5)


def rows(page):
    """{label: value} of the summary table's two-cell rows, unescaped."""
    return {html.unescape(k): html.unescape(v) for k, v in re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td></tr>", page)}


def test_result_summary_gives_model_span_samples_outcome_stats_and_signal_groups(four_bar_2s):
    page = four_bar_2s._repr_html_()
    assert "<b>Result of four-bar</b>" in page and "FAILED" not in page
    summary = rows(page)
    assert summary["t"] == "0 … 2 s" and summary["samples"] == "61" and summary["success"] == "yes"
    assert summary["message"] == four_bar_2s.message
    assert f"solver {four_bar_2s.stats['solver']}" in summary["stats"]
    assert f"steps {four_bar_2s.stats['steps']}" in summary["stats"]
    assert summary["signals"] == "37: joints 19, bodies 18" == f"{len(four_bar_2s.signals)}: joints 19, bodies 18"


def test_result_summary_carries_a_png_of_the_coordinates(four_bar_2s):
    png = re.search(r'<img alt="coordinates against time" src="data:image/png;base64,([^"]+)">', four_bar_2s._repr_html_())
    assert png is not None
    assert base64.b64decode(png.group(1)).startswith(b"\x89PNG\r\n\x1a\n")


def test_the_quick_plot_puts_one_unit_on_an_axis():
    """The cart pendulum's cart (m) and pendulum (rad): two axes, each labelled with its unit."""
    from mechsim.viz.plot import unit_problems
    res = ms.load(EXAMPLES / "cart_pendulum.yaml").simulate(t_end=0.2)
    figure = notebook.quick_figure(res)
    assert unit_problems(figure) == []
    assert sorted(ax.get_ylabel() for ax in figure.axes) == ["q (m)", "q (rad)"]


def test_without_matplotlib_the_summary_has_no_plot(four_bar_2s, monkeypatch):
    def missing():
        raise ImportError("plotting needs matplotlib: pip install mechsim[plot]")
    monkeypatch.setattr(importlib.import_module("mechsim.viz.plot"), "load_matplotlib", missing)
    page = four_bar_2s._repr_html_()
    assert "<img" not in page and rows(page)["samples"] == "61"


def test_notebook_display_imports_without_matplotlib():
    code = ("import sys; sys.modules['matplotlib'] = None\n"           # an import of matplotlib fails
            "import mechsim, mechsim.viz.notebook, mechsim.viz.animate, mechsim.results.result")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_odd_names_are_escaped_in_the_result_and_the_model(odd_pendulum):
    m, res = odd_pendulum
    for page in (m._repr_html_(), res._repr_html_()):
        assert ODD not in page and "<b>\"odd\"" not in page
        assert html.escape(ODD) in page
    assert f"<b>Result of {html.escape(ODD)}</b>" in res._repr_html_()
    assert html.escape(f"{ODD} hinge (revolute) → {ODD} arm") in m._repr_html_()
    assert f"<td>{html.escape(ODD_INPUT)}</td><td>default 0</td>" in m._repr_html_()


def test_a_failed_result_shows_failed_and_its_message(four_bar_2s):
    res = four_bar_2s
    failed = Result(res.compiled, res.t[:5], res.q[:5], res.v[:5], res.u_force[:5],
                    outcome=Outcome(False, "step size too small at t = 0.13 s <near a singularity>"))
    page = failed._repr_html_()
    assert '<span class="failed">FAILED</span>' in page
    assert rows(page)["success"] == "no"
    assert rows(page)["message"] == "step size too small at t = 0.13 s <near a singularity>"
    assert "&lt;near a singularity&gt;" in page


def test_a_coupled_result_names_its_subsystems_groups_and_coordinates(four_bar_2s):
    res = four_bar_2s
    coupled = CoupledResult({"a": res, "b": res}, res.t, {"pin.violation": np.zeros((len(res.t), 3))},
                            message="coupled", success=True)
    page = coupled._repr_html_()
    assert "<b>CoupledResult of a, b</b>" in page
    summary = rows(page)
    assert summary["signals"] == "75: a/joints 19, a/bodies 18, b/joints 19, b/bodies 18, couplings 1"
    assert f"solver {res.stats['solver']}" in summary["stats.a"] and "stats.b" in summary
    names, units, values = notebook.coordinates(coupled)
    assert names == ["a/j1.q", "a/j4.q", "a/j2.q", "b/j1.q", "b/j4.q", "b/j2.q"]
    np.testing.assert_array_equal(values, np.hstack([res.q, res.q]))
    assert "data:image/png;base64," in page


def test_model_shows_its_tree_loops_and_elements():
    m = ms.load(EXAMPLES / "four_bar.yaml")
    page = m._repr_html_()
    assert "3 bodies, 4 joints (1 cut, closing 1 loop); gravity (0, -9.81, 0)" in page
    assert ("<pre>ground\n├─ j1 (revolute) → crank\n│  └─ j2 (revolute) → coupler\n"
            "└─ j4 (revolute) → rocker</pre>") in page
    assert "<td>j3</td><td>revolute</td><td>j1 → j2 → j3 → j4</td><td>marked cut=True</td>" in page
    assert "<td>motor</td><td>joint_force</td><td>joints j1</td>" in page


def test_model_lists_its_drivers_contacts_and_events():
    crank = ms.load(EXAMPLES / "slider_crank.yaml")._repr_html_()
    assert "<td>j1</td><td>joint j1, coordinate 0</td>" in crank
    ramp = ms.load(EXAMPLES / "disk_on_ramp.yaml")._repr_html_()
    assert "<td>ramp</td><td>rigid disk</td><td>disk on ground</td>" in ramp
    assert "<td>friction</td><td>disk.position[0]</td>" in ramp


def test_model_not_connected_to_ground_shows_why_and_its_joints():
    m = ms.Model("loose")
    for name in ("a", "b"):
        m.add_body(name, mass=1.0, inertia=(1, 1, 1))
    m.add_joint("ab", "revolute", "a", "b")
    page = m._repr_html_()
    assert "not connected to ground" in page and "<td>ab</td><td>revolute</td><td>a → b</td>" in page


def test_animate_without_a_path_returns_a_player_of_the_same_page(four_bar_2s, tmp_path):
    player = ms.animate(four_bar_2s, bodies="hull")
    written = ms.animate(four_bar_2s, tmp_path / "four_bar.html", bodies="hull").read_text(encoding="utf-8")
    assert player.html == written
    frame = re.fullmatch(r'<iframe srcdoc="([^"]*)" title="four-bar: mechsim animation" sandbox="allow-scripts" '
                         r'style="width:100%;max-width:800px;height:600px;[^"]*"></iframe>', player._repr_html_())
    assert frame is not None and html.unescape(frame.group(1)) == written
    assert "four-bar" in repr(player)

