"""Inside an exported FMU (io/fmu.py writes it): mechsim's side of its pythonfmu slave — the FMI variables of its
resources/mechsim_fmu.json, the modelDescription completed (units, the initial unknowns, the naming convention), and
one m.simulate advanced by each doStep (simulation/stepping.py), its hybrid state kept across steps and in
fmi2GetFMUstate/SetFMUstate.

Errors are logged (FMI logger, and stderr: pythonfmu forwards a log only where the master turned debug logging on)
and reported as a failed doStep, never raised: pythonfmu 0.7 releases its instance once more after an exception
raised from a callback (PySlaveInstance::handle_py_exception, then the destructor), which corrupts the heap.
"""
import json
import re
import sys
from pathlib import Path
from xml.etree.ElementTree import Element, SubElement

import numpy as np
from pythonfmu import Fmi2Causality, Fmi2Initial, Fmi2Variability, Real
from pythonfmu.enums import Fmi2Status
from pythonfmu.default_experiment import DefaultExperiment

from ..errors import MechsimError
from .fmu import CONFIG

STRUCTURED = re.compile(r"[A-Za-z_]\w*(\[\d+\])?(\.[A-Za-z_]\w*(\[\d+\])?)*")   # FMI's structured names (ours)
BASE_UNITS = {"kg": {"kg": 1}, "m": {"m": 1}, "s": {"s": 1}, "rad": {"rad": 1}, "N": {"kg": 1, "m": 1, "s": -2}}
EVENTS = "logEvents"      # the log category of the run's events
SAME_TIME = 1e-9          # a communication point this close (relative to max(1, |t|)) to where the run is: there


