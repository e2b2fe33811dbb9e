"""matplotlib figures shown as images in IPython and Jupyter (issue 47). mechsim draws its plots (res.plot) on
matplotlib's Agg canvas without pyplot, so the inline backend, which registers its figure display when pyplot is
imported, never sees them: a notebook showed "<Figure size 800x320 with 1 Axes>". Kept free of heavy imports:
``import mechsim`` calls it."""
import sys


def show_figures_inline():
    """In a running IPython shell, show matplotlib Figures as PNG, drawn as the inline backend draws them.
    Registered by name (matplotlib is not imported); a display registered for Figure by type, the inline
    backend's, takes precedence over it. Outside IPython, nothing."""
    IPython = sys.modules.get("IPython")
    shell = IPython.get_ipython() if IPython else None
    if shell is not None and hasattr(shell, "display_formatter"):
        shell.display_formatter.formatters["image/png"].for_type_by_name("matplotlib.figure", "Figure", _figure_png)


def _figure_png(figure):
    from IPython.core.pylabtools import print_figure
    return print_figure(figure, "png")
