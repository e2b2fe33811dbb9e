"""FMI 2.0 co-simulation (SPEC §3 C12): a mechsim model exported as an FMU, and an FMU in the loop.

Export (``m.to_fmu``, ``mechsim fmu``; pythonfmu): the FMU carries the model as a model file (resources/model.yaml)
and its FMI interface (resources/mechsim_fmu.json): the model's inputs as real inputs, its masses and force and
contact parameters as parameters (parameter paths, modeling/parameters.py: "bodies.block.mass"), every entry of
the signals asked for (default: all) as a real output ("float.q[3]"), each with its unit and a description; a
DefaultExperiment from the file's simulation section, whose solver settings the FMU's run uses. The FMU runs
mechsim's Python code (io/fmu_slave.py): one m.simulate advanced by each doStep, its hybrid state kept.

Import (``FMUController``, fmpy): an FMU run as a sampled controller in the loop of ``m.simulate``:
at each of its steps it gets mechsim signals on its inputs, advances one step and gives its
outputs to mechsim inputs — the exchange of a co-simulation with the forces (here: inputs) held
over the macro step, as ``ms.cosimulate(exchange="step")`` does between mechanical subsystems.
"""
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from ..errors import MechsimError, ModelError
from ..modeling.names import split_index
from ..modeling.parameters import current_value, parse_path
from ..results.units import signal_units
from ..simulation.options import OPTIONS, is_number

CONFIG = "mechsim_fmu.json"       # the FMU's interface, in its resources beside model.yaml
# simulate() options that are not the FMU's: the master gives the times and inputs, nothing runs from Python
NOT_FMU_OPTIONS = ("t_end", "t_eval", "inputs", "controller", "outputs", "sample_time", "events", "initial",
                   "progress", "links", "realtime")
FMU_OPTIONS = tuple(key for key in OPTIONS if key not in NOT_FMU_OPTIONS)
NOUNS = {"bodies": "body", "joints": "joint", "forces": "force element", "constraints": "constraint",
         "contacts": "contact"}
QUANTITIES = {"q": "coordinates", "v": "velocities", "a": "accelerations", "force": "generalized forces",
              "reaction": "reaction wrench on the child (torque, force)", "position": "position of the body frame",
              "rotation": "rotation matrix, row-major", "quat": "orientation quaternion", "velocity": "velocity",
              "omega": "angular velocity", "acceleration": "acceleration (angular, linear)"}
COEFFICIENTS = ("static", "kinetic", "restitution", "exponent", "mu")   # of a contact: pure numbers
NOT_QUANTITIES = ("coordinate",)                                       # an index among a joint's coordinates

SLAVE = '''"""mechsim model {model_name!r} as an FMI 2.0 co-simulation slave, written by mechsim's Model.to_fmu: the
Python that loads it runs it with mechsim (mechsim/io/fmu_slave.py)."""
import atexit
import ctypes
import sys
from pathlib import Path

from pythonfmu import Fmi2Slave

RELEASED = set()          # the FMU libraries whose PyState is released at the Python's exit (release_at_exit)


def release_at_exit(slave):
    """pythonfmu 0.7's export library destroys its global std::shared_ptr<PyState> twice when a Linux process exits:
    by the C++ static destructor, then by its __attribute__((destructor)) finalizePythonInterpreter(), which assigns
    nullptr to the destroyed pointer and so decrements a count inside freed memory: a link of glibc's free lists
    when the heap is busy ("corrupted double-linked list", abort at exit). Where the host is a Python program (its
    command line in sys.orig_argv), finalizePythonInterpreter runs at the Python's exit instead, before the static
    destructor, which then finds the pointer released; whether mechsim imports or not. Nothing at the build (no
    library yet) nor off Linux."""
    library = Path(slave.resources).parent / "binaries" / "linux64" / f"{{slave.modelName}}.so"
    if library in RELEASED or not (sys.platform.startswith("linux") and sys.orig_argv and library.is_file()):
        return
    RELEASED.add(library)
    atexit.register(ctypes.CDLL(str(library)).finalizePythonInterpreter)


class {class_name}(Fmi2Slave):
    author = "mechsim"
    description = {description!r}

    def __init__(self, **kwargs):
        # pythonfmu's native loader (PySlaveInstance.cpp, findClass) releases at each fmi2Instantiate a reference to
        # this module's globals that it never took (Py_DECREF of PyModule_GetDict's borrowed reference): taken back
        # here, or the dictionary is freed while the module still uses it
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(globals()))
        super().__init__(**kwargs)
        release_at_exit(self)
        try:
            from mechsim.io.fmu_slave import Exported
        except ImportError as exc:
            message = (f"the FMU {model_name!r} runs mechsim's Python code, and the Python that loaded it "
                       f"({{sys.executable}}, Python {{sys.version.split()[0]}}) cannot import mechsim ({{exc}}): "
                       "install mechsim into that Python (pip install 'mechsim[fmi]')")
            print(f"error: {{message}}", file=sys.stderr, flush=True)
            raise ImportError(message) from None
        self.exported = Exported(self)

    def to_xml(self, model_options=dict()):
        return self.exported.model_description(super().to_xml(model_options))

    def setup_experiment(self, start_time, stop_time, tolerance):
        self.exported.setup_experiment(start_time, stop_time, tolerance)

    def exit_initialization_mode(self):
        self.exported.start()

    def do_step(self, current_time, step_size):
        return self.exported.step(current_time, step_size)

    def terminate(self):
        self.exported.close()

    def _get_fmu_state(self):
        return self.exported.snapshot()

    def _set_fmu_state(self, state):
        self.exported.restore(state)
'''


