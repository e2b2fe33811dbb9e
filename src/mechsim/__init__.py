"""mechsim: physical modeling and simulation of mechanisms (SPEC.md)."""
from ._jit_cache import configure as _configure_jit_cache

_configure_jit_cache()
# the imports below compile nothing; numba reads the cache directory set above
from .analysis import Linearization, Result, State
from .dynamics.api import forward_dynamics, inverse_dynamics, mass_matrix
from .errors import MechsimError, ModelError, SimulationError
from .io import load, load_dict
from .modeling import Model
from .simulation import Event, EventRecord
from .viz.animate import animate

__version__ = "0.1.0"
__all__ = ["Model", "State", "Result", "Event", "EventRecord", "Linearization", "forward_dynamics", "inverse_dynamics", "mass_matrix",
           "load", "load_dict", "animate", "MechsimError", "ModelError", "SimulationError"]
