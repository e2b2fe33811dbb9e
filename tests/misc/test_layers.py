"""The packages of mechsim form layers that read top-down (ARCHITECTURE.md, "Layers"): an import goes down the
declared order, never up, and no module or package imports itself through others when imported.

Read from the source with ``ast``. A module-level import runs when its module is imported; so does the
``__init__`` of every package the imported module sits in. An import inside a function runs when the function is
called (a lazy one): it goes down the layers as well, but for the facades that reach the layers above on purpose."""
import ast
from pathlib import Path

import mechsim

SRC = Path(mechsim.__file__).resolve().parent

# bottom to top; a layer lists its packages (a top-level module counts as a package of its own). An import goes to
# the importer's own package or to a lower layer, never to a peer in the same layer.
LAYERS = (
    ("_kernel_cache",),   # numba's cache shared by processes (imported by _jit_cache's listener)
    ("_jit_cache", "_lazy", "_ipython", "errors", "status"),  # foundations: no import of mechsim above them
    ("spatial",),         # spatial algebra, rotations
    ("expressions",),     # the language of functions of t, and its compiled evaluator
    ("modeling",),        # what users build: Model, bodies, joints, elements, events as data
    ("dynamics",),        # compile, the model's arrays, kernels
    ("integrators",),     # steppers on plain ODEs: no mechanics
    ("results",),         # State and Result: what runs and analyses return
    ("assembly",),        # consistent positions and velocities: analyses and runs start from it
    ("simulation",),      # the driver, events, modes
    ("analysis",),        # inverse dynamics, kinematics, trim, linearization: users of simulation
    ("io", "viz", "distributed"),   # files, pictures, many runs
    ("mechsim",),         # the public names, each imported on first use (_lazy.py)
    ("bench",),           # the speed suite, on the public names
    ("cli",),             # the command line
    ("__main__",),        # python -m mechsim
)
LAYER = {package: level for level, packages in enumerate(LAYERS) for package in packages}
# lazy imports that go up on purpose: a method of the facade runs the layer above it on its object
FACADES = {"mechsim.modeling.model": "Model's methods (m.simulate, m.trim, m.to_yaml ...)",
           "mechsim.results.result": "Result.plot"}


def module_name(path):
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(SRC.rglob("*.py"))}


def package_of(module):
    """The package (or top-level module) of mechsim a module belongs to; "mechsim" for the root."""
    return module.split(".")[1] if "." in module else module


def imported(module, node):
    """The mechsim modules an import statement names (a name imported from a package is its submodule when
    there is one)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name.split(".")[0] == "mechsim"}
    if node.level:
        base = module.split(".")
        if not MODULES[module].name == "__init__.py":
            base = base[:-1]
        source = ".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module else []))
    else:
        source = node.module
    if source.split(".")[0] != "mechsim":
        return set()
    return {f"{source}.{alias.name}" if f"{source}.{alias.name}" in MODULES else source for alias in node.names}


def with_packages(importer, targets):
    """The targets and the packages whose ``__init__`` importing them runs (those not already running: the
    importer's own)."""
    running = {".".join(importer.split(".")[:k]) for k in range(1, importer.count(".") + 2)}
    return {".".join(t.split(".")[:k]) for t in targets for k in range(1, t.count(".") + 2)} - running | targets


def imports():
    """{module: (module-level imports, imports inside functions)}."""
    result = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        lazy = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}
        eager, late = set(), set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                (late if id(node) in lazy else eager).update(imported(module, node))
        result[module] = with_packages(module, eager), with_packages(module, late)
    return result


IMPORTS = imports()


def cycles(graph):
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while not component or component[-1] != node:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def package_graph(module_graph):
    graph = {}
    for module, targets in module_graph.items():
        graph.setdefault(package_of(module), set()).update(package_of(t) for t in targets)
    return {package: targets - {package} for package, targets in graph.items()}


def test_every_package_has_a_layer():
    assert {package_of(module) for module in MODULES} == set(LAYER)


def test_no_module_imports_itself_through_others():
    assert cycles({module: eager for module, (eager, _) in IMPORTS.items()}) == []


def test_no_package_imports_itself_through_others():
    assert cycles(package_graph({module: eager for module, (eager, _) in IMPORTS.items()})) == []


def upward(module, targets):
    """The imports of ``module`` that go up the layers, or sideways to a peer package."""
    package = package_of(module)
    return sorted(t for t in targets if package_of(t) != package and LAYER[package_of(t)] >= LAYER[package])


def test_imports_go_down_the_layers():
    assert {module: upward(module, eager) for module, (eager, _) in IMPORTS.items() if upward(module, eager)} == {}


def test_imports_inside_functions_go_down_the_layers_but_for_the_facades():
    going_up = {module: upward(module, late) for module, (_, late) in IMPORTS.items() if upward(module, late)}
    assert set(going_up) <= set(FACADES), going_up


def test_no_module_imports_itself_through_others_inside_functions():
    """An import moved into a function to dodge a cycle is still a cycle (the facades' methods aside)."""
    graph = {module: eager | (set() if module in FACADES else late) for module, (eager, late) in IMPORTS.items()}
    assert cycles(graph) == []


def test_the_checks_see_the_imports():
    """The graph holds what the source shows: an import in a package's ``__init__``, a relative import of a
    sibling, the ``__init__`` run by importing a module of another package, and a lazy import."""
    assert "mechsim.modeling.model" in IMPORTS["mechsim.modeling"][0]
    assert "mechsim.dynamics.kernels" in IMPORTS["mechsim.dynamics.system"][0]
    assert {"mechsim.modeling", "mechsim.modeling.primitives"} <= IMPORTS["mechsim.dynamics.compiled"][0]
    assert "mechsim.simulation.simulate" in IMPORTS["mechsim.modeling.model"][1]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
