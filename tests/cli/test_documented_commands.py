"""Every command that README.md, examples/README.md and the user guide (docs/guide/*.md) show is run here, verbatim.

Which lines are commands, and which are run:

* In fenced code blocks marked ``bash``, ``sh`` or ``shell``, each line that starts with ``mechsim ``,
  ``.venv/bin/mechsim ``, ``python `` or ``python3 ``; in the tables of examples/README.md, each code
  span of the last column (run) that starts with one of these. A `` # comment`` ending a line is not
  part of the command.
* A line that makes the virtual environment (``python3 -m venv ...``: the Quickstart's two commands)
  is not run here: CI runs those two itself, verbatim (.ci/run).
* ``python examples/<script>.py ...`` lines run the example scripts, most of which tests/examples/ run
  (shortened by MECHSIM_EXAMPLE_T_END, their results checked); here each must name a script that exists.
* Every other command runs as written (shlex-split), ``mechsim`` being the entry point beside
  sys.executable. Commands of one code block run in order in one temporary directory (a later one
  may read what an earlier one wrote); each table row's commands in a directory of their own. The
  directories link in examples/ and tests/data/, so that the documented relative paths hold.
  Each command must exit with 0 within its timeout and write every file it names as an output
  (-o/--output, --plot, --animate), non-empty.

Python snippets (``python`` blocks) and commands named in the prose are not commands to run.
The blocks run two at a time, started once for the module.
"""
import re
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ("README.md", "examples/README.md",     # and the guide's pages, which hold what the README held
             *(f"docs/guide/{page.name}" for page in sorted((ROOT / "docs" / "guide").glob("*.md"))))
PROGRAMS = ("mechsim ", ".venv/bin/mechsim ", "python ", "python3 ")
SHELLS = ("bash", "sh", "shell")
RUN_CELL = re.compile(r"`([^`]+)`")
OUTPUT_OPTIONS = ("-o", "--output", "--plot", "--animate")
LINKED = ("examples", "tests/data")       # the paths the documents' commands name, relative to the root
TIMEOUT = 120                             # s, one command: a hang fails its test instead of blocking
PARALLEL = 2


def documented_commands():
    """[(document, line number, block, command)] of every command in the documents' order; block: where
    its code block or table row starts."""
    found = []
    for document in DOCUMENTS:
        language, block = None, None          # of the open code block (None: outside)
        for number, line in enumerate((ROOT / document).read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith("```"):
                language, block = (line[3:].strip() or "text") if language is None else None, f"{document}:{number}"
            elif language in SHELLS and line.startswith(PROGRAMS):
                found.append((document, number, block, line.strip()))
            elif language is None and document == "examples/README.md" and line.startswith("| `"):
                run_cell = line.rsplit("|", 2)[-2]
                found += [(document, number, f"{document}:{number}", command)
                          for command in RUN_CELL.findall(run_cell) if command.startswith(PROGRAMS)]
    return found


COMMANDS = documented_commands()
MAKES_VENV = [c for c in COMMANDS if c[3].startswith("python3 -m venv")]
SCRIPTS = [c for c in COMMANDS if c[3].startswith("python ")]
RUN = [c for c in COMMANDS if c not in MAKES_VENV and c not in SCRIPTS]


def argv(command):
    """The command as a program's arguments, ``mechsim`` the entry point of this interpreter."""
    words = shlex.split(command, comments=True)
    return [str(Path(sys.executable).with_name("mechsim")), *words[1:]]


def outputs(words):
    """The files a command writes, by its output options."""
    return [words[k + 1] for k, word in enumerate(words[:-1]) if word in OUTPUT_OPTIONS]


def run(command, folder):
    """(exit code, stderr, seconds) of ``command`` run in ``folder``; exit code None if it timed out."""
    start = time.perf_counter()
    try:
        done = subprocess.run(argv(command), cwd=folder, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, f"did not finish in {TIMEOUT} s", TIMEOUT
    return done.returncode, done.stderr, time.perf_counter() - start


def run_block(entries, folder):
    """Run a block's commands in order in ``folder``, with examples/ and tests/data/ linked in: {entry: record}."""
    for name in LINKED:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).symlink_to(ROOT / name)
    return {entry: run(entry[3], folder) for entry in entries}


@pytest.fixture(scope="module")
def block_runs(tmp_path_factory):
    """Every block started at once, PARALLEL at a time: block -> (future of its records, folder)."""
    blocks = {}
    for entry in RUN:
        blocks.setdefault(entry[2], []).append(entry)
    with ThreadPoolExecutor(PARALLEL) as pool:
        futures = {}
        for block, entries in blocks.items():
            folder = tmp_path_factory.mktemp("commands")
            futures[block] = pool.submit(run_block, entries, folder), folder
        yield futures


def test_the_documents_show_commands():
    assert len(RUN) > 30 and len(MAKES_VENV) == 2 and SCRIPTS
    assert "mechsim simulate examples/stewart_platform.yaml -o out.csv --plot out.png --signals platform.position" \
        in [c[3] for c in RUN]


@pytest.mark.parametrize("document, number, block, command", RUN, ids=[f"{c[1]}:{c[3][:60]}" for c in RUN])
def test_documented_command_runs(block_runs, document, number, block, command):
    future, folder = block_runs[block]
    code, stderr, _ = future.result()[document, number, block, command]
    assert code == 0, f"{document}:{number}: {command}\n{stderr}"
    for path in outputs(shlex.split(command, comments=True)):
        assert (folder / path).is_file() and (folder / path).stat().st_size > 0, f"{command}: no {path}"


@pytest.mark.parametrize("document, number, block, command", SCRIPTS, ids=[f"{c[1]}:{c[3][:60]}" for c in SCRIPTS])
def test_documented_script_exists(document, number, block, command):
    script = shlex.split(command, comments=True)[1]
    assert (ROOT / script).is_file(), f"{document}:{number}: {command}: no {script}"
