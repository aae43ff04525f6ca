"""Requirements: what a workload needs from a machine, each figure with the reason behind it.

:func:`plan` is pure and fast (the GUI re-plans on every keystroke): no I/O beyond the cached
preset file, no torch. Every number is a breakdown item with a note saying where it comes from;
figures that rest on an assumption name it in ``assumptions``; what cannot be known is None with
the reason. Formulas and published figures come from docs/estimation.md (ZeRO, Korthikanti,
vLLM, DeepSpeed, nccl-tests); activation coefficients are *measured* by
``scripts/calibrate_activations.py`` and read from the presets file.

Units are SI base units throughout (bytes, bytes/s, FLOP, FLOP/s, seconds).

The package holds one module per concern, each importing the others directly (never this
``__init__``); :mod:`.planner` combines them in :func:`plan`:

- :mod:`.assumptions`: the documented constants (CUDA overhead, fragmentation, MFU, ...)
- :mod:`.types`: :class:`Requirements`, :class:`Item`, :class:`Assumption`, :class:`SeedClaim`
- :mod:`.model_states`: weights, gradients and optimizer states (ZeRO), LoRA parameters
- :mod:`.estimators`: DeepSpeed's and accelerate's estimators, as their authors compute them
- :mod:`.activations`: saved activations and inference working sets (calibrated, Korthikanti)
- :mod:`.flops`: FLOPs per training sample
- :mod:`.vram`: the per-GPU memory breakdown
- :mod:`.throughput`: training speed, scaling efficiency, environment simulation
- :mod:`.serving`: KV cache, LLM serving, vision inference, image generation
- :mod:`.interconnect`: gradient sync, tensor-parallel and all-to-all traffic
- :mod:`.host`: system RAM, storage, CPU cores
- :mod:`.references`: rules of thumb, reference estimators' figures, the seed's claims
"""

from torchrig.planning.requirements.planner import plan
from torchrig.planning.requirements.types import (
    Assumption,
    Item,
    Requirements,
    SeedClaim,
    vram_verdict,
)

__all__ = ["Assumption", "Item", "Requirements", "SeedClaim", "plan", "vram_verdict"]
