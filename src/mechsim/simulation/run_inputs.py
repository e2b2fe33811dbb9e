"""The values a run feeds the model from Python: its inputs (numbers, expressions of t, callables,
a controller's commands) and the force values and constraint targets that only Python can
evaluate (callables). They are written into the run's Data: by the compiled backend at the start,
at each controller sample and after event actions; by the Python backend before every evaluation."""
from contextlib import contextmanager

import numpy as np

from ..errors import MechsimError, ModelError, SimulationError, StepError
from ..modeling.forces import Source, number_returned
from ..results.result import Result


def input_sources(model, inputs, caller):
    """{input name: Source} for the values the user gives the model's inputs (number, expression or
    callable of t)."""
    sources = {}
    for name, value in (inputs or {}).items():
        if name not in model.inputs:
            raise MechsimError(f"{caller}: inputs names unknown input {name!r}; the model's inputs are "
                               f"{', '.join(model.inputs) or 'none (declare them with m.add_input)'}")
        sources[name] = Source(value, f"input '{name}'")
    return sources


@contextmanager
def _at_run_time():
    """A user function's bad value (ModelError from modeling/forces.py) during a run: a SimulationError."""
    try:
        yield
    except ModelError as exc:
        raise SimulationError(str(exc)) from None


class Controller:
    """A user controller in the loop: reads its outputs (joint .q/.v straight from the state, other
    signals through a one-sample Result), commands inputs, held between samples when it has a
    sample_time (zero-order hold). An I/O link is sampled as one (``what``: "link 'name'")."""

    def __init__(self, function, cm, outputs, sample_time, t0, what="controller"):
        if not callable(function):
            raise MechsimError("simulate(): controller must be a callable(t, outputs) -> {input: value}")
        if sample_time is not None and not float(sample_time) > 0:
            raise MechsimError("simulate(): sample_time must be positive")
        self.function, self.cm, self.what = function, cm, what
        names = outputs or [f"{j}.{k}" for j in cm.joint_order if cm.joint_v[j].stop > cm.joint_v[j].start
                            for k in ("q", "v")]
        self.readers, self.signals = {}, []
        for name in names:
            section, joint, kind = cm.signals.get(name) or (None, None, None)
            if section == "joints" and kind in ("q", "v") and joint in cm.joint_q:
                index = cm.joint_q[joint] if kind == "q" else slice(cm.nq + cm.joint_v[joint].start,
                                                                    cm.nq + cm.joint_v[joint].stop)
                self.readers[name] = (index, index.stop - index.start == 1)
            elif name in cm.signals:
                self.signals.append(name)
            else:
                raise MechsimError(f"simulate(): unknown {what} output {name!r}; m.signals() lists the names")
        self.sample_time = None if sample_time is None else float(sample_time)
        self.t0 = t0

    def next_sample(self, t):
        """The first sample instant after t (inf for a continuous controller)."""
        if self.sample_time is None:
            return np.inf
        k = np.floor((t - self.t0) / self.sample_time + 1e-9) + 1
        return self.t0 + k * self.sample_time

    def is_sample(self, t):
        """True when t is a sample instant."""
        if self.sample_time is None:
            return False
        k = (t - self.t0) / self.sample_time
        return abs(k - np.round(k)) < 1e-9

    def commands(self, t, y, u, active):
        """{input: value} the controller commands at (t, y), u the force values last applied."""
        cm = self.cm
        outputs = {name: (float(y[i][0]) if scalar else y[i].copy()) for name, (i, scalar) in self.readers.items()}
        if self.signals:
            res = Result.at(cm, t, y, u, active)
            outputs.update({name: (float(res[name][0]) if np.ndim(res[name][0]) == 0 else res[name][0].copy())
                            for name in self.signals})
        commands = self.function(t, outputs)
        commands = {} if commands is None else commands
        if not isinstance(commands, dict):
            raise SimulationError(f"controller returned {commands!r} at t = {t:.6g}; it must return a dict "
                                  "{input: value}")
        for name in commands:
            if name not in cm.model.inputs:
                raise SimulationError(f"controller returned unknown input {name!r} at t = {t:.6g}; the model's "
                                      f"inputs are {', '.join(cm.model.inputs) or 'none'}")
        with _at_run_time():
            return {name: number_returned(value, f"controller's input {name!r}", t) for name, value in commands.items()}


def model_python_reasons(cm):
    """Why any run of compiled model ``cm`` evaluates something in Python (empty: none)."""
    reasons = []
    if cm.python_slots:
        reasons.append(f"force '{cm.slot_force[cm.python_slots[0][0]]}' is a Python callable")
    if cm.rows.timed:
        reasons.append(f"the motion of '{cm.rows.owner[cm.rows.timed[0][0]][1]}' is a Python callable or is "
                       "given by its velocity or acceleration")
    return reasons


def run_links(model, links):
    """The I/O links of a run: the model's, then ``links``, those given to the run (simulate(links=...))."""
    return [*model.links.values(), *(links or ())]


