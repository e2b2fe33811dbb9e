"""How mechsim shows in Jupyter notebooks (issue 47): a Result as a summary with a quick plot of its
coordinates, a Model as its topology, and ``ms.animate(res)`` without a path as the 3D player inline.
Every name the user gave is escaped; matplotlib is needed only for the quick plot (left out without it)."""
import base64
import html
import io
from collections import Counter

import numpy as np

from ..errors import ModelError

STYLE = ("<style>.mechsim-repr table{border-collapse:collapse;margin:2px 0}"
         ".mechsim-repr th,.mechsim-repr td{text-align:left;vertical-align:top;padding:1px 10px 1px 0}"
         ".mechsim-repr pre{margin:2px 0;line-height:1.3}.mechsim-repr .failed{color:#c00;font-weight:bold}</style>")
PLOTTED = 8            # coordinates drawn in a Result's quick plot at most


def _box(title, body, failed=False):
    flag = ' <span class="failed">FAILED</span>' if failed else ""
    return f'{STYLE}<div class="mechsim-repr"><b>{html.escape(title)}</b>{flag}{body}</div>'


def _table(rows, header=None):
    """An HTML table of rows of plain text (escaped here)."""
    cells = lambda row, tag: "".join(f"<{tag}>{html.escape(str(cell))}</{tag}>" for cell in row)
    lines = ([f"<tr>{cells(header, 'th')}</tr>"] if header else []) + [f"<tr>{cells(row, 'td')}</tr>" for row in rows]
    return f"<table>{''.join(lines)}</table>"


def _number(value):
    return f"{value:.4g}" if isinstance(value, float) else str(value)


# ---------------------------------------------------------------- Result
def result_html(res):
    """The summary of a Result (or CoupledResult): model, span, samples, outcome, events, solver
    statistics, signal groups and a quick plot of the position coordinates."""
    from ..results.result import CoupledResult
    title = (f"CoupledResult of {', '.join(res.parts)}" if isinstance(res, CoupledResult)
             else f"Result of {res.model.name}")
    span = f"{res.t[0]:g} … {res.t[-1]:g} s" if len(res.t) else "empty"
    rows = [("t", span), ("samples", len(res.t)), ("success", "yes" if res.success else "no")]
    rows += [("message", res.message)] if res.message else []
    rows += [("events", _counted(Counter(e.kind for e in res.events)))] if res.events else []
    rows += _stats_rows(res.stats)
    rows += [("signals", _counted(Counter(signal_groups(res).values())))]
    png = quick_plot(res)
    plot = "" if png is None else f'<br><img alt="coordinates against time" src="data:image/png;base64,{_base64(png)}">'
    return _box(title, _table(rows) + plot, failed=not res.success)


def _base64(data):
    return base64.b64encode(data).decode()


def _counted(counts):
    return f"{sum(counts.values())}: " + ", ".join(f"{name} {n}" for name, n in counts.items())


def _stats_rows(stats, prefix="stats"):
    """Rows of res.stats: its numbers on one row, each nested dict (a subsystem's, res.stats['links']) on its own."""
    flat = " · ".join(f"{key} {_number(value)}" for key, value in stats.items() if not isinstance(value, dict))
    nested = [row for key, value in stats.items() if isinstance(value, dict)
              for row in _stats_rows(value, f"{prefix}.{key}")]
    return ([(prefix, flat)] if flat else []) + nested


def signal_groups(res):
    """{signal name: its group}: the section of the model it belongs to (joints, bodies, forces, ...); a
    CoupledResult's as "<subsystem>/<section>", its couplings' signals as "couplings"."""
    from ..results.result import CoupledResult
    if isinstance(res, CoupledResult):
        groups = {f"{s}/{name}": f"{s}/{group}" for s, part in res.parts.items()
                  for name, group in signal_groups(part).items()}
        return {name: groups.get(name, "couplings") for name in res.signals}
    parts = getattr(res, "parts", [res])               # a JoinedResult's stretches
    section = lambda name: next((s.section for s in (p.compiled.signals.get(name) for p in parts) if s), "other")
    return {name: section(name) for name in res.signals}


def coordinates(res):
    """(names, units, (N, n) values) of a Result's position coordinates q; a CoupledResult's named
    "<subsystem>/<coordinate>"."""
    from ..results.result import CoupledResult
    from ..results.units import coordinate_units
    if not isinstance(res, CoupledResult):
        return list(res.compiled.q_names), coordinate_units(res.compiled), res.q
    named = [(s, *coordinates(part)) for s, part in res.parts.items()]
    return ([f"{s}/{name}" for s, names, _, _ in named for name in names],
            [unit for _, _, units, _ in named for unit in units],
            np.hstack([values[:len(res.t)] for *_, values in named]))


def quick_plot(res):
    """PNG of quick_figure; None without matplotlib or samples."""
    try:
        figure = quick_figure(res)
    except ImportError:
        return None
    if figure is None:
        return None
    out = io.BytesIO()
    figure.savefig(out, format="png", dpi=72)
    return out.getvalue()


