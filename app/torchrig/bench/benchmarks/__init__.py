"""The suite's benchmarks, one module each, and their order (:mod:`.registry`).

Each module defines one :class:`~torchrig.bench.base.Benchmark` as ``BENCHMARK``; ``nets``
(the small networks and batches) and ``trainloop`` (timed training steps, A/B between
precisions) are shared by train, checkpointing and dataload, ``cpufeatures`` by the two matmul
benchmarks. None of them imports torch at import time: each imports it when it runs.
"""
