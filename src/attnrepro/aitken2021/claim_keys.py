"""The names the claims modules of Aitken et al. 2021 share (:mod:`attnrepro.aitken2021.claims`,
:mod:`~attnrepro.aitken2021.claims_section3`, :mod:`~attnrepro.aitken2021.claims_section4`): architectures, tasks,
the cells and attention of the main text, figure folder and measure ranges."""

import math

ATTENTION = ("aed", "ao")                 # the architectures with attention
TRANSLATION = ("bible", "paracrawl")      # the En-Fr task kinds
RECURRENT = ("lstm", "gru", "ugrnn")      # §2: the cells of the main text; footnote 2's feed-forward AO is "ff"
FIG = "figures/aitken2021/"
PAPER_CONFIG = "config/paper.yaml"
SHARE, CORR, POSITIVE, REAL = (0.0, 1.0), (-1.0, 1.0), (0.0, math.inf), (-math.inf, math.inf)
DROP = (-math.inf, 1.0)  # 1 − a variance ratio, or 1 − a word error rate
