"""Charts for the build sheet, drawn with reportlab.graphics (no matplotlib, no Qt).

Three charts, each a :class:`~reportlab.graphics.shapes.Drawing` that the PDF places like a
paragraph: the requirement breakdown (one stacked horizontal bar per resource, with the build's
capacity marked), measured benchmark figures as a percentage of their reference, and scaling
efficiency against GPU count. Every chart has a title, axis titles with units and a legend,
because a chart printed in a quote is read without anyone there to explain it.

Chart text cannot carry markup, so each string is drawn in the font that can show it
(:meth:`FontSet.for_text`) and long labels are shortened to fit, never allowed to overlap.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from reportlab.graphics.charts.barcharts import HorizontalBarChart
from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.shapes import Drawing, Group, Line, Rect, String
from reportlab.graphics.widgets.markers import makeMarker
from reportlab.lib import colors
from reportlab.pdfbase.pdfmetrics import stringWidth

from torchrig.report.chart_style import (  # noqa: F401 - ACCENT, INK, RULE: charts.X callers
    ACCENT,
    GRID,
    INK,
    LABEL_SIZE,
    MUTED,
    PALETTE,
    RULE,
    TITLE_SIZE,
    fit_text,
)
from torchrig.report.fonts import FontSet
from torchrig.report.sheet import BenchRow, BreakdownGroup, ScalingSeries, ThroughputRow
from torchrig.report.strings import text
from torchrig.report.values import fmt_amount, fmt_measure, fmt_percent
from torchrig.units import GB, GiB


def _string(x: float, y: float, label: str, fonts: FontSet, size: float = LABEL_SIZE,
            anchor: str = "start", color: colors.Color = INK, bold: bool = False,
            max_width: float | None = None) -> String:
    font = fonts.for_text(label, bold)
    if max_width is not None:
        label = fit_text(label, font, size, max_width)
    return String(x, y, label, fontName=font, fontSize=size, fillColor=color,
                  textAnchor=anchor)


Swatch = Literal["box", "line", "dashed"]
LegendEntry = tuple[colors.Color, str, Swatch]


def _legend(drawing: Drawing, entries: Sequence[LegendEntry], fonts: FontSet,
            x: float, y: float, width: float) -> float:
    """Draw swatches and labels in rows from (x, y) downwards; return the y below the legend.

    Each entry is (colour, label, swatch): a filled box for a bar segment, a solid line with a
    dot for a measured series, a dashed line for a modelled series or a reference line.
    """
    cursor_x, row_y = x, y
    row_h = LABEL_SIZE + 5
    for color, label, swatch in entries:
        font = fonts.for_text(label)
        label = fit_text(label, font, LABEL_SIZE, width - 16)
        item_w = 14 + stringWidth(label, font, LABEL_SIZE) + 12
        if cursor_x > x and cursor_x + item_w > x + width:
            cursor_x = x
            row_y -= row_h
        if swatch == "dashed":
            drawing.add(Line(cursor_x, row_y + 2.5, cursor_x + 10, row_y + 2.5, strokeColor=color,
                             strokeWidth=1.5, strokeDashArray=[2, 1.5]))
        elif swatch == "line":
            drawing.add(Line(cursor_x, row_y + 2.5, cursor_x + 10, row_y + 2.5, strokeColor=color,
                             strokeWidth=1.5))
            marker = makeMarker("FilledCircle", size=3.5, fillColor=color)
            marker.x, marker.y = cursor_x + 5, row_y + 2.5
            drawing.add(marker)
        else:
            drawing.add(Rect(cursor_x, row_y, 8, 6, fillColor=color, strokeColor=None))
        drawing.add(String(cursor_x + 13, row_y, label, fontName=font, fontSize=LABEL_SIZE,
                           fillColor=INK))
        cursor_x += item_w
    return row_y - row_h


def _legend_height(entries: Sequence[LegendEntry], fonts: FontSet,
                   width: float) -> float:
    probe = Drawing(width, 0)
    return -_legend(probe, entries, fonts, 0, 0, width)


def _scale_for(group: BreakdownGroup, lang: str) -> tuple[float, str]:
    """Divisor and unit name: memory in binary GiB (how RAM and VRAM are counted), storage in
    decimal GB (how drives are sold), cores as they are."""
    if group.unit == "cores":
        return 1.0, text("unit.cores_axis", lang)
    if group.group == "storage":
        return float(GB), "GB"
    return float(GiB), "GiB"


def _nice_axis(top: float, ticks: int = 5) -> tuple[float, float]:
    """A round axis (maximum, step) covering ``top`` with about ``ticks`` intervals, the step
    being 1, 2, 2.5 or 5 times a power of ten (``top`` 25.2 -> (30, 5))."""
    if top <= 0:
        return 1.0, 0.2
    raw = top / ticks
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    return step * math.ceil(top / step - 1e-9), step


def breakdown_chart(group: BreakdownGroup, fonts: FontSet, lang: str,
                    width: float) -> Drawing:
    """One stacked horizontal bar: what makes up the requirement, and the build's capacity."""
    divisor, unit = _scale_for(group, lang)
    items = [item for item in group.items if item.amount > 0]
    entries: list[LegendEntry] = [
        (PALETTE[i % len(PALETTE)],
         f"{item.label}: {fmt_amount(item.amount, group.unit, unit, lang)}", "box")
        for i, item in enumerate(items)
    ]
    if group.capacity is not None:
        entries.append((colors.black, text("chart.capacity", lang) + ": "
                        + fmt_amount(group.capacity, group.unit, unit, lang), "dashed"))
    legend_h = _legend_height(entries, fonts, width - 10)
    bar_h, axis_h, title_h = 16.0, 24.0, 16.0
    height = title_h + bar_h + axis_h + legend_h + 4
    drawing = Drawing(width, height)

    title = text(f"req.group.{group.group}", lang) + " - " + text(
        "req.total", lang, value=fmt_amount(group.total, group.unit, unit, lang))
    if group.capacity is not None:
        title += ", " + text("req.capacity", lang,
                             value=fmt_amount(group.capacity, group.unit, unit, lang))
    drawing.add(_string(0, height - 11, title, fonts, TITLE_SIZE, bold=True, max_width=width))

    top = max(group.total, group.capacity or 0.0) / divisor
    axis_max, step = _nice_axis(top * 1.02)
    chart = HorizontalBarChart()
    chart.x, chart.y = 6, legend_h + axis_h
    chart.width, chart.height = width - 16, bar_h
    chart.data = [[item.amount / divisor] for item in items] or [[0.0]]
    chart.categoryAxis.style = "stacked"
    chart.categoryAxis.categoryNames = [""]
    chart.categoryAxis.visible = False
    chart.barWidth = bar_h
    chart.groupSpacing = 0
    chart.valueAxis.valueMin = 0
    chart.valueAxis.valueMax = axis_max
    chart.valueAxis.valueStep = step
    chart.valueAxis.labels.fontName = fonts.body
    chart.valueAxis.labels.fontSize = LABEL_SIZE
    chart.valueAxis.labelTextFormat = lambda v: f"{v:g}"
    chart.valueAxis.strokeColor = RULE
    chart.valueAxis.visibleGrid = True
    chart.valueAxis.gridStrokeColor = GRID
    chart.bars.strokeColor = colors.white
    chart.bars.strokeWidth = 0.5
    for i in range(len(chart.data)):
        chart.bars[i].fillColor = PALETTE[i % len(PALETTE)]
    drawing.add(chart)
    drawing.add(_string(width - 10, legend_h + 3, unit, fonts, LABEL_SIZE, "end", MUTED))
    if group.capacity is not None:
        cap_x = chart.x + chart.width * min(group.capacity / divisor / axis_max, 1.0)
        drawing.add(Line(cap_x, chart.y - 3, cap_x, chart.y + bar_h + 3, strokeColor=colors.black,
                         strokeWidth=1.5, strokeDashArray=[2, 1.5]))
    _legend(drawing, entries, fonts, 6, legend_h - LABEL_SIZE - 2, width - 10)
    return drawing


