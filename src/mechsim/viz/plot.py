"""Plots of result signals against time (SPEC C9), drawn on matplotlib's Agg canvas.

matplotlib is imported only when a plot is drawn, and pyplot never: plotting changes no global
matplotlib state, so it is safe inside interactive sessions and in worker processes.
"""
import numpy as np

from ..errors import MechsimError


def load_matplotlib():
    """matplotlib's (Figure, FigureCanvasAgg); ImportError with the install hint when it is missing."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plotting needs matplotlib: pip install mechsim[plot]") from None
    return Figure, FigureCanvasAgg


def plot(result, signals, path):
    """Write one subplot per signal of ``result`` against time to ``path`` (PNG, or another format
    matplotlib writes, chosen by the suffix). Vector signals get one line per component, labelled
    ``name[i]`` (row-major, as in saved files); the title is the model's name."""
    Figure, FigureCanvasAgg = load_matplotlib()
    signals = list(signals)
    if not signals:
        raise MechsimError("plot: give at least one signal name")
    figure = Figure(figsize=(8.0, 1.0 + 2.2 * len(signals)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(len(signals), 1, sharex=True, squeeze=False)[:, 0]
    for ax, name in zip(axes, signals):
        _draw(ax, result.t, name, result[name])
    axes[-1].set_xlabel("t [s]")
    figure.suptitle(result.model.name)
    figure.savefig(path, dpi=100)


def _draw(ax, t, name, value):
    value = np.asarray(value).reshape(len(t), -1)
    if value.shape[1] == 1:
        ax.plot(t, value[:, 0])
    else:
        for i in range(value.shape[1]):
            ax.plot(t, value[:, i], label=f"{name}[{i}]")
        ax.legend(loc="best", fontsize="small")
    ax.set_ylabel(name)
    ax.grid(True, alpha=0.3)
