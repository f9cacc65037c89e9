"""The verdicts: a claim, its interval over replicates and its verdict; the claims table as markdown; every
paper's claims gathered; the scale ladder. Torch-free; only :mod:`.papers` and :mod:`.ladder` name the wings."""