def quick_figure(res):
    """The first PLOTTED position coordinates against time, one axis per unit (viz/plot.py draw); None without
    samples. ImportError without matplotlib."""
    from .plot import TIME, draw, load_matplotlib, with_unit
    names, units, values = coordinates(res)
    if len(res.t) < 2 or not names:
        return None
    Figure, FigureCanvasAgg = load_matplotlib()
    by_unit = {}
    for k in range(min(PLOTTED, len(names))):
        by_unit.setdefault(units[k], []).append(k)
    figure = Figure(figsize=(6.4, 0.6 + 1.8 * len(by_unit)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(len(by_unit), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (unit, columns) in zip(axes, by_unit.items()):
        for k in columns:
            draw(ax, res.t, values[:, k], unit, label=names[k])
        ax.set_ylabel(with_unit("q", unit))
        ax.grid(True, alpha=0.3)
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="small")
    if len(names) > PLOTTED:
        axes[0].set_title(f"the first {PLOTTED} of {len(names)} coordinates", fontsize="small", loc="left")
    axes[-1].set_xlabel(with_unit("t", TIME))
    return figure


# ---------------------------------------------------------------- Model
def model_html(model):
    """The topology of a Model: the spanning tree of its joints from ground, the loops its cut joints
    close, then its constraints, drivers, forces, contacts, inputs, links and events."""
    from ..dynamics.topology import spanning_tree
    try:
        topology, problem = spanning_tree(model), ""
    except ModelError as exc:
        topology, problem = None, f'<div class="failed">{html.escape(str(exc))}</div>'
    parts = [f"<div>{html.escape(_counts(model, topology))}</div>", problem]
    if topology:
        parts.append(f"<pre>{html.escape(tree_text(model, topology.tree))}</pre>")
        parts += [_listing("loops", [(name, model.joints[name].kind, " → ".join(loop), topology.reasons[name])
                                     for name, loop in zip(topology.cut, topology.loops)],
                           ("cut joint", "kind", "loop", "why cut"))]
    else:
        parts.append(_listing("joints", [(j.name, j.kind, f"{j.parent} → {j.child}") for j in model.joints.values()]))
    for section, row in ELEMENT_ROWS.items():
        parts.append(_listing(section, [row(item) for item in getattr(model, section).values()]))
    parts.append(_listing("inputs", [(name, f"default {value:g}") for name, value in model.inputs.items()]))
    parts.append(_listing("links", [(link.name, link.kind, f"in: {', '.join(link.inputs) or '-'}",
                                     f"out: {', '.join(link.outputs) or '-'}") for link in model.links.values()]))
    parts.append(_listing("events", [(name, _event_signal(event)) for name, event in model.events.items()]))
    return _box(f"Model {model.name}", "".join(parts))


def _counts(model, topology):
    plural = lambda n, noun, nouns: f"{n} {noun if n == 1 else nouns}"
    loops = len(topology.loops) if topology else 0
    cut = f" ({len(topology.cut)} cut, closing {plural(loops, 'loop', 'loops')})" if loops else ""
    gravity = ", ".join(f"{g:g}" for g in model.gravity)
    return (f"{plural(len(model.bodies) - 1, 'body', 'bodies')}, {plural(len(model.joints), 'joint', 'joints')}{cut}; "
            f"gravity ({gravity})")


def tree_text(model, tree):
    """The spanning tree as indented text: ground, then each tree joint "joint (kind) → child body" under
    its parent body."""
    children = {}
    for name in tree:
        children.setdefault(model.joints[name].parent, []).append(model.joints[name])
    lines, stack = ["ground"], _branches(children, "ground", "")
    while stack:                                   # depth first, without recursion (a long chain is deep)
        joint, prefix, last = stack.pop()
        lines.append(f"{prefix}{'└─' if last else '├─'} {joint.name} ({joint.kind}) → {joint.child}")
        stack += _branches(children, joint.child, prefix + ("   " if last else "│  "))
    return "\n".join(lines)


def _branches(children, body, prefix):
    """The stack entries (joint, prefix, whether last) of a body's child joints, the first on top."""
    joints = children.get(body, [])
    return [(joint, prefix, k == len(joints) - 1) for k, joint in enumerate(joints)][::-1]


def _listing(title, rows, header=None):
    return f"<div><i>{title}</i>{_table(rows, header)}</div>" if rows else ""


def _acts_on(element):
    """What a constraint or force element connects: the joints it couples, or its bodies."""
    if element.joints_used:
        return "joints " + ", ".join(element.joints_used)
    return " – ".join(getattr(element, key) for key in ("body_a", "body_b", "body") if hasattr(element, key))


ELEMENT_ROWS = {          # a Model's listing of each kind of element: one row per element
    "constraints": lambda c: (c.name, c.kind, _acts_on(c)),
    "drivers": lambda d: (d.name, f"joint {d.joint}, coordinate {d.coordinate}"),
    "forces": lambda f: (f.name, f.kind, _acts_on(f)),
    "contacts": lambda c: (c.name, f"{c.model} {c.shape}", f"{c.body} on {c.surface}"),
}


def _event_signal(event):
    signal = getattr(event, "spec", {}).get("signal")
    return signal if isinstance(signal, str) else "a function of (t, state)"


# ---------------------------------------------------------------- the player
class Player:
    """The animation page of ``ms.animate(res)`` without a path. A notebook shows it inline, in an iframe
    of its own (the page as its srcdoc, scripts sandboxed), so that several players never share a
    document; ``html`` is the page as ``ms.animate(res, "x.html")`` writes it."""

    def __init__(self, page_html, title, size=(800, 600)):
        self.html, self.title, self.size = page_html, title, size

    def _repr_html_(self):
        width, height = self.size
        return (f'<iframe srcdoc="{html.escape(self.html)}" title="{html.escape(self.title)}: mechsim animation" '
                f'sandbox="allow-scripts" style="width:100%;max-width:{int(width)}px;height:{int(height)}px;'
                f'border:1px solid #ccd"></iframe>')

    def __repr__(self):
        return f"<mechsim animation of {self.title!r}: shown in a notebook; ms.animate(res, 'x.html') writes the page>"
