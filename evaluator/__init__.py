"""The evaluator: task specs, builds, constraint checks, correctness and back-to-back timing.

Imports only numpy, pyyaml, the standard library, and (lazily) cuda-python; it must run on a
GPU node that has no Textual, anthropic or watchfiles.
"""
