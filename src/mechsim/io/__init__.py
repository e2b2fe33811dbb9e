"""Model files (YAML/JSON) and the safe expression evaluator used in them (SPEC §4)."""
from .expressions import Expression, parse_expression
from .model_file import load, load_dict, model_to_dict, save

__all__ = ["load", "load_dict", "save", "model_to_dict", "parse_expression", "Expression"]
