"""YOLOv8 detection models, built with ``torch.nn`` from the architecture Ultralytics publishes
(``ultralytics/cfg/models/v8/yolov8.yaml``: its backbone and head tables and the n/s/m/l/x
depth, width and channel-cap multipliers), so the calibration can measure them without the
``ultralytics`` package. The built parameter counts are checked against Ultralytics' model
summaries, so a wrong layer cannot pass silently.

Blocks as the YOLOv8 paper-less documentation describes them: ``Conv`` = conv (no bias) +
BatchNorm + SiLU; ``C2f`` = a 1x1 conv split in two halves, n bottlenecks on the second, all
parts concatenated and mixed by a 1x1 conv; ``SPPF`` = three chained 5x5 max-pools
concatenated; the anchor-free ``Detect`` head with separate box (4 x 16 distribution bins)
and class branches per level, and the fixed 1x1 distribution-focal-loss projection.
"""

from __future__ import annotations

import math

import torch
from torch import nn

SCALES: dict[str, tuple[float, float, int]] = {
    # depth multiple, width multiple, channel cap (yolov8.yaml "scales")
    "n": (0.33, 0.25, 1024),
    "s": (0.33, 0.50, 1024),
    "m": (0.67, 0.75, 768),
    "l": (1.00, 1.00, 512),
    "x": (1.00, 1.25, 512),
}
REG_MAX = 16
"""Bins of the distribution each box side is predicted as (Detect's reg_max)."""


class Conv(nn.Module):
    def __init__(self, cin: int, cout: int, k: int = 1, s: int = 1) -> None:
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.bn(self.conv(x)))


class YoloBottleneck(nn.Module):
    def __init__(self, c: int, shortcut: bool) -> None:
        super().__init__()
        self.cv1 = Conv(c, c, 3)
        self.cv2 = Conv(c, c, 3)
        self.add = shortcut

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C2f(nn.Module):
    def __init__(self, cin: int, cout: int, n: int, shortcut: bool) -> None:
        super().__init__()
        self.c = cout // 2
        self.cv1 = Conv(cin, 2 * self.c)
        self.cv2 = Conv((2 + n) * self.c, cout)
        self.m = nn.ModuleList(YoloBottleneck(self.c, shortcut) for _ in range(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        parts = list(self.cv1(x).chunk(2, 1))
        for block in self.m:
            parts.append(block(parts[-1]))
        return self.cv2(torch.cat(parts, 1))


class SPPF(nn.Module):
    def __init__(self, cin: int, cout: int) -> None:
        super().__init__()
        hidden = cin // 2
        self.cv1 = Conv(cin, hidden)
        self.cv2 = Conv(hidden * 4, cout)
        self.pool = nn.MaxPool2d(5, 1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        parts = [self.cv1(x)]
        for _ in range(3):
            parts.append(self.pool(parts[-1]))
        return self.cv2(torch.cat(parts, 1))


class Detect(nn.Module):
    """Training-mode head: the raw box and class maps of the three levels (the loss decodes
    them)."""

    def __init__(self, classes: int, channels: tuple[int, ...]) -> None:
        super().__init__()
        c2 = max(16, channels[0] // 4, REG_MAX * 4)
        c3 = max(channels[0], min(classes, 100))
        self.box = nn.ModuleList(nn.Sequential(Conv(c, c2, 3), Conv(c2, c2, 3),
                                               nn.Conv2d(c2, 4 * REG_MAX, 1)) for c in channels)
        self.cls = nn.ModuleList(nn.Sequential(Conv(c, c3, 3), Conv(c3, c3, 3),
                                               nn.Conv2d(c3, classes, 1)) for c in channels)
        self.dfl = nn.Conv2d(REG_MAX, 1, 1, bias=False).requires_grad_(False)

    def forward(self, features: list[torch.Tensor]) -> list[torch.Tensor]:
        return [torch.cat((b(x), c(x)), 1) for x, b, c in zip(features, self.box, self.cls,
                                                                strict=True)]


class YoloV8(nn.Module):
    """Backbone (layers 0-9) and PAN neck (10-21) of yolov8.yaml, then Detect on 15, 18, 21."""

    def __init__(self, scale: str, classes: int = 80) -> None:
        super().__init__()
        depth, width, cap = SCALES[scale]

        def ch(c: int) -> int:
            return math.ceil(min(c, cap) * width / 8) * 8

        def n(k: int) -> int:
            return max(round(k * depth), 1)

        c = [ch(x) for x in (64, 128, 256, 512, 1024)]
        self.layers = nn.ModuleList([
            Conv(3, c[0], 3, 2), Conv(c[0], c[1], 3, 2), C2f(c[1], c[1], n(3), True),  # 0-2
            Conv(c[1], c[2], 3, 2), C2f(c[2], c[2], n(6), True),  # 3-4 (P3)
            Conv(c[2], c[3], 3, 2), C2f(c[3], c[3], n(6), True),  # 5-6 (P4)
            Conv(c[3], c[4], 3, 2), C2f(c[4], c[4], n(3), True),  # 7-8
            SPPF(c[4], c[4]),  # 9 (P5)
            nn.Upsample(scale_factor=2.0, mode="nearest"),  # 10, concat with 6
            C2f(c[4] + c[3], c[3], n(3), False),  # 12
            nn.Upsample(scale_factor=2.0, mode="nearest"),  # 13, concat with 4
            C2f(c[3] + c[2], c[2], n(3), False),  # 15: P3 out
            Conv(c[2], c[2], 3, 2),  # 16, concat with 12
            C2f(c[2] + c[3], c[3], n(3), False),  # 18: P4 out
            Conv(c[3], c[3], 3, 2),  # 19, concat with 9
            C2f(c[3] + c[4], c[4], n(3), False),  # 21: P5 out
        ])
        self.detect = Detect(classes, (c[2], c[3], c[4]))

    def forward(self, x: torch.Tensor) -> list[torch.Tensor]:
        L = self.layers
        p3 = L[4](L[3](L[2](L[1](L[0](x)))))
        p4 = L[6](L[5](p3))
        p5 = L[9](L[8](L[7](p4)))
        h4 = L[11](torch.cat((L[10](p5), p4), 1))
        out3 = L[13](torch.cat((L[12](h4), p3), 1))
        out4 = L[15](torch.cat((L[14](out3), h4), 1))
        out5 = L[17](torch.cat((L[16](out4), p5), 1))
        return self.detect([out3, out4, out5])
