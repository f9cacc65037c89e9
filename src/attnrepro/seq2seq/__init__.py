"""Layer 3, what the three papers' encoder-decoders share: the VED / AED / AO wirings and the Transformer, their
training, activation export, greedy evaluation and BLEU. Imports the layers below it."""
