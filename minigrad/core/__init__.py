"""The floor: what a Tensor and a Node *are*, and the state every layer above reads.

tensor (data, version counter, hooks, views), node (grad_fn, edges, AccumulateGrad), saved
(saved tensors and their version checks), grad_mode, anomaly, hooks (removable handles),
observe (the channel the engine reports on), shapes (sum a broadcast gradient back), dtypes and
formatting. Nothing here imports from minigrad outside `core`; the ops, the engine and nn build
on it. Importing this package imports none of its modules: each is imported by name.
"""