def bench_chart(rows: Sequence[BenchRow], fonts: FontSet, lang: str, width: float) -> Drawing:
    """Each measured figure as a percentage of its reference, labelled with both values."""
    rows = [row for row in rows if row.reference]
    bar_pitch = 16.0
    title_h, axis_h = 16.0, 30.0
    plot_h = bar_pitch * len(rows)
    height = title_h + plot_h + axis_h
    drawing = Drawing(width, height)
    drawing.add(_string(0, height - 11, text("chart.bench.title", lang), fonts, TITLE_SIZE,
                        bold=True))

    name_w = min(max((stringWidth(r.name, fonts.for_text(r.name), LABEL_SIZE) for r in rows),
                     default=40.0) + 6, width * 0.32)
    label_w = width * 0.34
    chart = HorizontalBarChart()
    chart.x, chart.y = name_w, axis_h
    chart.width, chart.height = width - name_w - label_w, plot_h
    percents = [row.percent or 0.0 for row in rows]
    # Reversed: a horizontal bar chart draws its first category at the bottom, tables read
    # top-down; reversing keeps the chart in the table's order.
    chart.data = [list(reversed(percents))]
    chart.categoryAxis.categoryNames = ["" for _ in rows]
    chart.categoryAxis.strokeColor = RULE
    chart.categoryAxis.tickLeft = 0
    chart.barWidth = bar_pitch * 0.6
    chart.groupSpacing = bar_pitch * 0.4
    axis_max, step = _nice_axis(max(100.0, *percents), ticks=4)
    chart.valueAxis.valueMin = 0
    chart.valueAxis.valueMax = axis_max
    chart.valueAxis.valueStep = step
    chart.valueAxis.labels.fontName = fonts.body
    chart.valueAxis.labels.fontSize = LABEL_SIZE
    chart.valueAxis.labelTextFormat = lambda v: f"{v:g}%"
    chart.valueAxis.strokeColor = RULE
    chart.valueAxis.visibleGrid = True
    chart.valueAxis.gridStrokeColor = GRID
    chart.bars[0].fillColor = ACCENT
    chart.bars.strokeColor = None
    drawing.add(chart)

    ref_x = chart.x + chart.width * 100.0 / axis_max
    drawing.add(Line(ref_x, chart.y, ref_x, chart.y + plot_h, strokeColor=colors.black,
                     strokeWidth=1, strokeDashArray=[2, 1.5]))
    for i, row in enumerate(rows):
        y_mid = chart.y + plot_h - (i + 0.5) * bar_pitch - LABEL_SIZE / 2 + 1
        drawing.add(_string(name_w - 4, y_mid, row.name, fonts, LABEL_SIZE, "end",
                            max_width=name_w - 6))
        value = fmt_measure(row.measured, row.unit, row.measure_id,
                            text("bench.not_measured", lang))
        reference = fmt_measure(row.reference, row.unit, row.measure_id)
        label = f"{value} / {reference} ({fmt_percent(row.percent)})"
        drawing.add(_string(chart.x + chart.width + 4, y_mid, label, fonts, LABEL_SIZE,
                            max_width=label_w - 6))
    drawing.add(_string(chart.x + chart.width / 2, 6, text("chart.bench.axis", lang), fonts,
                        LABEL_SIZE, "middle", MUTED))
    _legend(drawing, [(colors.black, "100% = " + text("bench.reference", lang), "dashed")], fonts,
            chart.x + chart.width + 4, 6, label_w)
    return drawing


