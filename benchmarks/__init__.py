"""Speed of minigrad against PyTorch CPU, hand-written numpy backprop and micrograd.

`python -m benchmarks` runs workloads W1..W4 (see workloads.py) for every implementation,
interleaved in one process, prints a table and writes results/latest.json. These report
numbers; they are not tests.
"""
