"""Layer 1, the data: special tokens and tokenisers, vocabularies and padded tensors, the synthetic tasks, the
offline corpora and the pinned downloads of the papers' own corpora. Imports nothing above the package root."""