THROUGHPUT_COLOURS = {"measured": colors.HexColor("#c64600"), "spec": ACCENT,
                      "tier": colors.HexColor("#8a8a8a")}


def throughput_chart(rows: Sequence[ThroughputRow], fonts: FontSet, lang: str,
                     width: float) -> Drawing:
    """Measured matmul TFLOP/s beside this GPU's spec peak and each tier's reference GPU, on
    one linear axis (so a CPU's few GFLOP/s look as small as they are)."""
    bar_pitch = 15.0
    title_h, axis_h = 16.0, 26.0
    plot_h = bar_pitch * len(rows)
    height = title_h + plot_h + axis_h
    drawing = Drawing(width, height)
    drawing.add(_string(0, height - 11, text("chart.throughput.title", lang), fonts,
                        TITLE_SIZE, bold=True))
    name_w = width * 0.42
    value_w = 60.0
    plot_w = width - name_w - value_w
    top = max(row.flops for row in rows) / 1e12
    axis_max, step = _nice_axis(top, ticks=4)
    for i, row in enumerate(rows):
        y = axis_h + plot_h - (i + 1) * bar_pitch + bar_pitch * 0.2
        w = plot_w * (row.flops / 1e12) / axis_max
        drawing.add(Rect(name_w, y, max(w, 0.6), bar_pitch * 0.6, strokeColor=None,
                         fillColor=THROUGHPUT_COLOURS.get(row.kind, MUTED)))
        drawing.add(_string(name_w - 4, y + 1.5, row.label, fonts, LABEL_SIZE, "end",
                            max_width=name_w - 6))
        drawing.add(_string(name_w + w + 3, y + 1.5, f"{row.flops / 1e12:,.2f}", fonts,
                            LABEL_SIZE))
    tick = 0.0
    while tick <= axis_max + 1e-9:
        x = name_w + plot_w * tick / axis_max
        drawing.add(Line(x, axis_h, x, axis_h + plot_h, strokeColor=GRID, strokeWidth=0.5))
        drawing.add(_string(x, axis_h - 9, f"{tick:g}", fonts, LABEL_SIZE, "middle"))
        tick += step
    drawing.add(_string(name_w + plot_w / 2, 4, text("chart.throughput.axis", lang), fonts,
                        LABEL_SIZE, "middle", MUTED))
    return drawing


