"""DataLoader throughput versus num_workers, and whether the CPU can feed the training rate.

The seed (4.2) warns that a weak CPU starves the GPU. This builds a DataLoader over synthetic
samples that cost real CPU work per sample - decode-like (zlib-inflate a stored compressed
image, YCbCr -> RGB) and augmentation-like (random crop, flip, normalise) - and measures
samples/s for num_workers = 0, 2, 4, ... up to the usable cores. The smallest worker count
within 5 % of the best is recommended; the best rate is compared with the CNN training rate the
train benchmark measured. Worker processes are always shut down, also on cancel or timeout.
"""

from __future__ import annotations

import multiprocessing
import sys
import time
import warnings
import zlib
from collections.abc import Iterator
from typing import Any

from torchrig.bench.base import BenchContext, Benchmark, Event, Progress
from torchrig.bench.benchmarks import nets
from torchrig.bench.report import Measurement, Reference
from torchrig.i18n import Msg

_DISTINCT_IMAGES = 8
_MEAN = (0.485, 0.456, 0.406)  # ImageNet channel statistics, as torchvision's Normalize uses
_STD = (0.229, 0.224, 0.225)


class SyntheticImages:
    """A map-style dataset of compressed 3 x S x S uint8 images (S = crop + crop/8).

    A plain class rather than torch.utils.data.Dataset so that defining it needs no torch;
    DataLoader accepts any object with __len__ and __getitem__. It is picklable, so spawn-based
    platforms (Windows, macOS) can send it to workers.
    """

    def __init__(self, crop: int, length: int = 1_000_000, seed: int = 0) -> None:
        import numpy as np

        self.crop = crop
        self.side = crop + crop // 8
        self.length = length
        self.seed = seed
        rng = np.random.default_rng(seed)
        yy, xx = np.mgrid[0:self.side, 0:self.side]
        blobs: list[bytes] = []
        for k in range(_DISTINCT_IMAGES):
            # Smooth structure plus noise compresses about as well as a photo's pixels do.
            base = 128 + 60 * np.sin(xx / (7 + k)) * np.cos(yy / (11 + k))
            planes = [base + rng.normal(0, 12, base.shape) + 20 * c for c in range(3)]
            img = np.clip(np.stack(planes), 0, 255).astype(np.uint8)
            blobs.append(zlib.compress(img.tobytes(), 6))
        self.blobs = blobs

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> tuple[Any, int]:
        import random

        import numpy as np
        import torch

        raw = zlib.decompress(self.blobs[index % _DISTINCT_IMAGES])
        ycc = torch.from_numpy(
            np.frombuffer(raw, dtype=np.uint8).reshape(3, self.side, self.side).copy()
        ).float()
        # YCbCr -> RGB (ITU-R BT.601, as JPEG decoders do).
        y, cb, cr = ycc[0], ycc[1] - 128.0, ycc[2] - 128.0
        rgb = torch.stack((y + 1.402 * cr, y - 0.344136 * cb - 0.714136 * cr, y + 1.772 * cb))
        rng = random.Random(self.seed * 1_000_003 + index)
        top = rng.randrange(self.side - self.crop + 1)
        left = rng.randrange(self.side - self.crop + 1)
        out = rgb[:, top:top + self.crop, left:left + self.crop]
        if rng.random() < 0.5:
            out = out.flip(2)
        mean = torch.tensor(_MEAN).view(3, 1, 1) * 255.0
        std = torch.tensor(_STD).view(3, 1, 1) * 255.0
        return ((out - mean) / std).contiguous(), index % 1000


def worker_counts(usable: int) -> list[int]:
    """0, 2, 4, 6, 8, then x1.5 steps, always ending at the usable core count."""
    counts = [0]
    n = 2
    while n < usable:
        counts.append(n)
        n = n + 2 if n < 8 else int(n * 1.5)
    if usable >= 1 and usable not in counts:
        counts.append(usable)
    return counts


