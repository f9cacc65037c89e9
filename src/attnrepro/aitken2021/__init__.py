"""Aitken et al. 2021 (and the background post's bottleneck, blog003): hidden states split into temporal, input
and delta parts (§2.1, Eq. 1-3), the nine alignment terms, their analyses, figures and claims. The models and
tasks it reads are the core's (:mod:`attnrepro.seq2seq.model`, :mod:`attnrepro.data.tasks`)."""
