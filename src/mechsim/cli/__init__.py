"""The ``mechsim`` command line (SPEC C11)."""
from .main import main

__all__ = ["main"]