def to_fmu(model, path, outputs=None, **options):
    """Write ``model`` as an FMI 2.0 co-simulation FMU at ``path`` (.fmu): its inputs, parameters and the entries of
    ``outputs`` (signal names, "name[i]" for one entry of a vector signal; default every signal) as FMI variables;
    ``options``: simulate() options of its run (solver, rtol, atol, ...) over the model file's. Needs pythonfmu."""
    path = Path(path)
    if path.suffix != ".fmu":
        raise ModelError(f"to_fmu(): {path}: use a file name ending in .fmu")
    if not path.parent.is_dir():
        raise ModelError(f"to_fmu(): {path}: the directory {path.parent} does not exist")
    try:
        from pythonfmu import FmuBuilder
    except ImportError:
        raise MechsimError("to_fmu() needs pythonfmu: pip install 'mechsim[fmi]'") from None
    config = {"inputs": input_entries(model), "parameters": parameter_entries(model),
              "outputs": output_entries(model, outputs), "options": fmu_options(model, options),
              "experiment": default_experiment(model, options)}
    class_name = re.sub(r"\W", "_", model.name)
    class_name = class_name if class_name[:1].isalpha() else "model_" + class_name
    with tempfile.TemporaryDirectory(prefix="mechsim_fmu_") as folder:
        folder = Path(folder)
        script = folder / f"mechsim_fmu_{class_name}.py"   # pythonfmu imports it: never a module already loaded
        script.write_text(SLAVE.format(model_name=model.name, class_name=class_name,
                                       description=f"mechsim model {model.name!r}"))
        model.to_yaml(folder / "model.yaml")
        (folder / CONFIG).write_text(json.dumps(config, indent=1))
        built = build(FmuBuilder, script, [folder / "model.yaml", folder / CONFIG], folder / "out" / path.name)
        shutil.move(str(built), path)
    return path


def build(builder, script, files, dest):
    """pythonfmu's build of ``script`` with ``files`` in its resources, the FMU state functions on; the module
    and the sys.path entry the build leaves behind dropped (another export of the same name builds anew)."""
    path = list(sys.path)
    try:
        return builder.build_FMU(script, dest=dest, project_files=files, canGetAndSetFMUstate=True)
    finally:
        sys.path[:] = path
        sys.modules.pop(script.stem, None)


# ------------------------------------------------------------------------------ the FMI variables
def input_entries(model):
    """[name, start, description] of each model input."""
    return [[name, float(value), f"input '{name}' of the model, held over each communication step"]
            for name, value in model.inputs.items()]


def parameter_entries(model):
    """[path, start, unit, description] of each body's mass and each number among the force elements' and
    contacts' parameters (modeling/parameters.py paths)."""
    paths = [f"bodies.{name}.mass" for name in model.bodies if name != "ground"]
    for section in ("forces", "contacts"):
        for name, element in getattr(model, section).items():
            paths += [f"{section}.{name}.{argument}" for argument in sorted(set(element._arguments()) -
                                                                            element._fixed())
                      if argument not in NOT_QUANTITIES]
    entries = []
    for text in paths:
        path = parse_path(model, text)
        value = current_value(model, path)
        if is_number(value):
            entries.append([text, float(value), parameter_unit(model, path),
                            f"{path.argument} of {NOUNS[path.section]} '{path.item}' (set before the initialization)"])
    return entries


