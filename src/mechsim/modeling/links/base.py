"""The contract of an I/O link (SPEC C13). A link is sampled like a controller with a zero-order hold
(simulation/run_inputs.py): at every step of a fixed-step run (or every ``period``), ``exchange`` gets the
values of its ``outputs`` (signal names) and returns the values of its ``inputs`` (the model's inputs) to hold
from then on — whatever it last received from the other side. ``open`` comes before a run's first exchange and
``close`` after its last, failed or not; ``stats`` is what ``res.stats["links"][name]`` reports, ``summary``
says it in words on the command line.

A *compiled* link (``compiled`` True) is not sampled: it exchanges inside the compiled right-hand side, at every
evaluation, and ``problem(system, cm)`` returns the problem the run's stepper integrates (integrators/problem.py):
the run's mechanics ``system`` on compiled model ``cm`` with the exchange around it (distributed/shared_memory.py)."""
from ...errors import ModelError
from ..names import check_name


class Link:
    kind = None
    compiled = False
    options = ()                 # the keyword arguments of the kind, as the model file writes them

    def __init__(self, name, inputs=(), outputs=(), period=None):
        check_name(name, "link")
        self.name, self.what = name, f"link '{name}'"
        self.inputs, self.outputs = self._names(inputs, "inputs"), self._names(outputs, "outputs")
        if period is not None and not (isinstance(period, (int, float)) and period > 0):
            raise ModelError(f"{self.what}: period must be a positive number of seconds, got {period!r}")
        self.period = None if period is None else float(period)

    def _names(self, names, key):
        if isinstance(names, str) or not all(isinstance(n, str) and n for n in names):
            raise ModelError(f"{self.what}: {key} must be a list of names, got {names!r}")
        return tuple(names)

    @property
    def spec(self):
        """The keyword arguments that make this link again (the model file's entry)."""
        return {"kind": self.kind, **{key: getattr(self, key) for key in self.options}}

    def check(self, model):
        """ModelError naming an input the model does not declare (the outputs are checked at a run's start)."""
        unknown = [name for name in self.inputs if name not in model.inputs]
        if unknown:
            raise ModelError(f"{self.what}: unknown input {unknown[0]!r}; the model's inputs are "
                             f"{', '.join(model.inputs) or 'none (declare them with m.add_input)'}")

    def open(self):
        raise NotImplementedError

    def exchange(self, t, outputs):
        raise NotImplementedError

    def close(self):
        raise NotImplementedError

    def stats(self):
        raise NotImplementedError

    @staticmethod
    def summary(stats):
        """A run's ``stats`` of a link of this kind in words, for the command line's report."""
        return ", ".join(f"{key} {value}" for key, value in stats.items())
