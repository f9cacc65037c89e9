"""The figure registry (attnrepro.figures.registry): every figure of every paper is one entry, each with what it
reads, a reader, a draw function and a caption; the workflow builds exactly the registry's figures."""

import importlib
import re
import types

import pytest

from attnrepro.figures import registry
from tests.helpers import ROOT, snakemake

# the paper's figures and tables each wing reproduces: the registry must list these, no more, no fewer
EXPECTED = {
    "aitken2021": ["fig2a", "fig2b", "fig2c", "fig2d", "fig2e", "fig2f", "fig2g", "fig2h", "fig3", "fig4", "fig5a",
                   "fig5b", "fig5c", "fig5d", "fig6", "fig6a", "bottleneck"],
    "snell2021": ["fig3", "fig3_failures", "sec6_2", "fig4", "fig6", "fig7", "fig2", "table2", "table10"],
    "kobayashi2020": ["table1", "fig3", "table2", "fig4", "fig5", "fig6", "fig9", "fig10", "fig11", "fig12", "table4",
                      "fig7", "table3", "fig8"],
}
# the functions of a wing's figure modules that draw a whole figure (the rest are parts of one)
DRAWING = re.compile(r"^(fig\d+\w*|table\d+|sec\d+_\d+|bottleneck|temporal_figure|input_figure)$")


def unregistered(figures, targets: set[tuple[str, str]]) -> list[str]:
    """``paper/name`` of every figure the workflow builds that ``figures`` lacks, and of every entry it does not
    build."""
    have = {(f.paper, f.name) for f in figures}
    return sorted(f"{p}/{n}" for p, n in have ^ targets)


def names_called(fn, module) -> set[str]:
    """Every name a function (and the functions of ``module`` it calls) looks up."""
    seen, todo, names = set(), [fn], set()
    while todo:
        f = todo.pop()
        if id(f) in seen or not isinstance(f, types.FunctionType):
            continue
        seen.add(id(f))
        codes = [f.__code__]
        while codes:
            code = codes.pop()
            names |= set(code.co_names)
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        todo += [getattr(module, n) for n in names if isinstance(getattr(module, n, None), types.FunctionType)]
    return names


@pytest.fixture(scope="module")
def smoke_targets(tmp_path_factory):
    work = tmp_path_factory.mktemp("registry")
    (work / "smoke.yaml").write_text((ROOT / "config" / "smoke.yaml").read_text())
    out = snakemake("-n", "-p", "--configfile", "smoke.yaml", cwd=work).stdout
    return {(p, n) for p, n in re.findall(r"results/figures/(\w+)/([\w.@-]+)\.png", out) if p != "ladder"}


def test_the_registry_lists_every_figure_of_every_wing():
    for paper, names in EXPECTED.items():
        assert list(registry.figures_of(paper)) == names, paper
    assert [(f.paper, f.name) for f in registry.all_figures()] == [(p, n) for p, ns in EXPECTED.items() for n in ns]


def test_every_entry_has_its_inputs_reader_draw_and_caption():
    for f in registry.all_figures():
        assert f.paper in registry.PAPERS and f.inputs is not None, f
        assert callable(f.read) and callable(f.draw), f
        caption = f.caption.strip()
        assert caption and caption[-1] in ".)" and "{%" not in caption, f
        assert registry.get(f.paper, f.name) is f


def test_the_workflow_builds_exactly_the_registry(smoke_targets):
    assert unregistered(registry.all_figures(), smoke_targets) == []


def test_a_figure_missing_from_the_registry_is_found(smoke_targets):
    figures = [f for f in registry.all_figures() if (f.paper, f.name) != ("snell2021", "fig7")]
    assert unregistered(figures, smoke_targets) == ["snell2021/fig7"]


def test_every_drawing_function_of_a_wing_is_drawn_by_an_entry():
    for paper in registry.PAPERS:
        panels = importlib.import_module(f"attnrepro.{paper}.panels")
        called = set().union(*(names_called(f.draw, panels) for f in registry.figures_of(paper).values()))
        for path in sorted((ROOT / "src" / "attnrepro" / paper).glob("figures*.py")):
            module = importlib.import_module(f"attnrepro.{paper}.{path.stem}")
            drawing = {n for n, v in vars(module).items() if DRAWING.match(n) and isinstance(v, types.FunctionType)
                       and v.__module__ == module.__name__}
            assert drawing - called == set(), (path.name, drawing - called)


def test_an_unknown_figure_is_named_with_the_known_ones():
    from attnrepro.errors import AttnReproError

    with pytest.raises(AttnReproError, match=r"unknown snell2021 figure 'fig99'; choose one of \('fig3'"):
        registry.get("snell2021", "fig99")
    with pytest.raises(AttnReproError, match="unknown paper"):
        registry.figures_of("vaswani2017")


def test_declaring_a_name_twice_or_without_caption_fails():
    f = registry.figures_of("kobayashi2020")["fig9"]
    with pytest.raises(ValueError, match="declared twice"):
        registry.declare(f, f)
    with pytest.raises(ValueError, match="no caption"):
        registry.declare(registry.Figure(f.name, f.paper, f.inputs, f.read, f.draw, " "))


def test_reading_the_registry_loads_no_plotting_library():
    import subprocess
    import sys

    code = ("import sys; from attnrepro.figures import registry; registry.all_figures(); "
            "print(sorted(m for m in ('matplotlib', 'pandas', 'seaborn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def caption_file(figure) -> str:
    """The caption file of the rule that draws ``figure`` (workflow/rules/*.smk)."""
    return f"{figure.paper}_nmt.rst" if figure.rule == "scored" else f"{figure.paper}.rst"


def test_every_caption_renders_in_the_report():
    """Each figure's caption file, as Snakemake's report renders it (a Jinja2 template, then reStructuredText),
    shows the registry's caption, with no rst warning."""
    import jinja2
    import yaml
    from docutils.core import publish_parts

    config = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    env = jinja2.Environment()
    for f in registry.all_figures():
        template = (ROOT / "workflow" / "report" / caption_file(f)).read_text()
        snake = types.SimpleNamespace(wildcards=types.SimpleNamespace(name=f.name), config=config,
                                      params=types.SimpleNamespace(caption=f.caption))
        text = env.from_string(template).render(snakemake=snake)
        html = publish_parts(text, writer="html", settings_overrides={"report_level": 2, "halt_level": 2})["body"]
        assert f.caption.split(" ")[0] in text and "System Message" not in html, f


def test_every_caption_file_a_rule_names_exists():
    named = {m for p in (ROOT / "workflow" / "rules").glob("*.smk")
             for m in re.findall(r'caption="\.\./report/([\w.]+)"', p.read_text())}
    assert {caption_file(f) for f in registry.all_figures()} <= named
    assert [n for n in sorted(named) if not (ROOT / "workflow" / "report" / n).is_file()] == []
