"""No function of the package takes more than 10 parameters (issue 44): kernels take the model's and the
run's arrays grouped (dynamics/data.py), Python functions their settings as tuples. Parameters are counted
as written: positional, keyword-only, *args and **kwargs, a method's self or cls left out."""
import ast
from pathlib import Path

import pytest

import mechsim

MAX_PARAMETERS = 10
PACKAGE = Path(mechsim.__file__).parent


def parameter_count(function):
    args = function.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    method = bool(names) and names[0] in ("self", "cls")
    return len(names) - method + (args.vararg is not None) + (args.kwarg is not None)


def long_signatures(path):
    """'name (n)' of every function or lambda in the module at ``path`` taking more than MAX_PARAMETERS."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{getattr(node, 'name', 'lambda')} ({parameter_count(node)}) line {node.lineno}"
            for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            and parameter_count(node) > MAX_PARAMETERS]


@pytest.mark.parametrize("path", [pytest.param(path, id=path.relative_to(PACKAGE).as_posix())
                                  for path in sorted(PACKAGE.rglob("*.py"))])
def test_no_function_takes_more_than_ten_parameters(path):
    assert long_signatures(path) == []


def test_the_count_sees_every_kind_of_parameter(tmp_path):
    source = tmp_path / "example.py"
    source.write_text("def f(a, /, b, *args, c, **kwargs): pass\n"
                      "class C:\n    def m(self, a, b): pass\n"
                      "g = lambda " + ", ".join(f"x{k}" for k in range(11)) + ": 0\n")
    counts = [parameter_count(node) for node in ast.walk(ast.parse(source.read_text()))
              if isinstance(node, (ast.FunctionDef, ast.Lambda))]
    assert sorted(counts) == [2, 5, 11]
    assert long_signatures(source) == ["lambda (11) line 4"]
