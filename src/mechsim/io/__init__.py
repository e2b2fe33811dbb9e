"""Model files (YAML/JSON, SPEC §4), robot files (URDF, SDF, MJCF) and FMUs."""
from .model_file import load, load_dict, model_to_dict, save

__all__ = ["load", "load_dict", "save", "model_to_dict"]