class RunInputs:
    """Input values, their sources and the controller of one run, and the Python-given entries of its
    Data (force values u, constraint targets con_t)."""

    def __init__(self, cm, opts, t0):
        self.cm, self.run_data, self.backend = cm, None, None     # the driver's, set by ``use`` and the driver
        self.values = dict(cm.model.inputs)
        self.sources = input_sources(cm.model, opts["inputs"], "simulate()")
        self.controller = None if opts["controller"] is None else Controller(
            opts["controller"], cm, opts["outputs"], opts["sample_time"], t0)
        self.links = run_links(cm.model, opts["links"])
        self.compiled_links = [link for link in self.links if link.compiled]
        link_samplers = [self._link_sampler(link, cm, opts, t0) for link in self.links if not link.compiled]
        self.samplers = ([] if self.controller is None else [self.controller]) + link_samplers

    @staticmethod
    def _link_sampler(link, cm, opts, t0):
        """The Controller that samples an I/O link every step h (or its own period)."""
        link.check(cm.model)
        period = link.period or opts["h"]
        if period is None:
            raise MechsimError(f"simulate(): {link.what} exchanges at every fixed step: give a fixed-step "
                               f"solver and its step h (solver='RK4', h=...), or the link a period=")
        return Controller(link.exchange, cm, list(link.outputs), period, t0, what=link.what)

    def use(self, cm, data):
        """Write into the Data ``data`` of compiled model ``cm`` from now on."""
        self.cm, self.run_data = cm, data

    def python_reasons(self):
        """Why this run needs the Python backend (empty: it can run compiled)."""
        reasons = model_python_reasons(self.cm)
        varying = [name for name, source in self.sources.items() if not source.is_constant]
        if varying:
            reasons.append(f"input '{varying[0]}' varies with time (give a model force an expression to keep it "
                           "compiled)")
        if self.controller is not None and self.controller.sample_time is None:
            reasons.append("the controller is continuous (give sample_time= to run it compiled)")
        if reasons and self.compiled_links:
            raise MechsimError(f"simulate(): {self.compiled_links[0].what} exchanges in compiled code, but "
                               f"{reasons[0]}")
        return reasons

    @property
    def data(self):
        """The run's DataArrays, where the values are written."""
        return self.run_data.arrays

    def _evaluate_sources(self, t):
        if not self.sources:
            return
        with _at_run_time():
            for name, source in self.sources.items():
                self.values[name] = source(t)

    def start(self, t, y):
        """Values at the start of the run; a controller and the links take their first sample."""
        self._evaluate_sources(t)
        self._write(t)
        for sampler in self.samplers:
            self.values.update(sampler.commands(t, y, self.data.u, self.run_data.active_rows()))
            self._write(t)

    def python_values(self, t, y, sample_controller=True):
        """Before an evaluation on the Python path: sources, a continuous controller, callables at t."""
        self._evaluate_sources(t)
        if sample_controller and self.controller is not None and self.controller.sample_time is None:
            self._write(t)
            self.values.update(self.controller.commands(t, y, self.data.u, self.run_data.active_rows()))
        self._write(t)

    def _write(self, t):
        with _at_run_time():
            u = self.cm.force_values(t, self.values, out=self.data.u)
            self.cm.rows.targets(t, self.data.con_t)
        if not np.isfinite(u).all():
            bad = [name for name, value in self.values.items() if not np.isfinite(value)]
            what = f"input '{bad[0]}'" if bad else \
                f"the value of force '{self.cm.slot_force[np.flatnonzero(~np.isfinite(u))[0]]}'"
            raise StepError(f"{what} is not finite at t = {t:.6g}")

    def next_sample(self, t):
        return min([sampler.next_sample(t) for sampler in self.samplers], default=np.inf)

    def is_sample(self, t):
        return any(sampler.is_sample(t) for sampler in self.samplers)

    def sample(self, t, y):
        """The update at t of the sampled controller and links whose sample it is."""
        for sampler in self.samplers:
            if sampler.is_sample(t):
                self._write(t)
                self.values.update(sampler.commands(t, y, self.data.u, self.run_data.active_rows()))
        self._write(t)

    @contextmanager
    def links_open(self):
        """The run's I/O links open (sockets bound) inside the block, closed after it however it ends."""
        opened = []
        try:
            for link in self.links:
                link.open()
                opened.append(link)
            yield
        finally:
            for link in opened:
                link.close()

    def link_stats(self):
        return {link.name: link.stats() for link in self.links}

    def set(self, name, value, t):
        """An event action's new value for an input, from t on."""
        if name not in self.values:
            raise MechsimError(f"set_input(): unknown input {name!r}; the model's inputs are "
                               f"{', '.join(self.values) or 'none'}")
        source = Source(value, f"input '{name}'")
        if not source.is_constant and self.backend == "compiled":
            raise MechsimError(f"set_input({name!r}): a value varying with time needs the Python backend "
                               "(simulate(..., backend='python'))")
        self.sources[name] = source
        self._evaluate_sources(t)
        self._write(t)

    def force_values(self, t, y):
        """The force values applied at a recorded sample (t, y)."""
        if self.backend == "python":
            self.python_values(t, y, sample_controller=False)
        return self.cm.force_values(t, self.values)

    def recorded_force_values(self, T, Y):
        """The force values applied at recorded samples (T[k], Y[k]), one array each (one shared array
        when nothing varies within a compiled stretch: inputs change only between stretches)."""
        if self.backend == "python" or self.cm.expression_slots:
            return [self.force_values(float(t), y) for t, y in zip(T, Y)]
        return [self.cm.force_values(0.0, self.values)] * len(T)
