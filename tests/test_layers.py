"""The house's layers (docs/architecture.md): every import of fisim and policies, at the top of a
module or inside a function, runs down the layers, so no module imports one that imports it back
and results flow one way, cell -> engine -> results -> store -> report."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Lowest first; a module may import its own layer and those below. A folder stands for its modules.
LAYERS = [
    ["fisim.errors", "fisim.limits", "fisim.stats", "fisim.files", "fisim.version", "fisim.defaults", "fisim.arguments",
     "fisim.progress", "fisim.formatting"],
    ["fisim.jit"],                                      # the Numba toolkit: how things compile and call
    ["fisim.rules", "fisim.position", "fisim.reference", "fisim.transcript"],
    ["policies"],
    ["fisim.engine"],                                   # the engine's assembly: every policy compiled with it
    ["fisim.cell", "fisim.grid", "fisim.results", "fisim.crosscheck"],
    ["fisim.store"],
    ["fisim.tables"],
    ["fisim.simulation", "fisim.sweeping", "fisim.tuning", "fisim.designing", "fisim.skill", "fisim.comparison",
     "fisim.rankings", "fisim.stronger", "fisim.reporting"],
    ["fisim.cli", "fisim.__main__", "fisim"],
]


def modules():
    """{module name: its file} of the package and the policies."""
    found = {}
    for package in ("fisim", "policies"):
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(path, known):
    """The modules of `known` that the file at `path` imports. `import fisim` alone reads the
    package's version or place (the package itself is the API, at the top)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names |= {f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in known else node.module
                      for alias in node.names}
    return {name for name in names if name in known and name != "fisim"}


def layer(name):
    return next(i for i, members in enumerate(LAYERS)
                if any(name == m or name.startswith(m + ".") for m in members))


def test_every_import_runs_down_the_layers():
    known = modules()
    upward = [(name, target) for name, path in known.items() for target in imported(path, known)
              if layer(target) > layer(name)]
    assert not upward, upward


def test_no_module_imports_one_that_imports_it_back():
    known = modules()
    graph = {name: imported(path, known) for name, path in known.items()}
    state = {}

    def circle_from(name, path):
        state[name] = "open"
        for target in sorted(graph[name]):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            found = state.get(target) is None and circle_from(target, path + [target])
            if found:
                return found
        state[name] = "closed"
        return None

    for name in sorted(graph):
        circle = None if name in state else circle_from(name, [name])
        assert circle is None, " -> ".join(circle)