def scaling_chart(series: Sequence[ScalingSeries], fonts: FontSet, lang: str,
                  width: float) -> Drawing:
    """Parallel efficiency against GPU count; measured lines solid with markers, modelled
    lines dashed, and the seed 2.3 target of 80 % as a reference line."""
    series = [s for s in series if s.points]
    entries: list[LegendEntry] = [
        (PALETTE[i % len(PALETTE)], s.label, "line" if s.measured else "dashed")
        for i, s in enumerate(series)
    ]
    entries.append((MUTED, text("chart.scaling.target", lang), "dashed"))
    legend_w = width - 50
    legend_h = _legend_height(entries, fonts, legend_w)
    title_h, plot_h, axis_h = 16.0, 130.0, 30.0
    height = title_h + plot_h + axis_h + legend_h
    drawing = Drawing(width, height)
    drawing.add(_string(0, height - 11, text("chart.scaling.title", lang), fonts, TITLE_SIZE,
                        bold=True))

    xs = [n for s in series for n, _ in s.points]
    ys = [eff * 100 for s in series for _, eff in s.points]
    x_max = max(xs, default=1)
    y_max, y_step = _nice_axis(max(100.0, *ys))
    ticks = [i * y_step for i in range(int(round(y_max / y_step)) + 1)]
    # Headroom above the top tick, so a curve at 100 % does not vanish into the frame.
    y_max += y_step / 2
    plot = LinePlot()
    plot.x, plot.y = 40, legend_h + axis_h
    plot.width, plot.height = width - 50, plot_h
    plot.data = [[(n, eff * 100) for n, eff in sorted(s.points)] for s in series]
    plot.xValueAxis.valueMin = 1
    plot.xValueAxis.valueMax = max(x_max, 2)
    plot.xValueAxis.valueSteps = sorted(set(xs) | {1})
    plot.xValueAxis.labelTextFormat = lambda v: f"{v:g}"
    plot.yValueAxis.valueMin = 0
    plot.yValueAxis.valueMax = y_max
    plot.yValueAxis.valueSteps = ticks
    plot.yValueAxis.labelTextFormat = lambda v: f"{v:g}"
    for axis in (plot.xValueAxis, plot.yValueAxis):
        axis.labels.fontName = fonts.body
        axis.labels.fontSize = LABEL_SIZE
        axis.strokeColor = RULE
        axis.visibleGrid = True
        axis.gridStrokeColor = GRID
    for i, s in enumerate(series):
        line = plot.lines[i]
        line.strokeColor = PALETTE[i % len(PALETTE)]
        line.strokeWidth = 1.5
        if s.measured:
            line.symbol = makeMarker("FilledCircle", size=3.5,
                                     fillColor=PALETTE[i % len(PALETTE)])
        else:
            line.strokeDashArray = [3, 2]
    drawing.add(plot)
    target_y = plot.y + plot.height * 80.0 / y_max
    drawing.add(Line(plot.x, target_y, plot.x + plot.width, target_y, strokeColor=MUTED,
                     strokeWidth=1, strokeDashArray=[2, 1.5]))
    drawing.add(_string(plot.x + plot.width / 2, legend_h + 6, text("chart.scaling.x", lang),
                        fonts, LABEL_SIZE, "middle", MUTED))
    y_title = _string(0, 0, text("chart.scaling.y", lang), fonts, LABEL_SIZE, "middle", MUTED)
    rotated = Group(y_title)
    rotated.translate(12, plot.y + plot.height / 2)
    rotated.rotate(90)
    drawing.add(rotated)
    _legend(drawing, entries, fonts, plot.x, legend_h - LABEL_SIZE - 2, legend_w)
    return drawing
