"""Snell et al. 2021: models, training distributions and training loops."""
