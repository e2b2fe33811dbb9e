"""Exception hierarchy: every user mistake raises a MechsimError with a message naming the item; a failure inside
a run (StepError, StepperFailure) reaches the user as the SimulationError that carries the partial Result.

A message about the keyword arguments of a Python call marks each keyword (``keyword("t_end")``) and
the context only a Python caller has (``in_python("simulate_kwargs: ")``): ``str(error)`` reads as
Python, and ``error.for_command_line(options, given)`` says the same in the words of a command line
that sets those keywords by its options (``give --t-end`` for ``simulate(): give t_end``)."""
import re

_MARK = re.compile(r"\{\{([!+]?)(.*?)\}\}")      # {{keyword}}, {{+keyword to give}}, {{!Python-only text}}
_CALLS = re.compile(r"^(?:\w+\(\): )+")          # the leading "function(): " of the calls made


def keyword(name, to_give=False):
    """``name`` marked in a message as a keyword argument, whose value it speaks of or (``to_give``) which it
    asks for: the command line shows the option that sets it when that option was given, or is asked for."""
    return "{{" + ("+" if to_give else "") + name + "}}"


def in_python(text):
    """``text`` marked in a message as a Python caller's context: the command line leaves it out."""
    return "{{!" + text + "}}"


def _unmarked(template, keyword_text, python_text):
    """The template with each keyword as keyword_text(name, to_give), each Python-only text as python_text(text)."""
    def text(mark):
        kind, content = mark.groups()
        return python_text(content) if kind == "!" else keyword_text(content, kind == "+")
    return _MARK.sub(text, template)


class MechsimError(Exception):
    """Base class of all mechsim errors. ``template``: the message with its marks (a wrapping error
    quotes it to keep them)."""

    def __init__(self, message="", *args):
        self.template = str(message)
        super().__init__(_unmarked(self.template, lambda name, to_give: name, str), *args)

    def for_command_line(self, options, given=()):
        """The message with each keyword asked for or ``given`` on the command line as its option (``options``:
        {keyword: option}), the others as they are (a model file's keys), without the Python context and the
        leading "function(): "."""
        def word(name, to_give):
            return options.get(name, name) if to_give or name in given else name
        return _CALLS.sub("", _unmarked(self.template, word, lambda text: ""))


class ModelError(MechsimError, ValueError):
    """A model definition, topology or assembly problem (names the body/joint/force at fault)."""


class SimulationError(MechsimError, RuntimeError):
    """An integration failure; ``partial`` holds the Result computed up to the failure."""

    def __init__(self, message, partial=None):
        super().__init__(message)
        self.partial = partial


class StepError(Exception):
    """A failure inside a run, with its message: simulate() raises it as a SimulationError carrying the Result up
    to the failure (simulation/simulate.py)."""


class StepperFailure(RuntimeError):
    """A stepper could not evaluate what was asked: ``status`` (a code of status.py) and the ``message`` saying
    what it means."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
