"""The package's shape: imports run one way, without cycles; modules and functions stay small.

ARCHITECTURE.md describes the layers; :data:`LAYERS` below is the one written copy the
test checks.  A module may import from its own layer and the layers before it, never
from a later one: formula → design → fitter → result → evaluate → present.
"""
from __future__ import annotations

import ast
import functools
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "ubreg"

#: the layers, lowest first: a module imports only from its own layer and lower ones
LAYERS = [
    {"errors", "_version", "datasets"},
    {"numerics", "_pickling"},
    {"families"},
    {"design"},
    {"trees"},
    {"learners"},
    {"fitters"},
    {"summary"},
    {"results"},
    {"dask"},
    {"methods"},
    {"evaluate"},
    {"plots"},
    {"reporting"},
    {"sklearn"},
    {"cli", "cli_analysis", "__main__", "__init__", "precompile"},
]


def _layer_of(module: str) -> int:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    for i, layer in enumerate(LAYERS):
        if top in layer:
            return i
    raise AssertionError(f"{module}: folder {top!r} is in no layer of LAYERS")


def _modules() -> dict[str, pathlib.Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


@functools.cache
def _parsed(path: pathlib.Path) -> ast.Module:
    """A module's syntax tree, parsed once for all the tests of this file."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _is_type_checking(node) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(module: str, path: pathlib.Path, top_level_only: bool) -> set[str]:
    """ubreg modules that ``module`` imports (``from x import y`` counts y if it is a
    module); imports under ``if TYPE_CHECKING:`` never run and are left out."""
    tree = _parsed(path)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = set()

    def visit(node, nested):
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(child):
                continue
            inner = nested or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.ImportFrom) and not (top_level_only and inner):
                base = (package[:len(package) - child.level + 1] if child.level else [])
                target = ".".join(base + ([child.module] if child.module else []))
                for alias in child.names:
                    full = f"{target}.{alias.name}"
                    if full in MODULES:
                        found.add(full)
                    elif target in MODULES:
                        found.add(target)
            elif isinstance(child, ast.Import) and not (top_level_only and inner):
                found.update(a.name for a in child.names if a.name in MODULES)
            elif (isinstance(child, ast.Constant) and isinstance(child.value, str)
                  and not top_level_only):
                found.update(_named_modules(child.value))
            visit(child, inner)

    visit(tree, False)
    found.discard(module)
    return found


_MODULE_PATH = re.compile(r"\bubreg(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


def _named_modules(text: str) -> set[str]:
    """ubreg modules a string names (``"ubreg.dask.udt:fit_udt_dask"``, an argument of
    ``importlib.import_module``): edges as real as an import statement.  A docstring
    that cites a module is not an import; only strings that are a module path alone
    (optionally ``:name``) count."""
    word = text.strip()
    if not re.fullmatch(r"ubreg(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?::[A-Za-z_][A-Za-z0-9_.]*)?",
                        word):
        return set()
    path = word.partition(":")[0].split(".")
    while path and ".".join(path) not in MODULES:
        path.pop()
    return {".".join(path)} if path else set()


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index, low, stack, on, out = {}, {}, [], set(), []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


@pytest.mark.slow
def test_no_import_cycles():
    """Imports inside functions and module paths named by strings included: a late
    import still makes the two modules depend on each other."""
    graph = {m: _imports(m, p, top_level_only=False) for m, p in MODULES.items()}
    graph["ubreg"] = set()          # the root only re-exports; parents run before children
    for module in graph:            # a package's __init__ re-exporting its own modules
        graph[module] = {t for t in graph[module] if not module.startswith(t + ".")}
    assert _cycles(graph) == []


@pytest.mark.slow
def test_imports_run_one_way_between_folders():
    """Also imports inside functions (made late to save time, they are still edges)."""
    wrong = []
    for module, path in MODULES.items():
        if module == "ubreg":
            continue
        for target in _imports(module, path, top_level_only=False):
            if target == "ubreg":
                wrong.append(f"{module} imports the package root")
            elif _layer_of(target) > _layer_of(module):
                wrong.append(f"{module} -> {target}")
    assert wrong == []


#: the fitter modules results still import (ARCHITECTURE.md): the linear fits' working
#: design for inference and GNNB's neighbour index; every other result predicts with a
#: tree (trees/) or an ensemble (learners/ensembles.py)
RESULTS_READ_FITTERS = {"ubreg.fitters.uls", "ubreg.fitters.gnnb.fitter",
                        "ubreg.fitters.gnnb.graph", "ubreg.fitters.gnnb.neighbours",
                        "ubreg.fitters.gnnb.preprocess"}


def test_results_import_only_the_fitters_architecture_names():
    found = {t for m, p in MODULES.items() if m.startswith("ubreg.results.")
             for t in _imports(m, p, top_level_only=False) if t.startswith("ubreg.fitters")}
    assert found <= RESULTS_READ_FITTERS


@pytest.mark.slow
def test_no_private_names_across_folders():
    wrong = []
    for module, path in MODULES.items():
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        for node in ast.walk(_parsed(path)):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = package[:len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            if not target.startswith("ubreg") or target.split(".")[:2] == module.split(".")[:2]:
                continue
            wrong += [f"{module}: {target}.{a.name}" for a in node.names
                      if a.name.startswith("_") and not a.name.startswith("__")]
    assert wrong == []


#: private attributes of other libraries' objects that ubreg reads (a Dask frame's _meta)
FOREIGN_PRIVATE = {"_meta"}


def _private_attributes() -> tuple[dict[str, set[str]], list[tuple[str, str, int, str]]]:
    """(private name -> folders that define it, reads of ``x._name`` with x not
    self, cls or super())."""
    defined: dict[str, set[str]] = {}
    reads = []
    for module, path in MODULES.items():
        folder = module.split(".")[1] if "." in module else "__init__"
        for node in ast.walk(_parsed(path)):
            name = None
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = node.name
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                name = node.attr
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                name = node.id
            if name and name.startswith("_") and not name.startswith("__"):
                defined.setdefault(name, set()).add(folder)
            if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                base = node.value
                if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                    continue
                if isinstance(base, ast.Call) and ast.unparse(base.func) == "super":
                    continue
                reads.append((folder, module, node.lineno, node.attr))
    return defined, reads


@pytest.mark.slow
def test_no_private_attributes_read_across_folders():
    """``x._name`` where ``_name`` belongs to another folder's objects (a result's
    private state read by evaluate/, a method patching a result): behaviour that other
    folders need is public on its class."""
    defined, reads = _private_attributes()
    wrong = [f"{module}:{line} reads .{attr}" for folder, module, line, attr in reads
             if attr in defined and folder not in defined[attr] and attr not in FOREIGN_PRIVATE]
    assert wrong == []


@pytest.mark.slow
def test_modules_and_functions_stay_small():
    long_modules, long_functions = [], []
    for module, path in MODULES.items():
        if len(path.read_text(encoding="utf-8").splitlines()) > 600:
            long_modules.append(module)
        for node in ast.walk(_parsed(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > 80:
                    long_functions.append(f"{module}.{node.name} ({length} lines)")
    assert long_modules == [] and long_functions == []


@pytest.mark.slow
def test_import_ubreg_stays_light():
    code = ("import sys, ubreg, ubreg.families; "
            "heavy = [m for m in ('matplotlib', 'jinja2', 'numba', 'dask', 'patsy', 'sklearn')"
            " if m in sys.modules]; "
            "print(heavy, len([m for m in sys.modules if m.startswith('ubreg')]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[0] == "[]" and int(out[-1]) <= 20, out


@pytest.mark.slow
def test_a_fit_and_its_summary_leave_the_heavy_scipy_modules_unloaded():
    """scipy.stats, scipy.optimize and scipy.interpolate cost 0.35 s of a fresh process:
    a fit of each common method and its summary need none of them."""
    code = ("import sys, warnings, ubreg; warnings.simplefilter('ignore'); "
            "d = ubreg.datasets.load_pima(); "
            "[str(ubreg.fit('diabetes ~ glucose + mass', d, method=m).summary()) "
            "for m in ('uls', 'udt', 'uboost', 'gnnb')]; "
            "print([m for m in ('scipy.stats', 'scipy.optimize', 'scipy.interpolate') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]", out


def test_public_namespace_is_the_documented_api():
    import ubreg
    assert dir(ubreg) == sorted(ubreg.__all__)
    for name in ubreg.__all__:
        assert getattr(ubreg, name) is not None, name
    assert "annotations" not in dir(ubreg)


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_code_names_no_issue_numbers(path):
    import re
    assert not re.search(r"\bissue[s]?\s*#?\d", path.read_text(encoding="utf-8"), re.I)
