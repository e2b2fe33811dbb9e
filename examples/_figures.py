"""Figures and animations of the example scripts, saved under examples/out/ (or
$MECHSIM_EXAMPLE_OUT): plots when matplotlib is installed (skipped with a note when it is not), and
every run's animation as a self-contained web page (ms.animate, no extra package needed)."""
import os
from pathlib import Path

OUT = Path(os.environ.get("MECHSIM_EXAMPLE_OUT", Path(__file__).resolve().parent / "out"))


def new_figure(**options):
    """A matplotlib Figure (no pyplot state), or None without matplotlib."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        print("matplotlib is not installed: no plot")
        return None
    return Figure(**options)


def save(fig, name):
    OUT.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    path = OUT / f"{name}.png"
    fig.savefig(path, dpi=100)
    print(f"plot: {path}")


def animate(res, name, **options):
    """Write the run's animation to <out>/<name>.html (``options``: those of ms.animate)."""
    from mechsim import animate as write_animation
    OUT.mkdir(parents=True, exist_ok=True)
    print(f"animation: {write_animation(res, OUT / f'{name}.html', **options)}")
