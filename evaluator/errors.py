"""Errors of the evaluator that a user can cause, and the faults a kernel can cause.

User errors carry an `exit_code` (the command line prints them as one line): a bad task or a
missing file is 2, a machine without the device a task needs is 4. Kernel faults never reach the
user as exceptions: the evaluation turns them into a report.
"""
from __future__ import annotations


class EvaluatorError(Exception):
    """Base of the errors a user can cause."""

    exit_code = 2


class TaskError(EvaluatorError):
    """A task that cannot be used: unknown name, bad task.yaml or harness, missing file."""

    exit_code = 2


class DeviceUnavailable(EvaluatorError):
    """The task needs a device (a CUDA GPU and its driver) that this machine lacks."""

    exit_code = 4


class KernelFault(Exception):
    """A kernel broke the device context (a CUDA sticky error): nothing more can run in it."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code
