"""Charts drawn with QPainter (Qt Charts is deprecated since Qt 6.10): the data comes from the
core (``planning.breakdown``), so the PDF draws the same numbers with reportlab."""

from __future__ import annotations

import math
from collections.abc import Sequence

from torchrig.gui.qt import QColor, QFont, QPainter, QPen, QSize, Qt, QtCore, QWidget
from torchrig.gui.style import colour, qcolour
from torchrig.planning.breakdown import Bar
from torchrig.units import fmt_gb, fmt_gib

PALETTE = ["#1a5fb4", "#26a269", "#e5a50a", "#c64600", "#813d9c", "#986a44", "#3584e4",
           "#77767b"]


class BreakdownChart(QWidget):
    """Horizontal stacked bars, one per requirement group, with the subject's capacity marked
    as a vertical line (red when the need exceeds it)."""

    ROW = 78

    def __init__(self, lang: str = "en", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lang = lang
        self.bars: list[Bar] = []
        self.setMinimumHeight(120)

    def set_bars(self, bars: Sequence[Bar]) -> None:
        self.bars = list(bars)
        self.setMinimumHeight(max(120, self.ROW * len(self.bars) + 10))
        self.updateGeometry()
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(520, self.ROW * max(1, len(self.bars)) + 10)

    def _amount(self, value: float, bar: Bar) -> str:
        if bar.unit == "cores":
            # Whole cores, rounded up as the analysis's finding counts them (73.4 needs 74).
            cores = math.ceil(value - 1e-9)
            return self.tr("1 core") if cores == 1 else self.tr("{0} cores").format(cores)
        return fmt_gb(value) if bar.group == "storage" else fmt_gib(value)

    def paintEvent(self, event: object) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if not self.bars:
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.tr("No plan yet"))
            return
        label_w = 120
        width = self.width() - label_w - 170  # room on the right for the totals
        small = QFont(self.font())
        small.setPointSizeF(max(7.0, self.font().pointSizeF() * 0.85))
        for i, bar in enumerate(self.bars):
            top = 6 + i * self.ROW
            painter.setPen(self.palette().text().color())
            painter.setFont(self.font())
            painter.drawText(QtCore.QRectF(0, top, label_w - 6, 20),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             bar.title.get(self.lang))
            scale_max = max(bar.total, bar.capacity or 0.0) * 1.05 or 1.0
            x = float(label_w)
            for j, seg in enumerate(bar.segments):
                w = width * seg.amount / scale_max
                painter.fillRect(QtCore.QRectF(x, top, max(w, 0.5), 20),
                                 QColor(PALETTE[j % len(PALETTE)]))
                x += w
            total_text = self._amount(bar.total, bar)
            over = bar.capacity is not None and bar.total > bar.capacity
            if bar.capacity:
                cx = label_w + width * bar.capacity / scale_max
                pen = QPen(qcolour("error" if over else "ok"))
                pen.setWidth(2)
                painter.setPen(pen)
                painter.drawLine(QtCore.QPointF(cx, top - 3), QtCore.QPointF(cx, top + 23))
                total_text += "  /  " + self._amount(bar.capacity, bar)
            painter.setPen(qcolour("error") if over else self.palette().text().color())
            painter.drawText(QtCore.QRectF(x + 4, top, self.width() - x - 4, 20),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             total_text)
            painter.setFont(small)
            lx, ly = float(label_w), top + 28.0
            for j, seg in enumerate(bar.segments):
                text = f"{seg.label.get(self.lang)} {self._amount(seg.amount, bar)}"
                tw = painter.fontMetrics().horizontalAdvance(text) + 18
                if lx + tw > self.width() and lx > label_w:  # wrap the legend onto a new line
                    lx, ly = float(label_w), ly + 14
                painter.fillRect(QtCore.QRectF(lx, ly, 9, 9), QColor(PALETTE[j % len(PALETTE)]))
                painter.setPen(self.palette().text().color())
                painter.drawText(QtCore.QPointF(lx + 12, ly + 9), text)
                lx += tw
        painter.end()


