# attnrepro: how attention in sequence models is formed, learned and read.
# Run from the repository root:  snakemake --cores 2   (default config: CPU demo scale)
#                                snakemake --profile slurm --configfile config/paper.yaml
from snakemake.utils import min_version

min_version("9.0")


# --configfile replaces the default config instead of being merged into it (a smoke run must not inherit the
# default's experiments); --config key=value still overrides single keys of whichever file is used.
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/common_downloads.smk"
include: "workflow/rules/common_snell2021.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/export.smk"
include: "workflow/rules/analysis.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/kobayashi2020.smk"
include: "workflow/rules/snell2021.smk"
include: "workflow/rules/claims.smk"
include: "workflow/rules/ladder.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/archive.smk"


report: "workflow/report/workflow.rst"


localrules:
    all,
    figure_aitken2021,
    kobayashi2020_figure,
    kobayashi2020_summary,
    kobayashi2020_nmt_figure,
    claims,
    claims_html,
    ladder_claims,
    ladder,
    archive,
    verify,


rule all:
    default_target: True
    input:
        final_targets(),
        moved_aside_outputs,
