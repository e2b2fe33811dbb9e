"""Plots of result signals against time (SPEC C9, ``res.plot``), with units on the axes, drawn on
matplotlib's Agg canvas.

matplotlib is imported only when a plot is drawn, and pyplot never: plotting changes no global
matplotlib state, so it is safe inside interactive sessions and in worker processes.
"""
import numpy as np

from ..errors import MechsimError
from ..modeling.primitives import PRIMITIVES

BODY_UNITS = {"position": ["m"] * 3, "rotation": [""] * 9, "quat": [""] * 4, "velocity": ["m/s"] * 3,
              "omega": ["rad/s"] * 3, "acceleration": ["rad/s²"] * 3 + ["m/s²"] * 3}
WRENCH = ["N·m"] * 3 + ["N"] * 3


def load_matplotlib():
    """matplotlib's (Figure, FigureCanvasAgg); ImportError with the install hint when it is missing."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plotting needs matplotlib: pip install mechsim[plot]") from None
    return Figure, FigureCanvasAgg


def signal_units(model, name):
    """The unit of each component of a signal (row-major, as in saved files; "" for none)."""
    section, owner, kind = model.compile().signals.get(name) or (None, None, None)
    if section == "joints" and kind in ("q", "v", "a", "force"):
        return [u for ptype, _, _ in model.joints[owner].primitives for u in PRIMITIVES[ptype].units[kind]]
    if section == "constraints" and model.constraints[owner].joints_used:       # a coordinate coupling's multiplier
        return signal_units(model, f"joints.{model.constraints[owner].joints_used[0]}.force")
    if kind == "reaction":
        return WRENCH
    if section == "bodies" and kind in BODY_UNITS:
        return BODY_UNITS[kind]
    return []


def plot(result, signals, path=None):
    """One subplot per signal of ``result`` against time, each axis labelled with its unit; vector
    signals get one line per component, labelled ``name[i]`` (row-major, as in saved files). The
    title is the model's name. Written to ``path`` when given (PNG, or another format matplotlib
    writes, chosen by the suffix); returns the matplotlib Figure."""
    Figure, FigureCanvasAgg = load_matplotlib()
    signals = [signals] if isinstance(signals, str) else list(signals)
    if not signals:
        raise MechsimError("plot: give at least one signal name")
    values = [result[name] for name in signals]           # unknown names raise before drawing
    figure = Figure(figsize=(8.0, 1.0 + 2.2 * len(signals)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(len(signals), 1, sharex=True, squeeze=False)[:, 0]
    for ax, name, value in zip(axes, signals, values):
        _draw(ax, result.t, name, value, signal_units(result.model, name))
    axes[-1].set_xlabel("t (s)")
    figure.suptitle(result.model.name)
    if path is not None:
        figure.savefig(path, dpi=100)
    return figure


def _draw(ax, t, name, value, units):
    value = np.asarray(value).reshape(len(t), -1)
    units = units if len(units) == value.shape[1] else [""] * value.shape[1]
    shared = units[0] if len(set(units)) == 1 else None
    with_unit = lambda label, unit: f"{label} ({unit})" if unit else label
    if value.shape[1] == 1:
        ax.plot(t, value[:, 0])
    else:
        for i in range(value.shape[1]):
            ax.plot(t, value[:, i], label=f"{name}[{i}]" if shared is not None else with_unit(f"{name}[{i}]", units[i]))
        ax.legend(loc="best", fontsize="small")
    ax.set_ylabel(with_unit(name, shared))
    ax.grid(True, alpha=0.3)