class ThroughputChart(QWidget):
    """Horizontal bars of FLOP/s on one linear scale: measured figures against spec peaks."""

    ROW = 26
    COLOURS = {"measured": "#c64600", "spec": "#1a5fb4", "tier": "#77767b"}

    def __init__(self, lang: str = "en", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lang = lang
        self.bars: list = []
        self.setMinimumHeight(60)

    def set_bars(self, bars: Sequence) -> None:
        self.bars = list(bars)
        self.setMinimumHeight(max(60, self.ROW * len(self.bars) + 24))
        self.updateGeometry()
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(520, self.ROW * max(1, len(self.bars)) + 24)

    def paintEvent(self, event: object) -> None:
        from torchrig.units import fmt_flops

        painter = QPainter(self)
        if not self.bars:
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter,
                             self.tr("Run the benchmark to compare with spec peaks"))
            return
        label_w = min(360, int(self.width() * 0.45))
        width = self.width() - label_w - 110
        top_value = max(b.flops for b in self.bars) or 1.0
        for i, bar in enumerate(self.bars):
            top = 4 + i * self.ROW
            painter.setPen(self.palette().text().color())
            painter.drawText(QtCore.QRectF(0, top, label_w - 8, self.ROW - 6),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             painter.fontMetrics().elidedText(bar.label.get(self.lang),
                                                              Qt.TextElideMode.ElideMiddle,
                                                              label_w - 8))
            w = max(1.0, width * bar.flops / top_value)
            painter.fillRect(QtCore.QRectF(label_w, top + 3, w, self.ROW - 12),
                             QColor(self.COLOURS.get(bar.kind, colour("muted"))))
            painter.drawText(QtCore.QRectF(label_w + w + 6, top, 110, self.ROW - 6),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             fmt_flops(bar.flops))
        painter.end()


class ScalingChart(QWidget):
    """Efficiency (0-100 %) against GPU count on a log2 axis, one line per interconnect, with
    the seed's 80 % line (2.3). Modelled curves are dashed; a measured one is solid."""

    COLOURS = ["#1a5fb4", "#26a269", "#e5a50a", "#813d9c", "#986a44", "#3584e4"]

    def __init__(self, lang: str = "en", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lang = lang
        self.series: list = []
        self.note = ""
        self.setMinimumHeight(220)

    def set_series(self, series: Sequence, note: str = "") -> None:
        self.series = list(series)
        self.note = note
        self.update()

    def paintEvent(self, event: object) -> None:
        import math

        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text_colour = self.palette().text().color()
        if not self.series:
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                             self.note or self.tr("No scaling curve: single-GPU or no GPU "
                                                  "figures to model with"))
            return
        left, top, right = 48, 12, 230
        bottom = self.height() - 30
        width, height = self.width() - left - right, bottom - top
        max_gpus = max(p.gpus for s in self.series for p in s.points)
        span = max(1.0, math.log2(max_gpus))

        def xy(gpus: int, eff: float) -> QtCore.QPointF:
            x = left + width * (math.log2(gpus) / span)
            return QtCore.QPointF(x, bottom - height * max(0.0, min(eff, 1.0)))

        grid = qcolour("grid")
        painter.setPen(QPen(grid))
        for pct in (0, 0.2, 0.4, 0.6, 0.8, 1.0):
            y = bottom - height * pct
            painter.drawLine(QtCore.QPointF(left, y), QtCore.QPointF(left + width, y))
            painter.setPen(text_colour)
            painter.drawText(QtCore.QRectF(0, y - 8, left - 6, 16),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             f"{pct:.0%}")
            painter.setPen(QPen(grid))
        target = QPen(qcolour("error"))
        target.setStyle(Qt.PenStyle.DotLine)
        painter.setPen(target)
        y80 = bottom - height * 0.8
        painter.drawLine(QtCore.QPointF(left, y80), QtCore.QPointF(left + width, y80))
        painter.setPen(text_colour)
        n = 1
        while n <= max_gpus:
            p = xy(n, 0)
            painter.drawText(QtCore.QRectF(p.x() - 20, bottom + 4, 40, 14),
                             Qt.AlignmentFlag.AlignCenter, str(n))
            n *= 2
        painter.drawText(QtCore.QRectF(left, bottom + 16, width, 14),
                         Qt.AlignmentFlag.AlignCenter, self.tr("GPUs"))
        for i, series in enumerate(self.series):
            colour = QColor("#c64600") if series.kind == "measured" else \
                QColor(self.COLOURS[i % len(self.COLOURS)])
            pen = QPen(colour)
            pen.setWidth(3 if series.kind != "candidate" else 2)
            if series.kind != "measured":
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            points = [xy(p.gpus, p.efficiency) for p in series.points]
            for a, b in zip(points, points[1:], strict=False):
                painter.drawLine(a, b)
            ly = top + 4 + i * 18
            painter.drawLine(QtCore.QPointF(left + width + 12, ly + 7),
                             QtCore.QPointF(left + width + 36, ly + 7))
            painter.setPen(text_colour)
            label = painter.fontMetrics().elidedText(series.label.get(self.lang),
                                                     Qt.TextElideMode.ElideRight, right - 44)
            painter.drawText(QtCore.QPointF(left + width + 40, ly + 12), label)
        painter.setPen(qcolour("error"))
        painter.drawText(QtCore.QPointF(left + width + 12, top + 10 + len(self.series) * 18),
                         self.tr("seed 2.3: 80 %"))
        painter.end()
