"""Kernel tasks, shipped as data: one folder per task (task.yaml, header, seed, reference, harness.py).

Nothing here is imported by the other packages; the evaluator loads tasks by path.
"""
from pathlib import Path

TASKS_DIR = Path(__file__).resolve().parent
