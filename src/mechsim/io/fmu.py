"""FMI 2.0 co-simulation (SPEC §3 C12): a mechsim model exported as an FMU, and an FMU in the loop.

Export (``m.to_fmu``, pythonfmu): the FMU carries the model as a model file (resources/model.yaml),
its named inputs as FMI real inputs and the signals asked for as real outputs; each ``doStep``
simulates over the step from the state reached, the inputs held (zero-order hold, as an FMI
master sets them). pythonfmu FMUs run Python code: the tool that runs one needs a Python with
mechsim installed (fmpy in the same environment, for instance).

Import (``FMUController``, fmpy): an FMU run as a sampled controller in the loop of ``m.simulate``:
at each of its steps it gets mechsim signals on its inputs, advances one step and gives its
outputs to mechsim inputs — the exchange of a co-simulation with the forces (here: inputs) held
over the macro step, as ``ms.cosimulate(exchange="step")`` does between mechanical subsystems.
"""
import json
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np

from ..errors import MechsimError, ModelError
from ..results.result import Result
from ..results.state import State

SLAVE = '''"""mechsim model {model_name!r} as an FMI 2.0 co-simulation slave (written by mechsim's Model.to_fmu)."""
import json
import os

from pythonfmu import Fmi2Causality, Fmi2Slave, Real


class {class_name}(Fmi2Slave):
    author = "mechsim"
    description = {description!r}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with open(os.path.join(self.resources, "mechsim_fmu.json")) as file:
            self.config = json.load(file)
        self.values = dict(self.config["inputs"])
        self.values.update({{name: 0.0 for name in self.config["outputs"]}})
        for name in self.config["inputs"]:
            self.register_variable(Real(name, causality=Fmi2Causality.input, getter=lambda n=name: self.values[n],
                                        setter=lambda value, n=name: self.values.__setitem__(n, value)))
        for name in self.config["outputs"]:
            self.register_variable(Real(name, causality=Fmi2Causality.output, getter=lambda n=name: self.values[n]))
        self.run = None

    def exit_initialization_mode(self):
        from mechsim.io.fmu import start
        self.run = start(os.path.join(self.resources, "model.yaml"), self.config, self.values)

    def do_step(self, current_time, step_size):
        from mechsim.io.fmu import advance
        advance(self.run, current_time, step_size, self.values)
        return True
'''


def to_fmu(model, path, outputs=None, **options):
    """Write ``model`` as an FMI 2.0 co-simulation FMU at ``path`` (.fmu): its inputs as FMI inputs
    (start values their defaults), ``outputs`` (signal names, or "name[i]" for an entry of a vector
    signal; default every joint coordinate's .q and .v) as FMI outputs; ``options`` for the simulation
    of each step (solver, rtol, atol, ...; default RK45 at rtol 1e-8, atol 1e-10). Needs pythonfmu."""
    path = Path(path)
    if path.suffix != ".fmu":
        raise ModelError(f"to_fmu(): {path}: use a file name ending in .fmu")
    if not path.parent.is_dir():
        raise ModelError(f"to_fmu(): {path}: the directory {path.parent} does not exist")
    try:
        from pythonfmu import FmuBuilder
    except ImportError:
        raise MechsimError("to_fmu() needs pythonfmu: pip install 'mechsim[fmi]'") from None
    cm = model.compile()
    outputs = list(outputs) if outputs is not None else [f"{j}.{k}" for j in cm.joint_order if cm.joint_v[j].stop >
                                                         cm.joint_v[j].start for k in ("q", "v")]
    for name in outputs:
        output_signal(model, name)
    options = {"solver": "RK45", "rtol": 1e-8, "atol": 1e-10, **options}
    from ..simulation.simulate import checked_options
    checked_options(model, {**options, "t_end": 1.0})
    class_name = re.sub(r"\W", "_", model.name)
    class_name = class_name if class_name[:1].isalpha() else "model_" + class_name
    with tempfile.TemporaryDirectory(prefix="mechsim_fmu_") as folder:
        folder = Path(folder)
        script = folder / f"{class_name}.py"
        script.write_text(SLAVE.format(model_name=model.name, class_name=class_name,
                                       description=f"mechsim model {model.name!r}"))
        model.to_yaml(folder / "model.yaml")
        (folder / "mechsim_fmu.json").write_text(json.dumps({"inputs": dict(model.inputs), "outputs": outputs,
                                                              "options": options}))
        built = FmuBuilder.build_FMU(script, dest=folder / "out" / path.name,
                                     project_files=[folder / "model.yaml", folder / "mechsim_fmu.json"])
        shutil.move(str(built), path)
    return path


def output_signal(model, name):
    """(signal, index or None) of an output name "signal" or "signal[i]"; ModelError if unknown."""
    match = re.fullmatch(r"(.+)\[(\d+)\]", name)
    signal, index = (match.group(1), int(match.group(2))) if match else (name, None)
    if signal not in model.signals():
        raise ModelError(f"to_fmu(): unknown output signal {signal!r}; m.signals() lists them")
    return signal, index


