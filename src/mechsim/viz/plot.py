"""Plots of result signals against time (SPEC C9, ``res.plot``), drawn on matplotlib's Agg canvas: one
quantity per axis, its unit in the axis label; a signal whose components have different units (a planar
joint's x, y, angle) on one axis per unit; at most ``max_panels`` axes, the other signals thin on one
axis per unit with a note on how to choose; drawn from a Result densified between its samples
(results/resample.py densify), so that a flight's parabola shows as a curve.

``draw`` and ``unit_problems`` hold any figure to the same rule (the example scripts' figures): every
line is drawn with its unit, an axis takes lines of one unit, and its label names it.

matplotlib is imported only when a plot is drawn, and pyplot never: plotting changes no global
matplotlib state, so it is safe inside interactive sessions and in worker processes.
"""
import weakref
from collections import namedtuple

import numpy as np

from ..errors import MechsimError
from ..results.units import signal_units

MAX_PANELS = 8          # axes of a plot at most, unless asked for more
MODES = {"contacts": {0: "open", 1: "sliding", 2: "sticking"},      # what a .mode signal's values mean
         "forces": {1: "slipping", 2: "stuck"}}
TIME = "s"
NO_MATPLOTLIB = "plotting needs matplotlib: pip install mechsim[plot]"

Line = namedtuple("Line", "label signal column")
Line.__doc__ = "A line of a plot: its legend label, the signal and the column of its values (row-major)."
Panel = namedtuple("Panel", "quantity unit lines note ticks", defaults=("", None))
Panel.__doc__ = """An axis of a plot: what it shows, the unit of all its Lines, a note as its title ('' for none) and
{value: name} for a mode's ticks (None: numbers)."""

PlotData = namedtuple("PlotData", "title t panels columns")
PlotData.__doc__ = """What a plot draws: its title, the times, its Panels and each Panel's lines' values (arrays like t)."""

UNITS = weakref.WeakKeyDictionary()      # line drawn by draw() -> (x unit, y unit)


def load_matplotlib():
    """matplotlib's (Figure, FigureCanvasAgg); ImportError with the install hint when it is missing."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError(NO_MATPLOTLIB) from None
    return Figure, FigureCanvasAgg


def with_unit(quantity, unit):
    """An axis label: ``quantity (unit)``, or the quantity alone for a pure number."""
    return f"{quantity} ({unit})" if unit else quantity


# ---------------------------------------------------------------- which axes
def default_signals(model):
    """What a plot shows unless told: every joint's .q."""
    return [name for name in model.signals() if name.endswith(".q")]


def plan(result, signals=None, max_panels=MAX_PANELS):
    """The Panels of a plot of ``signals`` (default: default_signals): one per signal and unit, in the
    order given; past ``max_panels``, the signals after the first few drawn together on one Panel per
    unit, whose note says how to choose. Unknown names raise MechsimError."""
    if max_panels < 1:
        raise MechsimError(f"plot: max_panels must be at least 1, got {max_panels}")
    names = default_signals(result.model) if signals is None else list(signals)
    if not names:
        raise MechsimError("plot: the model has no joint coordinates to plot; name the signals "
                           "(m.signals() lists them)")
    panels = [panel for name in names for panel in _signal_panels(result, name)]
    if len(panels) <= max_panels:
        return panels
    kept = max_panels - 1
    while kept > 0 and kept + len({p.unit for p in panels[kept:]}) > max_panels:
        kept -= 1
    return panels[:kept] + _together(panels[kept:], len({p.lines[0].signal for p in panels[:kept]}), len(names))


def _signal_panels(result, name):
    """A signal's Panels: its components grouped by unit."""
    width = int(np.prod(np.shape(result[name])[1:]))            # an unknown name raises, saying so
    units = signal_units(result.model, name)
    units = units if units is not None and len(units) == width else [""] * width
    label = lambda i: name if width == 1 else f"{name}[{i}]"
    ticks = _mode_names(result, name)
    return [Panel(name, unit, [Line(label(i), name, i) for i, u in enumerate(units) if u == unit], ticks=ticks)
            for unit in dict.fromkeys(units)]


def _mode_names(result, name):
    """{value: name} of a mode signal (contacts', joint frictions'), else None."""
    section, _, kind = result.model.compile().signals.get(name) or (None, None, None)
    return MODES.get(section) if kind == "mode" else None


def _together(panels, shown, total):
    """One Panel per unit for the signals past the first ``shown`` of ``total``, thin, with the note."""
    together = []
    for unit in dict.fromkeys(p.unit for p in panels):
        lines = [line for p in panels if p.unit == unit for line in p.lines]
        signals = list(dict.fromkeys(line.signal for line in lines))
        note = (f"{len(signals)} more signals ({signals[0]} … {signals[-1]}), {shown} of {total} shown on axes "
                "of their own; choose which with res.plot([...]) or mechsim simulate --signals a,b")
        together.append(Panel(f"{len(signals)} more", unit, lines, note))
    return together


# ---------------------------------------------------------------- drawing
def plot(result, signals=None, path=None, max_panels=None):
    """Plot ``signals`` of ``result`` (default: every joint's .q) against time: one axis per signal and
    unit, each labelled with its unit, a legend where it has more than one line; past ``max_panels``
    axes (default MAX_PANELS), the rest on one axis per unit, thin, with a note. The title is the
    model's name. Written to ``path`` when given (PNG, or another format matplotlib writes, chosen by
    the suffix); returns the matplotlib Figure."""
    load_matplotlib()           # a missing matplotlib said before anything is computed
    return draw_plot(plot_data(result, signals, max_panels), path)


