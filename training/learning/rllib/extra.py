"""The rllib extra's entry points for the command line, in one module, so that a command that
needs Ray imports it in one place: :func:`~.train.train_rllib` (``braincards train --backend
rllib``) and :func:`~.benchmark_tasks.ray_runner` (``braincards benchmark --ray-address``)."""

from .benchmark_tasks import ray_runner
from .train import train_rllib

__all__ = ["ray_runner", "train_rllib"]
