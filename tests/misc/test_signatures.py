"""No function of the package takes more than 10 parameters (issue 44): kernels take the model's and the
run's arrays grouped (dynamics/data.py), Python functions their settings as tuples. Parameters are counted
as written: positional, keyword-only, *args and **kwargs, a method's self or cls left out."""
import ast
from pathlib import Path

import pytest

import mechsim

MAX_PARAMETERS = 10
PACKAGE = Path(mechsim.__file__).parent
# modules whose long signatures other parts of issue 44 rewrite: each must still have one (strict xfail), so that
# the entry goes when they are done
PENDING = {
    "integrators/explicit.py": "the steppers' options, grouped once the event locator of issue 44 is in",
    "integrators/scipy_adapter.py": "the steppers' options, grouped once the event locator of issue 44 is in",
}


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


def modules():
    params = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        marks = [pytest.mark.xfail(reason=PENDING[name], strict=True)] if name in PENDING else []
        params.append(pytest.param(path, id=name, marks=marks))
    return params


@pytest.mark.parametrize("path", modules())
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