class SlaveRun:
    """An exported FMU's run: the model, the state reached, its inputs and its outputs as
    (name, signal, entry or None), read once at initialization."""

    def __init__(self, model_file, config):
        from .model_file import load
        self.model = load(model_file)
        self.inputs, self.options = list(config["inputs"]), config["options"]
        self.outputs = [(name, *output_signal(self.model, name)) for name in config["outputs"]]
        self.state = self.model.assemble()

    def read(self, result, values):
        """The outputs at the result's last sample into ``values``."""
        for name, signal, index in self.outputs:
            value = result[signal][-1]
            values[name] = float(value if index is None else value.ravel()[index])


def start(model_file, config, values):
    """The FMU's initialization: the model loaded and assembled, the outputs at the start."""
    run = SlaveRun(model_file, config)
    cm, state = run.model.compile(), run.state
    inputs = {name: values[name] for name in run.inputs}
    run.read(Result.at(cm, state.t, np.concatenate([state.q, state.v]), cm.force_values(state.t, inputs)), values)
    return run


def advance(run, t, h, values):
    """One doStep: simulate [t, t + h] from the state reached with the inputs held; the outputs at t + h."""
    state = run.state
    state.t = t
    result = run.model.simulate(t_end=t + h, initial=state, inputs={name: values[name] for name in run.inputs},
                                t_eval=[t, t + h], **run.options)
    run.read(result, values)
    run.state = State(run.model.compile(), result.q[-1], result.v[-1], result.t[-1])
    run.state.analysis = state.analysis


class FMUController:
    """An FMU (FMI 2.0 co-simulation) as a sampled controller of m.simulate, through fmpy:
    ``inputs`` {FMU input: mechsim signal} set before each of its steps, ``outputs`` {FMU output:
    mechsim input} read after; ``step`` its communication step. ``m.simulate(t_end=..., **c.options())``."""

    def __init__(self, path, inputs, outputs, step):
        try:
            from fmpy import extract, read_model_description
            from fmpy.fmi2 import FMU2Slave
        except ImportError:
            raise MechsimError("FMUController needs fmpy: pip install 'mechsim[fmi]'") from None
        if not (isinstance(step, (int, float)) and step > 0):
            raise ModelError(f"FMUController: step must be a positive number of seconds, got {step!r}")
        self.path, self.step = str(path), float(step)
        try:
            description = read_model_description(self.path)
        except Exception as exc:
            raise ModelError(f"FMUController: {path}: not a readable FMU ({exc})") from None
        if description.coSimulation is None:
            raise ModelError(f"FMUController: {path}: the FMU has no co-simulation interface")
        variables = {v.name: v for v in description.modelVariables}
        for mapping, causality in ((inputs, "input"), (outputs, "output")):
            for name in mapping:
                if name not in variables or variables[name].causality != causality:
                    have = [v for v, var in variables.items() if var.causality == causality]
                    raise ModelError(f"FMUController: {path}: no {causality} {name!r} (its {causality}s: {have})")
        self.inputs, self.outputs = dict(inputs), dict(outputs)
        self._in = [variables[name].valueReference for name in self.inputs]
        self._out = [variables[name].valueReference for name in self.outputs]
        self._folder = extract(self.path)
        self._fmu = FMU2Slave(guid=description.guid, unzipDirectory=self._folder,
                              modelIdentifier=description.coSimulation.modelIdentifier, instanceName="mechsim")
        self._time = None

    def options(self):
        """simulate() keywords that put the FMU in the loop."""
        return {"controller": self, "sample_time": self.step, "outputs": list(dict.fromkeys(self.inputs.values()))}

    def __call__(self, t, signals):
        """At a sample t_k: the FMU's inputs set from the signals at t_k, its outputs read (held by
        mechsim over [t_k, t_k+1]), then the FMU advanced to t_k+1 (a Jacobi exchange)."""
        fmu, values = self._fmu, [float(signals[s]) for s in self.inputs.values()]
        if self._time is None:
            fmu.instantiate()
            fmu.setupExperiment(startTime=t)
            fmu.enterInitializationMode()
            fmu.setReal(self._in, values)
            fmu.exitInitializationMode()
        else:
            fmu.setReal(self._in, values)
        outputs = dict(zip(self.outputs.values(), fmu.getReal(self._out)))
        fmu.doStep(currentCommunicationPoint=t, communicationStepSize=self.step)
        self._time = t
        return outputs

    def close(self):
        """Terminate and free the FMU instance and remove its extracted files."""
        if self._time is not None:
            self._fmu.terminate()
            self._fmu.freeInstance()
            self._time = None
        shutil.rmtree(self._folder, ignore_errors=True)
