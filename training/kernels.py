"""The CPU kernels a training run uses, pinned so that its weights do not depend on the CPU.

torch picks its vectorised kernels (``ATEN_CPU_CAPABILITY``: avx2, avx512 ...) and MKL its
matrix-multiply code path from the CPU it runs on, and float32 sums come out in a different
order on each: the same seed gives other weights on another CPU (``python
benchmarks/reproduce.py kernels`` shows which settings change a run). ``braincards train``
pins both to AVX2 before torch loads (:func:`pin_cpu_kernels`): every x86-64 CPU with AVX2 then
runs the same kernels, and a run is the same bit for bit with the same torch build. On this
project's machine the pinned kernels train as fast as the native ones. A variable already
set is left as it is (``ATEN_CPU_CAPABILITY=default`` and ``MKL_CBWR=AUTO`` restore the
native choice); other CPUs (ARM) are left alone.
"""

from __future__ import annotations

import os
import platform

PINNED = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2"}


def pin_cpu_kernels(environ=os.environ) -> dict:
    """Set :data:`PINNED` in ``environ`` where unset, on x86-64 only; returns the kernel settings
    in force. Call it before torch is imported (child processes inherit it)."""
    if platform.machine().lower() in ("x86_64", "amd64"):
        for key, value in PINNED.items():
            environ.setdefault(key, value)
    return {key: environ.get(key) for key in PINNED}


__all__ = ["PINNED", "pin_cpu_kernels"]
