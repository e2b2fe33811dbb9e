"""mechsim: physical modeling and simulation of mechanisms.

References, cited in the docstrings as "authors year, section or equation":

- Wood, G. D. & Kennedy, D. C. (2003). Simulating mechanical systems in Simulink with SimMechanics.
  The MathWorks, technical paper 91124v00. (Relative coordinates, Lagrange multipliers, drift
  control, redundancy, assembly, linearization, trimming, stiction.)
- Del Citto, F., Pennestrì, E. & Vita, L. (2005). Coordinates reduction and numerical integration
  of models of constrained multibody systems. (QTZ decomposition; five-bar, spherical pendulum
  with flywheel.)
- Schlotter, M. (2003). Multibody system simulation with SimMechanics. Darmstadt. (Analysis modes,
  pendulum on a cart, bodies drawn as ellipsoids and convex hulls.)
- Březina, T. et al. (2008). A Stewart platform modelled in SimMechanics. (Linearization.)
- Gillespie, R. B., Patoglu, V., Hussein, I. I. & Westervelt, E. R. (2005). On-line symbolic
  constraint embedding for simulation of hybrid dynamical systems. (Modes, impacts, rolling and
  sliding.)
- Khan, W. A., Tang, C. P. & Krovi, V. N. (2006). Modular and distributed forward dynamic
  simulation of constrained mechanical systems - a comparative study. (Four-bar benchmark.)
- Featherstone, R. (2008). Rigid Body Dynamics Algorithms (RBDA). Springer.
- Hairer, E. & Wanner, G. (1996). Solving Ordinary Differential Equations II, 2nd ed. Springer.
  (Andrews' squeezing mechanism, §VII.7.)
- Han, I. & Gilmore, B. J. (1993). Multi-body impact motion with friction. Journal of Mechanical
  Design 115. (Impacts passed on through resting contacts.)
- Hunt, K. H. & Crossley, F. R. E. (1975). Coefficient of restitution interpreted as damping in
  vibroimpact. Journal of Applied Mechanics 42. (Compliant contact.)
- Pfeiffer, F. & Glocker, C. (1996). Multibody Dynamics with Unilateral Contacts. Wiley.
- González, M., Dopico, D., Lugrís, U. & Cuadrado, J. (2006). A benchmarking system for MBS
  simulation software. Multibody System Dynamics 16, 179-190. (The N four-bar, IFToMM A02.)
"""
from ._ipython import show_figures_inline as _show_figures_inline
from ._jit_cache import configure as _configure_jit_cache
from ._lazy import export_lazily

_configure_jit_cache()          # before numba's first import: it reads its cache directory then
_show_figures_inline()          # in a notebook, res.plot's figures as images
# {name: its module}, each imported on first use (_lazy.py)
_EXPORTS = {
    "Model": "modeling", "State": "results.state", "Result": "results.result", "Event": "modeling.events",
    "EventRecord": "results.result", "Linearization": "analysis.linearize", "forward_dynamics": "dynamics.api",
    "inverse_dynamics": "dynamics.api", "mass_matrix": "dynamics.api", "load": "io", "load_dict": "io",
    "animate": "viz.animate", "simulate_batch": "distributed", "sweep": "distributed", "normal": "distributed",
    "uniform": "distributed", "cosimulate": "distributed", "FMUController": "io.fmu", "UDPLink": "modeling.links",
    "MechsimError": "errors",
    "ModelError": "errors", "SimulationError": "errors"}
export_lazily(__name__, _EXPORTS)

__version__ = "0.1.0"
__all__ = list(_EXPORTS)
