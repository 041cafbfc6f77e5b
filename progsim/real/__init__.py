"""Real MPI libraries on this machine: the benchmarks built and run under Open MPI and MPICH (mpi_library.py), the
overlap, ping-pong and interference tables they measure (measure.py, measure_interference.py), and the platform
calibrated from them (calibration_probe.py, calibrate.py)."""
