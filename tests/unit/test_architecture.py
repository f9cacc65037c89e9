"""The package's shape (docs/architecture.md): a core and one wing per paper, no import circles, no wing reading
another, no module over 400 lines."""

import ast
from pathlib import Path

from tests.helpers import ROOT

PACKAGE = ROOT / "src" / "attnrepro"
WINGS = ("aitken2021", "kobayashi2020", "snell2021")
# core modules allowed to name a wing: the registry of the wings' claims, the command line that dispatches to
# them, the config check at the edge, which validates every paper's block, and the results layout, which routes
# every paper's tables to the claims
CORE_TO_WING = {"attnrepro.verdicts.papers", "attnrepro.cli", "attnrepro.run.config", "attnrepro.run.budget", "attnrepro.run.layout"}


def modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere in its body (lazy imports count). A submodule's own
    parent packages are left out: Python runs them before it in any case, so they close no circle."""
    mods = modules()
    graph = {}
    for name, (path, is_pkg) in mods.items():
        pkg = name.split(".") if is_pkg else name.split(".")[:-1]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                target = ".".join(pkg[: len(pkg) - node.level + 1] + [node.module] if node.module else
                                  pkg[: len(pkg) - node.level + 1]) if node.level else node.module or ""
                subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in mods]
                deps.update(subs if subs else [target] if target in mods else [])
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name in mods)
        graph[name] = {d for d in deps if d != name and not name.startswith(d + ".")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
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
            visit(v)
    return out


def wing(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in WINGS else None


def test_no_import_circles():
    assert cycles(import_graph()) == []


def test_the_circle_finder_finds_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def crossings(graph: dict[str, set[str]]) -> list[str]:
    """Imports of a wing from another wing, or from a core module that is not one of its edges."""
    owner = lambda name: "attnrepro.cli" if name.startswith("attnrepro.cli.") else name  # noqa: E731
    return sorted(f"{name} -> {dep}" for name, deps in graph.items() for dep in deps
                  if wing(dep) and wing(dep) != wing(name) and (wing(name) or owner(name) not in CORE_TO_WING))


def test_no_wing_imports_another_and_the_core_names_none_but_its_edges():
    assert crossings(import_graph()) == []
    assert crossings({"attnrepro.snell2021.x": {"attnrepro.aitken2021.y"}, "attnrepro.seq2seq.model": {"attnrepro.snell2021.x"},
                      "attnrepro.cli.core": {"attnrepro.snell2021.x"}}) == ["attnrepro.seq2seq.model -> attnrepro.snell2021.x",
                                                                           "attnrepro.snell2021.x -> attnrepro.aitken2021.y"]


def test_no_module_over_400_lines():
    long = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}


def test_every_wing_has_its_parts():
    for w in WINGS:
        have = {p.stem for p in (PACKAGE / w).glob("*.py")}
        assert {"__init__", "cli", "claims", "figures", "panels"} <= have, (w, have)
