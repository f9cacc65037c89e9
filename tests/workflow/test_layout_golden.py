"""The workflow's outputs do not move when the code does: every output file of `all` under the default,
smoke and paper configs, with the rule that makes it, is the committed list in tests/golden/.

A change that means to add, remove or rename outputs regenerates the lists on purpose, from the repository root:

    for c in config smoke paper; do python -m snakemake --snakefile Snakefile -n --summary all --configfile config/$c.yaml \\
        --directory "$(mktemp -d)" | awk -F'\\t' 'NR>1 && /\\t/ {print $1"\\t"$3}' | sort > tests/golden/$c.tsv; done
"""

import pytest

from tests.helpers import ROOT, snakemake

GOLDEN = ROOT / "tests" / "golden"


@pytest.mark.parametrize("name", ["config", "smoke", "paper"])
def test_outputs_and_rules_are_the_committed_ones(name, tmp_path):
    proc = snakemake("-n", "--summary", "all", "--configfile", str(ROOT / "config" / f"{name}.yaml"), cwd=tmp_path,
                     own_root=True)  # each config's own results root
    rows = sorted({"\t".join(line.split("\t")[0:3:2]) for line in proc.stdout.splitlines()
                   if "\t" in line and not line.startswith("output_file\t")})
    golden = (GOLDEN / f"{name}.tsv").read_text().splitlines()
    missing, extra = sorted(set(golden) - set(rows)), sorted(set(rows) - set(golden))
    assert not missing and not extra, f"{name}: {len(missing)} outputs gone, e.g. {missing[:5]}; " \
                                      f"{len(extra)} new, e.g. {extra[:5]}"
    assert len(rows) == len(golden)
