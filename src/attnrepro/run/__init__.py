"""The run's edge: the config (schema, strict YAML, cross-key checks, memory estimates), the results layout, what a
Slurm job asks for, and each job's record of where it ran. May import every layer and the wings' config blocks."""
