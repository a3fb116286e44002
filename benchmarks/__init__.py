"""Speed of minigrad against PyTorch CPU, hand-written numpy backprop and micrograd.

`python -m benchmarks` (or `make bench`) runs workloads W1..W6 (see workloads.py) for every
implementation, interleaved in one process, prints a table and writes results/latest.json.
These report numbers; they are not tests.

Two threads on a two-core machine leave no core to spare: while any other process runs, each
parallel region (PyTorch's and numba's alike) may wait a scheduler time slice for its second
thread, and medians of milliseconds turn into tens of milliseconds. Run on a quiet machine
(the table prints the load average), or compare work rather than waiting time with
`--threads 1 --clock cpu`, which counts this process's CPU time and is steady under load.
"""
