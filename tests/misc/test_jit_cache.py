"""The numba cache directory is keyed on every compiled source (mechsim/_jit_cache.py)."""
import re
from pathlib import Path

import pytest
from numba.core import config

import mechsim
from mechsim import _jit_cache

SRC = Path(mechsim.__file__).resolve().parent


@pytest.fixture(autouse=True)
def keep_numba_cache_dir(monkeypatch):
    monkeypatch.setattr(config, "CACHE_DIR", config.CACHE_DIR)     # restored after each test


def test_every_module_with_compiled_code_or_its_constants_is_keyed():
    compiled = {p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py") if re.search(r"@njit|@jit\b", p.read_text())}
    constants = {"dynamics/layout.py", "modeling/joints.py", "io/expressions.py"}   # constants frozen into kernels
    keyed = {p.relative_to(SRC).as_posix() for name in _jit_cache.COMPILED_SOURCES
             for p in ((SRC / name).glob("*.py") if (SRC / name).is_dir() else [SRC / name])}
    assert compiled | constants <= keyed


def test_cache_directory_follows_the_sources(monkeypatch, tmp_path):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    _jit_cache.configure()
    first = Path(_jit_cache.os.environ["NUMBA_CACHE_DIR"])
    assert first.parent == tmp_path / "mechsim" / "numba" and first.is_dir()
    original = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: original(self) + (b"#" if self.name == "kernels.py" else b""))
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    _jit_cache.configure()
    assert Path(_jit_cache.os.environ["NUMBA_CACHE_DIR"]) != first


def test_user_cache_directory_is_respected(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    _jit_cache.configure()
    assert _jit_cache.os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")
