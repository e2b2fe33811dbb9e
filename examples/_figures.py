"""Figures and animations of the example scripts, saved under examples/out/ (or
$MECHSIM_EXAMPLE_OUT): plots when matplotlib is installed (skipped with a note when it is not), and
every run's animation as a self-contained web page (ms.animate, no extra package needed).

A figure's lines are drawn with ``draw`` (mechsim.viz.plot: each with its unit, one unit per axis) from
``dense(res)`` where the motion has events (a flight's parabola drawn as a curve); ``save`` refuses a
figure whose axes mix units or do not name them."""
import os
from pathlib import Path

from mechsim.viz.plot import dense, draw, unit_problems  # noqa: F401  (draw, dense: for the scripts)

OUT = Path(os.environ.get("MECHSIM_EXAMPLE_OUT", Path(__file__).resolve().parent / "out"))


def new_figure(**options):
    """A matplotlib Figure (no pyplot state) laid out so that no title or label is clipped, or None
    without matplotlib."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        print("matplotlib is not installed: no plot")
        return None
    return Figure(layout="constrained", **options)


def save(fig, name):
    """Write ``fig`` to <out>/<name>.png; ValueError listing what breaks one unit per axis, named in its label."""
    problems = unit_problems(fig)
    if problems:
        raise ValueError(f"figure {name}: " + "; ".join(problems))
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.png"
    fig.savefig(path, dpi=100)
    print(f"plot: {path}")


def animate(res, name, **options):
    """Write the run's animation to <out>/<name>.html (``options``: those of ms.animate)."""
    from mechsim import animate as write_animation
    OUT.mkdir(parents=True, exist_ok=True)
    print(f"animation: {write_animation(res, OUT / f'{name}.html', **options)}")