def parameter_unit(model, path):
    """The unit of a parameter ("" for a pure number or one this table does not know)."""
    if path.argument == "mass":
        return "kg"
    if path.section == "contacts" and path.argument in COEFFICIENTS:
        return ""
    element, force, length = getattr(model, path.section)[path.item], "N", "m"
    if getattr(element, "joint", None) in model.joints:          # acting on one coordinate of a joint
        coordinate = getattr(element, "coordinate", None) or 0
        force = fmi_unit(signal_units(model, f"{element.joint}.force")[coordinate])
        length = fmi_unit(signal_units(model, f"{element.joint}.q")[coordinate])
    return {"stiffness": f"{force}/{length}", "damping": f"{force}.s/{length}", "rest_length": length,
            "static": force, "kinetic": force, "value": force, "radius": "m", "slip_tolerance": f"{length}/s",
            "min_bounce_speed": "m/s"}.get(path.argument, "")


def output_entries(model, names):
    """[name, signal, entry or None, unit, description] of every entry of the signals ``names`` ("signal" or
    "signal[i]"; default every signal), once each: a vector signal's entries as "signal[i]"; ModelError for unknown
    ones."""
    sample, known = initial_sample(model), model.signals()
    entries = {}
    for name in known if names is None else names:
        signal, index = split_index(name)
        if signal not in known:
            raise ModelError(f"to_fmu(): unknown output signal {signal!r}; m.signals() lists them")
        size = np.size(sample[signal][0])
        if index is not None and index >= size:
            raise ModelError(f"to_fmu(): output {name!r}: {signal} has {size} entries, 0 to {size - 1}")
        units = signal_units(model, signal) or [""] * size
        section, item, quantity = model.compile().signals.get(signal)
        what = f"{QUANTITIES.get(quantity, quantity)} of {NOUNS.get(section, section)} '{item}'"
        for i in ([index] if index is not None else range(size)):
            vector = size > 1 or index is not None
            entry = f"{signal}[{i}]" if vector else signal
            entries[entry] = [entry, signal, i if vector else None, fmi_unit(units[i]),
                              what + (f", entry {i}" if vector else "")]
    return list(entries.values())


def initial_sample(model):
    """The one-sample Result of the assembled initial state: the signals' sizes."""
    from ..results.result import Result
    cm, state = model.compile(), model.assemble()
    y = np.concatenate([state.q, state.v])
    return Result.at(cm, state.t, y, cm.force_values(state.t, dict(model.inputs)))


def fmi_unit(unit):
    """A unit as FMI names it (ASCII: N.m, rad/s2); "" for none."""
    return unit.replace("·", ".").replace("²", "2")


# ------------------------------------------------------------------------------ the run
def fmu_options(model, options):
    """The simulate() options given to to_fmu (over the model file's), checked: names the FMU's run takes, and
    values a model file can hold."""
    from ..simulation.simulate import checked_options
    for name in options:
        if name not in FMU_OPTIONS:
            raise ModelError(f"to_fmu(): {name!r} is not an option of the FMU's run (the master gives its times and "
                             f"inputs); its options are {', '.join(FMU_OPTIONS)}")
    checked_options(model, {**options, "t_end": 1.0})
    try:
        json.dumps(options)
    except TypeError:
        raise ModelError(f"to_fmu(): options must be names and numbers, got {options!r}") from None
    return options


def default_experiment(model, options):
    """{start, stop, step, tolerance} of the FMU's DefaultExperiment: the file's t_end and output step, the run's
    relative tolerance (None where the model says nothing)."""
    from ..simulation.options import resolve
    opts = resolve(model, options)
    t_eval, step = opts["t_eval"], None
    if isinstance(t_eval, dict) and t_eval["num"] > 1:
        step = (t_eval["stop"] - t_eval["start"]) / (t_eval["num"] - 1)
    elif t_eval is not None and np.size(t_eval) > 1:
        step = float(np.median(np.diff(t_eval)))
    stop = None if opts["t_end"] is None else float(opts["t_end"])
    return {"start": 0.0, "stop": stop, "step": step, "tolerance": float(opts["rtol"])}


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