def _mp_context() -> Any:
    """fork where the OS has it (workers start in milliseconds and measure steady state the
    way Linux users run); spawn elsewhere, which is what those platforms use anyway."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods and
                                       sys.platform.startswith("linux") else "spawn")


def _shutdown(iterator: Any) -> None:
    """Stop worker processes now rather than whenever the garbage collector runs.

    _shutdown_workers is what DataLoader's own __del__ calls; calling it here makes the
    shutdown deterministic on cancel, timeout and errors (a traceback can keep the iterator
    alive).
    """
    shutdown = getattr(iterator, "_shutdown_workers", None)
    if shutdown is not None:
        shutdown()


def measure_workers(ctx: BenchContext, dataset: SyntheticImages, workers: int, batch: int,
                    slot_s: float) -> tuple[float, float, int]:
    """(samples/s, seconds until the first batch, batches timed) for one worker count."""
    from torch.utils.data import DataLoader

    # DataLoader is typed for Dataset subclasses; any map-style object works at run time.
    source: Any = dataset
    loader: Any = DataLoader(source, batch_size=batch, shuffle=False, num_workers=workers,
                             multiprocessing_context=_mp_context() if workers else None)
    iterator = None
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns that fork() in a threaded process may deadlock; DataLoader
            # workers only run the dataset code above, which takes no locks of other threads.
            warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
            t0 = time.perf_counter()
            iterator = iter(loader)
            next(iterator)
        startup = time.perf_counter() - t0
        ctx.check()
        # One more batch per worker so every worker has started before timing begins.
        for _ in range(workers):
            next(iterator)
            ctx.check()
        n = 0
        t1 = time.perf_counter()
        while n < 3 or time.perf_counter() - t1 < slot_s:
            next(iterator)
            n += 1
            ctx.check()
            if n >= 10_000:
                break
        elapsed = time.perf_counter() - t1
        return n * batch / elapsed, startup, n
    finally:
        if iterator is not None:
            _shutdown(iterator)
        del iterator, loader


def _train_rate(ctx: BenchContext) -> tuple[float | None, int | None]:
    """Best CNN training rate measured by the train benchmark and its image size."""
    train = ctx.results.get("train")
    if train is None:
        return None, None
    best, image = None, None
    for mid in ("cnn_fp32", "cnn_amp"):
        m = train.measurement(mid)
        if m is not None and m.value is not None and (best is None or m.value > best):
            best, image = m.value, m.details.get("image")
    return best, image


def run(ctx: BenchContext) -> Iterator[Event]:
    train_rate, train_image = _train_rate(ctx)
    crop = train_image or nets.cnn_shape(ctx.kind, ctx.preset).image
    batch = {"smoke": 8, "quick": 32, "full": 64}[ctx.preset]
    usable = ctx.usable_cpus()
    counts = worker_counts(usable)
    if ctx.preset == "smoke":
        counts = counts[:2]
    steps = len(counts) + 1
    yield Progress("dataload", 0, steps, Msg("preparing synthetic samples", "准备合成样本"))
    dataset = SyntheticImages(crop)
    rates: dict[int, float] = {}
    for i, workers in enumerate(counts):
        label = Msg(f"num_workers={workers}", f"num_workers={workers}")
        yield Progress("dataload", i + 1, steps, label)
        remaining = len(counts) - i
        if ctx.out_of_time(0.5) or (rates and ctx.time_left() < 0.6):
            ctx.note_budget_stop(Msg(f"num_workers={workers} and above not measured",
                                     f"未测 num_workers={workers} 及以上"))
            break
        # Starting workers costs time too: leave each count an equal share minus that.
        slot = max(0.2, ctx.time_left() / remaining * 0.6 - 0.15 * workers ** 0.5)
        if ctx.preset == "smoke":
            slot = 0.0  # three batches prove the path works
        rate, startup, n = measure_workers(ctx, dataset, workers, batch, slot)
        rates[workers] = rate
        yield Measurement(
            id=f"workers_{workers}",
            label=Msg(f"DataLoader, num_workers={workers}", f"DataLoader，num_workers={workers}"),
            value=rate, unit="samples/s",
            details={"num_workers": workers, "batch": batch, "batches": n,
                     "first_batch_s": startup, "image": crop},
        )
        best_before = max((r for w, r in rates.items() if w != workers), default=0.0)
        if len(rates) >= 3 and rate < best_before * 1.05:
            # Adding workers stopped helping: more would only repeat the plateau.
            ctx.note(Msg(f"stopped at num_workers={workers}: no gain over fewer workers",
                         f"在 num_workers={workers} 处停止：比更少的 worker 没有提升"))
            break
    if not rates:
        return
    best_workers = max(rates, key=lambda w: rates[w])
    best = rates[best_workers]
    recommended = min(w for w, r in rates.items() if r >= 0.95 * best)
    synthetic = Msg(
        f"synthetic samples: zlib-inflate a 3x{dataset.side}x{dataset.side} uint8 image, "
        f"YCbCr->RGB, random {crop}x{crop} crop, flip, normalise; lighter than JPEG decoding "
        "(decode + RandomResizedCrop + normalise is roughly 150-300 images/s per core, an "
        "estimate without a primary source)",
        f"合成样本：zlib 解压 3x{dataset.side}x{dataset.side} uint8 图像、YCbCr->RGB、随机裁剪 "
        f"{crop}x{crop}、翻转、归一化；比 JPEG 解码轻（解码 + RandomResizedCrop + 归一化约每核 "
        "150-300 张/秒，为无一手来源的估计）",
    )
    yield Measurement(
        id="recommended_workers",
        label=Msg("Recommended num_workers", "建议的 num_workers"),
        value=float(recommended), unit="count",
        notes=(Msg("smallest count within 5 % of the best rate measured (seed 4.2)",
                   "达到最佳速率 95% 的最小 worker 数（原文 4.2）"),
               Msg(f"{usable} usable CPUs", f"可用 CPU {usable} 个"), synthetic),
        details={"best_workers": best_workers, "usable_cpus": usable},
    )
    ref = None
    notes = [synthetic]
    if train_rate is not None:
        ref = Reference(kind="measured",
                        label=Msg("CNN training rate measured by the train benchmark (best "
                                  "of FP32/AMP)",
                                  "train 基准测得的 CNN 训练速率（FP32/AMP 取较快者）"),
                        source="seed 4.2",
                        value=train_rate)
        if ctx.kind == "cpu":
            notes.append(Msg("on the CPU device, loading and training share the same cores",
                             "在 CPU 设备上，数据加载与训练共用相同的核心"))
    else:
        notes.append(Msg("run the train benchmark too to compare with the training rate",
                         "同时运行 train 基准才能与训练速率比较"))
    yield Measurement(
        id="best_rate", label=Msg("Best DataLoader rate", "DataLoader 最佳速率"),
        value=best, unit="samples/s", reference=ref, notes=tuple(notes),
        details={"num_workers": best_workers, "image": crop, "batch": batch},
    )
    yield Progress("dataload", steps, steps, Msg("done", "完成"))


BENCHMARK = Benchmark(
    id="dataload",
    title=Msg("Data loading: DataLoader workers vs training rate",
              "数据加载：DataLoader worker 数与训练速率"),
    devices=("cpu", "cuda", "mps"),
    run=run,
    weight=4.0,
)
