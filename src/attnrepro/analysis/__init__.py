"""Analyses: pure functions of arrays and DataFrames, no I/O."""
