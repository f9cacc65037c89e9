"""attnrepro: how attention in sequence models is formed, learned and read.

Reproduces Aitken et al. 2021, Snell et al. 2021 and Kobayashi et al. 2020. The Snakemake workflow at the
repository root calls the command line in :mod:`attnrepro.cli`; everything else is importable library code.
"""

__version__ = "0.1.0"
