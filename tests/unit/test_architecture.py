"""The package's shape (docs/architecture.md): a core and one wing per paper, no import circles, no wing reading
another, no code module over 400 lines (a wing's claims registry is data)."""

import ast
import re
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


# a wing's claims registry is data, one Claim(...) per sentence of the paper, so it stays one module however many
# sentences its paper has (the table's row order is the registry's); the cap is for code, which it keeps readable
REGISTRIES = {PACKAGE / w / "claims.py" for w in WINGS}


def test_no_module_over_400_lines_but_the_claims_registries():
    long = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py")
            if p not in REGISTRIES and (n := len(p.read_text().splitlines())) > 400}
    assert long == {}
    assert all(p.exists() for p in REGISTRIES)


def test_every_wing_has_its_parts():
    for w in WINGS:
        have = {p.stem for p in (PACKAGE / w).glob("*.py")}
        assert {"__init__", "cli", "claims", "figures", "panels"} <= have, (w, have)


# The layers, bottom up, and what each may import (docs/architecture.md). The foundation (the package's root
# modules) serves every layer; a layer never imports one above it, so a network or a data set never knows the
# workflow that runs it, nor a verdict the model it judges. The wings sit above the shared layers; run/ (the config's
# edge), archive/ and cli/ sit at the top.
FOUNDATION = "foundation"
LAYERS = {
    FOUNDATION: set(),
    "nn": {FOUNDATION},
    "data": {FOUNDATION},
    "verdicts": {FOUNDATION},
    "figures": {FOUNDATION},
    "training": {FOUNDATION, "nn", "data"},
    "seq2seq": {FOUNDATION, "nn", "data", "training"},
    "wing": {FOUNDATION, "nn", "data", "training", "seq2seq", "verdicts", "figures"},
    "run": {FOUNDATION, "nn", "data", "training", "seq2seq", "verdicts", "figures", "wing"},
    "archive": {FOUNDATION, "verdicts", "run"},
    "cli": {FOUNDATION, "nn", "data", "training", "seq2seq", "verdicts", "figures", "wing", "run", "archive"},
}
# the wings' own command lines (cli*.py) are the wings' edge: they read the config and share the command line's options
# the verdicts that gather every paper's claims
VERDICTS_TO_WING = {"attnrepro.verdicts.papers", "attnrepro.verdicts.ladder"}


def layer(name: str) -> str:
    parts = name.split(".")
    if name == "attnrepro.__main__":  # `python -m attnrepro`: the package's face onto its command line
        return "cli"
    if len(parts) == 1 or (len(parts) == 2 and not (PACKAGE / parts[1]).is_dir()):
        return FOUNDATION
    return "wing" if parts[1] in WINGS else parts[1]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Imports that run against the layers' direction."""
    out = []
    for name, deps in graph.items():
        src = layer(name)
        for dep in deps:
            dst = layer(dep)
            if dst == src or dst in LAYERS[src]:
                continue
            if src == "wing" and name.split(".")[-1].startswith("cli") and dst in {"cli", "run"}:
                continue
            if name in VERDICTS_TO_WING and dst == "wing":
                continue
            out.append(f"{name} -> {dep}")
    return sorted(out)


def test_every_folder_of_the_package_is_a_layer_or_a_wing():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == (set(LAYERS) - {FOUNDATION, "wing"}) | set(WINGS)


def test_the_root_holds_the_packages_face_and_foundation_only():
    assert len(list(PACKAGE.glob("*.py"))) <= 6


def test_no_layer_imports_one_above_it():
    assert upward_imports(import_graph()) == []


def test_a_planted_upward_import_is_found():
    planted = {"attnrepro.nn.cells": {"attnrepro.run.config", "attnrepro.seeding"},
               "attnrepro.verdicts.claims": {"attnrepro.seq2seq.model"},
               "attnrepro.snell2021.runs": {"attnrepro.run.config"},
               "attnrepro.snell2021.cli": {"attnrepro.run.config"},
               "attnrepro.io": {"attnrepro.data.vocab"}}
    assert upward_imports(planted) == ["attnrepro.io -> attnrepro.data.vocab",
                                       "attnrepro.nn.cells -> attnrepro.run.config",
                                       "attnrepro.snell2021.runs -> attnrepro.run.config",
                                       "attnrepro.verdicts.claims -> attnrepro.seq2seq.model"]


def test_the_verdicts_and_the_configs_edge_import_no_torch():
    """The Snakefile reads the config check and the claims registry at every start: no torch there."""
    heavy = []
    for name, (path, _) in modules().items():
        if layer(name) in {"verdicts", "run"}:
            tree = ast.parse(path.read_text())
            top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
            heavy += [name for n in top for a in getattr(n, "names", [])
                      if (getattr(n, "module", None) or a.name).split(".")[0] in {"torch", "matplotlib"}]
    assert heavy == []


def drawing() -> str:
    """The text blocks of docs/architecture.md: the drawing of the package."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    return "\n".join(text.split("```")[1::2])


def undrawn(modules_by_folder: dict[str, set[str]], picture: str) -> list[str]:
    """Modules the drawing does not name: each module's stem must stand in the drawing as a word (a folder's
    modules under that folder's name, so ``run/config`` and ``snell2021/config`` are both asked for)."""
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", picture))
    missing = []
    for folder, stems in sorted(modules_by_folder.items()):
        if folder and folder.split("/")[-1] not in words:
            missing.append(f"{folder}/")
        missing += [f"{folder}/{stem}" if folder else stem for stem in sorted(stems) if stem not in words]
    return missing


def package_modules() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.stem == "__init__":
            continue
        folder = "/".join(path.relative_to(PACKAGE).parts[:-1])
        out.setdefault(folder, set()).add(path.stem)
    return out


def test_the_architecture_drawing_names_every_module():
    assert undrawn(package_modules(), drawing()) == []


def test_a_module_left_out_of_the_drawing_is_found():
    assert undrawn({"nn": {"cells", "kernels"}, "": {"io"}}, "nn/ cells · io") == ["nn/kernels"]
    assert undrawn({"seq2seq": {"bleu"}}, "bleu") == ["seq2seq/"]
