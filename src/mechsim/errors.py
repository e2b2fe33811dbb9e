"""Exception hierarchy: every user mistake raises one of these with a message naming the item.

A message about the keyword arguments of a Python call marks each keyword (``keyword("t_end")``) and
the context only a Python caller has (``in_python("simulate_kwargs: ")``): ``str(error)`` reads as
Python, and ``error.for_command_line(options)`` says the same in the words of a command line that
sets those keywords by its options (``give --t-end`` for ``simulate(): give t_end``)."""
import re

_MARK = re.compile(r"\{\{(!?)(.*?)\}\}")         # {{keyword}}, {{!Python-only text}}
_CALLS = re.compile(r"^(?:\w+\(\): )+")          # the leading "function(): " of the calls made


def keyword(name):
    """``name`` marked in a message as a keyword argument: the command line shows its option instead."""
    return "{{" + name + "}}"


def in_python(text):
    """``text`` marked in a message as a Python caller's context: the command line leaves it out."""
    return "{{!" + text + "}}"


def _unmarked(template, keyword_text, python_text):
    return _MARK.sub(lambda m: python_text(m.group(2)) if m.group(1) else keyword_text(m.group(2)), template)


class MechsimError(Exception):
    """Base class of all mechsim errors. ``template``: the message with its marks (a wrapping error
    quotes it to keep them)."""

    def __init__(self, message="", *args):
        self.template = str(message)
        super().__init__(_unmarked(self.template, str, str), *args)

    def for_command_line(self, options):
        """The message with each keyword as the option that sets it (``options``: {keyword: option}; a
        keyword without one as it is), without the Python context and the leading ``function(): ``."""
        return _CALLS.sub("", _unmarked(self.template, lambda name: options.get(name, name), lambda text: ""))


class ModelError(MechsimError, ValueError):
    """A model definition, topology or assembly problem (names the body/joint/force at fault)."""


class SimulationError(MechsimError, RuntimeError):
    """An integration failure; ``partial`` holds the Result computed up to the failure."""

    def __init__(self, message, partial=None):
        super().__init__(message)
        self.partial = partial
