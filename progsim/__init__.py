"""progsim: simulate what MPI progression and communication/computation interference do to applications.

The engine (C++, on SimGrid) replays SMPI time-independent traces; this package compiles platforms,
runs the engine and reads its results. Import what you need:

    from progsim.platform import load_platform, compile_platform
    from progsim.engine import replay
"""

__version__ = "0.1.0"
