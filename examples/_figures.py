"""Figures of the example scripts: saved under examples/out/ (or $MECHSIM_EXAMPLE_OUT) when
matplotlib is installed, skipped with a note when it is not."""
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
