"""What the engine replays besides a user's trace: generated traces (tracegen.py: rings, the overlap benchmark's),
the real applications' captures shipped in validation/real (captures.py), and the overlap benchmarks simulated,
point-to-point (overlap.py) and non-blocking collectives (nbc_overlap.py)."""
