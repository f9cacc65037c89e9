"""Kobayashi et al. 2020: attention read as ‖αf(x)‖ (Eq. 3-5) on a pretrained BERT-family encoder (§4) and on the
workflow's own trained models (AER against gold alignments, §5): its data, analyses, figures and claims."""
