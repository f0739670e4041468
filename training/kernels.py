"""The CPU kernels a training run uses, pinned so that its weights can be reproduced.

torch picks its vectorised kernels (``ATEN_CPU_CAPABILITY``: avx2, avx512 ...) and MKL its
matrix-multiply and vector-math code paths from the CPU it runs on, and float32 results come
out differently on each: the same seed gives other weights on another CPU. Three things move
a run (``python benchmarks/reproduce.py cpus`` shows each, on CPUs emulated by QEMU):

- torch's own kernels follow ``ATEN_CPU_CAPABILITY``;
- MKL's matrix multiplies and vector math follow ``MKL_CBWR``, but MKL honours ``MKL_CBWR=AVX2``
  on Intel CPUs only (on AMD it reports ``CNR:AUTO`` and keeps its own path), while
  ``MKL_CBWR=COMPATIBLE`` is honoured on both and gives one result everywhere;
- Adam's square root: torch's unfused Adam takes it from MKL's vector math, which is not
  correctly rounded and differs by CPU even in MKL's compatible mode; the fused Adam
  (``torch.optim.Adam(fused=True)``) takes torch's own, exact one.

``braincards train`` pins them before torch loads (:func:`pin_cpu_kernels`), in one of three
modes named by ``BRAINCARDS_KERNELS``:

- ``avx2`` (the default): ``ATEN_CPU_CAPABILITY=avx2`` and ``MKL_CBWR=AVX2``, Adam as the config
  says. A run is the same bit for bit on the same CPU model with the same torch build; every
  seed in ``configs/ranges.yaml`` was trained so. Another CPU gives other weights (emulated,
  an Intel Haswell and an AMD EPYC Rome both did);
- ``portable``: ``ATEN_CPU_CAPABILITY=avx2``, ``MKL_CBWR=COMPATIBLE``, and every Adam of the run
  fused (:func:`adam_fused`). A run is the same bit for bit on every x86-64 CPU with AVX2,
  Intel or AMD, with the same torch build. It costs speed: MKL's compatible path multiplies
  matrices with SSE2, 2-2.5x slower than its AVX2 path, so a run takes 1.04x (Oh My Brain
  2p, PPO) to 1.25x (The Brain 3p, cloning then PPO) as long;
- ``native``: nothing pinned; torch and MKL choose by the CPU.

A variable the user has already set is left as it is; other CPUs (ARM) are left alone.
"""

from __future__ import annotations

import os
import platform

MODE_VARIABLE = "BRAINCARDS_KERNELS"
MODES = {
    "avx2": {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2"},
    "portable": {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "COMPATIBLE"},
    "native": {},
}
DEFAULT_MODE = "avx2"
VARIABLES = ("ATEN_CPU_CAPABILITY", "MKL_CBWR")


def kernel_mode(environ=os.environ) -> str:
    """The kernel mode ``environ`` asks for (``BRAINCARDS_KERNELS``, default ``avx2``);
    ValueError naming the modes for any other value."""
    mode = environ.get(MODE_VARIABLE, DEFAULT_MODE)
    if mode not in MODES:
        raise ValueError(f"{MODE_VARIABLE}={mode!r} is not a kernel mode; allowed: {', '.join(MODES)}")
    return mode


def pin_cpu_kernels(environ=os.environ) -> dict:
    """Set the mode's variables in ``environ`` where unset, on x86-64 only, and record the mode
    (``BRAINCARDS_KERNELS``) so that child processes and :func:`adam_fused` see it; returns the
    kernel settings in force. Call it before torch is imported."""
    mode = kernel_mode(environ)
    if platform.machine().lower() in ("x86_64", "amd64"):
        environ[MODE_VARIABLE] = mode
        for key, value in MODES[mode].items():
            environ.setdefault(key, value)
    return {key: environ.get(key) for key in VARIABLES}


def adam_fused(environ=os.environ) -> bool:
    """Whether this process's Adam optimisers must be fused: in a run whose kernels were pinned
    ``portable`` (the unfused Adam's square root differs by CPU)."""
    return environ.get(MODE_VARIABLE) == "portable"


def describe(environ=os.environ) -> str:
    """The kernels in force, as run records and ``reproduce.py`` name them."""
    pinned = ", ".join(f"{k}={environ[k]}" for k in VARIABLES if environ.get(k))
    return f"kernels {pinned or 'native'}" + (", Adam fused" if adam_fused(environ) else "")


__all__ = ["DEFAULT_MODE", "MODES", "MODE_VARIABLE", "adam_fused", "describe", "kernel_mode",
           "pin_cpu_kernels"]
