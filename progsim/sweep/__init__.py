"""Sweeps (`progsim sweep`, `progsim overlap`): a scenario YAML expanded into points (spec.py), each replay a task
(tasks.py), run in parallel into one table written as it fills (run.py, table.py)."""
