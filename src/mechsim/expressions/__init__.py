"""Expressions of time (SPEC §4): a small language of functions of t, checked and never Python ``eval``
(language.py), and its compiled evaluator with exact time derivatives (evaluator.py)."""
from .language import Expression, parse_expression

__all__ = ["Expression", "parse_expression"]
