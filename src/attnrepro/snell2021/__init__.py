"""Snell et al. 2021: the lexical probe β, frozen-uniform and frozen-β attention, the bag-of-words proxy, IBM
Model 1, agreement A and ξ, the 8-head rejection-sampled initialisations and the keyword toy: its models,
training distributions, runs on the core's engine, analyses, figures and claims."""