class Exported:
    """The FMI variables and the run of one FMU instance (``slave``: the pythonfmu Fmi2Slave)."""

    def __init__(self, slave):
        self.slave = slave
        self.config = json.loads(Path(slave.resources, CONFIG).read_text())
        self.values = {}
        for name, start, description in self.config["inputs"]:
            self._register(name, start, description, Fmi2Causality.input, Fmi2Variability.continuous)
        for name, start, _, description in self.config["parameters"]:
            self._register(name, start, description, Fmi2Causality.parameter, Fmi2Variability.fixed,
                           Fmi2Initial.exact)
        for name, *_, description in self.config["outputs"]:
            self._register(name, 0.0, description, Fmi2Causality.output, Fmi2Variability.continuous, writable=False)
        experiment = self.config["experiment"]
        slave.log_categories = {**slave.log_categories, EVENTS: "the run's events and mode switches (full precision)"}
        slave.default_experiment = DefaultExperiment(experiment["start"], experiment["stop"], experiment["step"],
                                                     experiment["tolerance"])
        self.run, self.failure = None, "the initialization has not ended (fmi2ExitInitializationMode)"
        self.start_time, self.stop_time, self.tolerance = 0.0, None, None

    def _register(self, name, start, description, causality, variability, initial=None, writable=True):
        self.values[name] = float(start)
        setter = (lambda value, n=name: self.values.__setitem__(n, float(value))) if writable else None
        self.slave.register_variable(Real(name, causality=causality, variability=variability, initial=initial,
                                          description=description, getter=lambda n=name: self.values[n],
                                          setter=setter), nested=False)

    # ---------------------------------------------------------------- the modelDescription
    def model_description(self, root):
        """pythonfmu's modelDescription (``root``) with the units, the outputs as initial unknowns, and the flat
        naming convention when some name is not a structured one."""
        units = {entry[0]: entry[2] for entry in self.config["parameters"]}
        units.update({entry[0]: entry[3] for entry in self.config["outputs"]})
        if not all(STRUCTURED.fullmatch(name) for name in self.values):
            root.set("variableNamingConvention", "flat")
        definitions = Element("UnitDefinitions")
        for unit in sorted({unit for unit in units.values() if unit}):
            SubElement(SubElement(definitions, "Unit", name=unit), "BaseUnit",
                       {k: str(v) for k, v in base_units(unit).items()})
        children = list(root)
        root.insert(children.index(root.find("CoSimulation")) + 1, definitions)
        for variable in root.find("ModelVariables"):
            if units.get(variable.get("name")):
                variable.find("Real").set("unit", units[variable.get("name")])
        structure = root.find("ModelStructure")
        outputs = structure.find("Outputs")
        if outputs is not None:
            initial = SubElement(structure, "InitialUnknowns")
            for unknown in outputs:
                SubElement(initial, "Unknown", index=unknown.get("index"))
        return root

    # ---------------------------------------------------------------- the run
    def setup_experiment(self, start_time, stop_time, tolerance):
        self.start_time, self.stop_time, self.tolerance = float(start_time), stop_time, tolerance

    def start(self):
        """The model loaded with the parameters set, its run started at the start time, the outputs there."""
        self.failure = None
        self._reporting(self._start)

    def _start(self):
        from ..simulation.stepping import SteppedRun
        from .model_file import load
        model = load(Path(self.slave.resources, "model.yaml"))
        changed = {path: self.values[path] for path, start, *_ in self.config["parameters"]
                   if self.values[path] != start}
        if changed:
            model = model.with_parameters(changed)
        options = {**self.config["options"], "inputs": self._inputs(), "t_end": self._horizon(model),
                   "progress": False, "realtime": False}
        if self.tolerance is not None:
            options["rtol"] = self.tolerance
        if self.start_time != 0.0:
            options["initial"] = model.assemble(t=self.start_time)
        self.run, self.logged = SteppedRun(model, **options), 0
        self._read()

    def _horizon(self, model):
        """The run's t_end: the master's stop time, else the file's, else a second on (steps go past it)."""
        for t_end in (self.stop_time, model.simulation.get("t_end")):
            if t_end is not None and t_end > self.start_time:
                return float(t_end)
        return self.start_time + 1.0

    def step(self, t, h):
        """One doStep: the inputs held from t, the run advanced to t + h, the outputs there. False on a failure."""
        return self._reporting(self._step, t, h)

    def _step(self, t, h):
        if self.failure is not None:
            raise MechsimError(f"cannot step: {self.failure}")
        run = self.run
        if abs(t - run.t) > SAME_TIME * max(1.0, abs(t)):
            raise MechsimError(f"doStep from t = {t!r}: the FMU is at t = {run.t!r}; step on from there, or set a "
                               "state saved with fmi2GetFMUstate")
        run.hold_inputs(self._inputs())
        run.advance(t + h)
        self._read()
        if run.ended:
            raise MechsimError(f"a termination event ended the run at t = {run.t!r}")

    def _inputs(self):
        return {name: self.values[name] for name, *_ in self.config["inputs"]}

    def _read(self):
        """The outputs at the instant the run reached; its events since the last read logged."""
        sample, entries = self.run.signals(), {}
        for name, signal, index, *_ in self.config["outputs"]:
            if signal not in entries:
                entries[signal] = np.ravel(sample[signal][0])
            self.values[name] = float(entries[signal][index or 0])
        for record in self.run.events[self.logged:]:
            self.slave.log(f"event at t = {record.time!r}: {record.kind} {record.name}: {record.detail}",
                           category=EVENTS)
        self.logged = len(self.run.events)

    def snapshot(self):
        """fmi2GetFMUstate: the run's instant and the variables' values."""
        return {"run": None if self.run is None else self.run.snapshot(), "values": dict(self.values)}

    def restore(self, state):
        """fmi2SetFMUstate: back (or on) to a snapshot."""
        self.values.update(state["values"])
        if state["run"] is not None and self.run is not None:
            self._reporting(self.run.restore, state["run"])

    def close(self):
        if self.run is not None:
            self.run.close()

    def _reporting(self, action, *args):
        """action(*args); an exception logged (and kept as the failure of a start), not raised. Returns success."""
        try:
            action(*args)
            return True
        except Exception as exc:            # raised into pythonfmu, it would corrupt the heap (module docstring)
            message = str(exc) if isinstance(exc, MechsimError) else f"{type(exc).__name__}: {exc}"
            if self.run is None:
                self.failure = f"the initialization failed: {message}"
            self.slave.log(message, Fmi2Status.error)
            print(f"error: FMU '{self.slave.modelName}' ({self.slave.instance_name}): {message}", file=sys.stderr,
                  flush=True)
            return False


def base_units(unit):
    """{SI base unit: exponent} of a unit written as factors ("N.m.s/rad", "m/s2"); {} when a factor is unknown."""
    exponents = {}
    numerator, _, denominator = unit.partition("/")
    for sign, part in ((1, numerator), (-1, denominator)):
        for factor in filter(None, part.split(".")):
            match = re.fullmatch(r"([A-Za-z]+)(\d*)", factor)
            if match is None or match[1] not in BASE_UNITS:
                return {}
            for base, exponent in BASE_UNITS[match[1]].items():
                exponents[base] = exponents.get(base, 0) + sign * exponent * int(match[2] or 1)
    return {base: exponent for base, exponent in exponents.items() if exponent}
