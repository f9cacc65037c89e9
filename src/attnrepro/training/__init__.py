"""Layer 2, training: the one training loop (stacked seeds, checkpoints, bitwise resume), its settings, its
progress line and the learning curve read from its evaluations. Imports the networks, the data and the root."""