def plot_data(result, signals=None, max_panels=None):
    """The PlotData of ``plot``: what it draws, computed from the result (numba's kernels) but drawn
    without it, so that another process can draw it (mechsim simulate --plot: plot_worker.py)."""
    signals = [signals] if isinstance(signals, str) else None if signals is None else list(signals)
    if signals == []:
        raise MechsimError("plot: give at least one signal name, or none for every joint's .q")
    drawn = dense(result)
    panels = plan(drawn, signals, MAX_PANELS if max_panels is None else max_panels)
    columns = [[np.asarray(drawn[line.signal]).reshape(len(drawn.t), -1)[:, line.column] for line in panel.lines]
               for panel in panels]
    return PlotData(result.model.name, drawn.t, panels, columns)


def draw_plot(data, path=None):
    """The Figure of a PlotData (``plot``), written to ``path`` when given."""
    Figure, FigureCanvasAgg = load_matplotlib()
    figure = Figure(figsize=(8.0, 1.2 + 2.0 * len(data.panels)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(len(data.panels), 1, sharex=True, squeeze=False)[:, 0]
    for ax, panel, columns in zip(axes, data.panels, data.columns):
        _draw_panel(ax, data.t, panel, columns)
    axes[-1].set_xlabel(with_unit("t", TIME))
    figure.suptitle(data.title)
    if path is not None:
        figure.savefig(path, dpi=100)
    return figure


def dense(result):
    """``result`` with enough samples between its own to draw its motion as curves (results/resample.py
    densify); a result of coupled subsystems as it is."""
    from ..results.resample import densify      # imported here, not at start-up: it imports numba
    from ..results.result import CoupledResult
    return result if isinstance(result, CoupledResult) or len(result.t) < 2 else densify(result)


def _draw_panel(ax, t, panel, columns):
    together = bool(panel.note)
    for k, (line, values) in enumerate(zip(panel.lines, columns)):
        style = dict(color="0.45", lw=0.6, label=panel.quantity if k == 0 else None) if together else \
            dict(label=line.label)
        draw(ax, t, values, panel.unit, **style)
    _steady_limits(ax, np.concatenate(columns))
    if panel.ticks:
        ax.set_yticks(list(panel.ticks), list(panel.ticks.values()))
    ax.set_ylabel(with_unit(panel.quantity, panel.unit))
    if len(panel.lines) > 1:
        ax.legend(loc="best", fontsize="small", ncol=1 + len(panel.lines) // 5)
    if panel.note:
        ax.set_title(panel.note, fontsize="small", loc="left", wrap=True)
    ax.grid(True, alpha=0.3)


def _steady_limits(ax, values):
    """Around a value that stays put to rounding (a resting contact's force), limits of +-5 % instead of
    matplotlib's zoom into the rounding noise with an offset label."""
    finite = values[np.isfinite(values)]
    if not finite.size:
        return
    low, high = finite.min(), finite.max()
    if 0 < high - low <= 1e-9 * max(abs(low), abs(high)):
        middle = (low + high) / 2
        ax.set_ylim(middle - 0.05 * abs(middle), middle + 0.05 * abs(middle))


def draw(ax, x, y, unit, x_unit=TIME, **style):
    """``ax.plot(x, y, **style)`` of a quantity in ``unit`` against one in ``x_unit`` (a 3-D axis takes
    ``zs=`` in the same unit as y), remembered for unit_problems; MechsimError when the axis already
    shows another unit: a quantity of another unit goes on an axis of its own. Returns the lines."""
    shown = {UNITS[line] for line in ax.lines if line in UNITS}
    if shown and shown != {(x_unit, unit)}:
        (x_shown, y_shown), = shown
        raise MechsimError(f"this axis shows {y_shown or 'a pure number'} against {x_shown or 'a pure number'}: "
                           f"draw {unit or 'a pure number'} against {x_unit or 'a pure number'} on an axis of its own")
    lines = ax.plot(x, y, **style)
    for line in lines:
        UNITS[line] = (x_unit, unit)
    return lines


def unit_problems(figure):
    """What in ``figure`` breaks "one quantity per axis, its unit in the label": a data line not drawn by
    draw (its unit unknown), an axis whose lines have different units, a label that does not name the
    unit (an x label may sit on an axis sharing x below). [] when nothing does. Lines across the whole
    axis (axhline, axvline) are in the axis' unit by construction and not counted."""
    problems = []
    for k, ax in enumerate(figure.axes):
        data_lines = [line for line in ax.lines if line.get_transform().contains_branch(ax.transData)]
        where = f"axis {k} ({ax.get_ylabel() or ax.get_title() or 'unlabelled'!r})"
        problems += [f"{where}: line {line.get_label()!r} drawn without a unit" for line in data_lines
                     if line not in UNITS]
        units = {UNITS[line] for line in data_lines if line in UNITS}
        if len(units) > 1:
            problems.append(f"{where}: lines of different units {sorted(units)}")
        elif units:
            (x_unit, y_unit), = units
            x_labels = [a.get_xlabel() for a in ax.get_shared_x_axes().get_siblings(ax)]
            if y_unit and not ax.get_ylabel().endswith(f"({y_unit})"):
                problems.append(f"{where}: its y label does not name the unit {y_unit}")
            if x_unit and not any(label.endswith(f"({x_unit})") for label in x_labels):
                problems.append(f"{where}: its x label {ax.get_xlabel()!r} does not name the unit {x_unit}")
    return problems
