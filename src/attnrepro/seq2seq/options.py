"""The options of Aitken et al.'s code that a model block may set (docs/deviations.md lists what each changes):
key -> (default, allowed values). Torch-free, so that the config check at the edge reads the same table as the
model (:class:`attnrepro.seq2seq.model.ModelConfig`)."""

AITKEN_CODE_OPTIONS = {"initial_state": ("zeros", ("zeros", "learned")), "init": ("pytorch", ("pytorch", "aitken")),
                       "readout_bias": (True, (True, False)), "first_input": ("sos", ("sos", "uniform"))}
