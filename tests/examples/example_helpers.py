"""Helpers shared by the tests of examples/ (imported by the test modules and conftest.py): the example
scripts as modules, one simulation per key per session, the scripts run as programs, and the model
files through the command line."""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
_modules, _runs = {}, {}


def script(name):
    """The example script examples/<name>.py, imported as a module (its main() is not run)."""
    if str(EXAMPLES) not in sys.path:                 # as when run directly: its helpers beside it
        sys.path.append(str(EXAMPLES))
    if name not in _modules:
        spec = importlib.util.spec_from_file_location(f"mechsim_example_{name}", EXAMPLES / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _modules[name] = module
    return _modules[name]


def cached(key, make):
    """make(), once per key per session (several tests look at the same run)."""
    if key not in _runs:
        _runs[key] = make()
    return _runs[key]


def has_matplotlib():
    return importlib.util.find_spec("matplotlib") is not None


# ------------------------------------------------------------------------------ model file vs script
def model_file_and_script(case, name=None, **kwargs):
    """(examples/<case>.yaml loaded, the model built by examples/<name>.py's build_model(**kwargs)),
    checked to have the same coordinates and signals."""
    m_file, m_api = ms.load(EXAMPLES / f"{case}.yaml"), script(name or case).build_model(**kwargs)
    assert m_file.coordinates() == m_api.coordinates()
    assert m_file.signals() == m_api.signals()
    return m_file, m_api


def file_options(m_file, span, rate):
    """Simulation options: the model file's solver and tolerances, ``span`` seconds sampled ``rate``
    times a second."""
    options = {k: m_file.simulation[k] for k in ("solver", "rtol", "atol") if k in m_file.simulation}
    options.update(t_end=span, t_eval=np.linspace(0.0, span, int(rate * span) + 1))
    return options


# ------------------------------------------------------------------------------ scripts as programs
def start_script(name, args, t_end, out):
    """``python examples/<name>.py <args>`` in a subprocess, with MECHSIM_EXAMPLE_T_END=t_end and its
    figures in ``out``."""
    env = dict(os.environ, MECHSIM_EXAMPLE_T_END=t_end, MECHSIM_EXAMPLE_OUT=str(out))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.Popen([sys.executable, str(EXAMPLES / f"{name}.py"), *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish_script(proc, name, t_end, out, timeout):
    """Wait for a script started by start_script: it succeeds, says it simulated to t_end, writes one
    animation page and (with matplotlib) saves one figure in ``out``. Its standard output."""
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"examples/{name}.py did not finish in {timeout} s")
    assert proc.returncode == 0, stderr
    assert f"to t = {float(t_end):g} s" in stdout
    assert len(list(Path(out).glob("*.html"))) == 1, stdout
    if has_matplotlib():
        assert len(list(Path(out).glob("*.png"))) == 1, stdout
    return stdout


# ------------------------------------------------------------------------------ command line
def readme_cli(case, signals):
    """The command-line module (the test is skipped without it), once the README shows
    ``mechsim simulate examples/<case>.yaml`` and the model file ``--signals <signals>``."""
    cli = pytest.importorskip("mechsim.cli.main")
    assert f"mechsim simulate examples/{case}.yaml" in (EXAMPLES / "README.md").read_text()
    assert f"--signals {signals}" in (EXAMPLES / f"{case}.yaml").read_text()
    return cli


def cli_simulate(cli, case, t_end, signals, tmp_path, capsys, plot=True):
    """``mechsim simulate examples/<case>.yaml --t-end <t_end> -o out.csv --signals <signals>`` (and
    ``--plot out.png`` with matplotlib when ``plot``) succeeds: the lines of out.csv."""
    argv = ["simulate", str(EXAMPLES / f"{case}.yaml"), "--t-end", str(t_end), "-o", str(tmp_path / "out.csv"),
            "--signals", signals]
    if plot and has_matplotlib():
        argv += ["--plot", str(tmp_path / "out.png")]
    assert cli.main(argv) == 0, capsys.readouterr().err
    return (tmp_path / "out.csv").read_text().splitlines()
