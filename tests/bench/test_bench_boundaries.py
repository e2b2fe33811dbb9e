"""The speed suite's boundaries (SPEC §5): mechsim.bench uses mechsim's public API only, nothing in
mechsim but the ``mechsim bench`` command imports it, and it ships the files it reads."""
import ast
import subprocess
import sys
from pathlib import Path

import mechsim
import mechsim.bench

BENCH = Path(mechsim.bench.__file__).parent


def _imports(path):
    """(module, level) of every import in a source file."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((alias.name, 0) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield node.module or "", node.level


def test_the_suite_imports_only_the_public_api_and_itself():
    for path in BENCH.glob("*.py"):
        for module, level in _imports(path):
            assert level <= 1, f"{path.name}: a relative import of mechsim's internals ({'.' * level}{module})"
            assert module == "mechsim" or not module.startswith("mechsim."), f"{path.name}: imports {module}"
    public = set(mechsim.__all__)
    for path in BENCH.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ms":
                assert node.attr in public, f"{path.name}: ms.{node.attr} is not in mechsim.__all__"


def test_nothing_but_the_bench_command_imports_the_suite():
    for path in Path(mechsim.__file__).parent.rglob("*.py"):
        if BENCH in path.parents or path.name == "bench.py" and path.parent.name == "cli":
            continue
        for module, level in _imports(path):
            assert "bench" not in module.split("."), f"{path.relative_to(BENCH.parent)} imports {module}"
    code = ("import sys, mechsim, mechsim.analysis, mechsim.simulation, mechsim.io, mechsim.viz; "
            "print('mechsim.bench' in sys.modules, 'mechsim.cli' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


def test_the_files_it_reads_ship_with_the_package():
    for name in ("pr2", "solo12"):
        assert (BENCH / "robot_files" / f"{name}.urdf").stat().st_size > 10_000
    assert (BENCH / "robot_files" / "licenses").is_dir()
    for path in BENCH.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "_repo_root" not in text and '"examples"' not in text and "tests/data" not in text, path.name
