"""Two always-visible lines on the Build page.

The power line: the node's sustained draw, the supplies' capacity, the headroom in watts and
percent, and the draw at the wall for the Settings region; the figures are
:func:`torchrig.builds.power_line.power_line`'s (the power checks' own). The rate line: the
exchange rate the build is priced with, where it came from, and a flag when it is over 30 days
old (the priced build's own ``rate_age_note``).
"""

from __future__ import annotations

from torchrig.builds.build import Build
from torchrig.builds.power_line import power_line
from torchrig.builds.pricing import PricedBuild
from torchrig.catalog.model import Catalog
from torchrig.gui.qt import QLabel, QVBoxLayout, QWidget
from torchrig.gui.style import colour


class PowerLineLabel(QLabel):
    """One line of text, refreshed by :meth:`show_build` after every edit."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setToolTip(self.tr(
            "Sustained draw: each CPU at its maximum power, each GPU at its board power, 150 W "
            "for the rest of the system. Headroom: the supplies' capacity less that draw. At "
            "the wall: the draw divided by the supply's 80 PLUS efficiency (region in Settings)."))

    def show_build(self, build: Build, catalog: Catalog, region: str | None) -> None:
        line = power_line(build, catalog, region)
        if line.sustained_w is None:
            self.setText(self.tr("Power: no CPU or GPU whose power the catalog knows yet."))
            self.setStyleSheet(f"color: {colour('muted')};")
            return
        parts = [self.tr("Power: {0} W sustained").format(f"{line.sustained_w:,.0f}")]
        short = False
        if line.capacity_w is None:
            parts.append(self.tr("no power supply"))
        else:
            share = line.headroom_share or 0.0
            headroom = line.headroom_w or 0.0
            short = headroom < 0
            parts.append(self.tr("supplies {0} W").format(f"{line.capacity_w:,.0f}"))
            parts.append(self.tr("headroom {0} W ({1}%)").format(
                f"{headroom:,.0f}", f"{share * 100:.0f}"))
        if line.wall is not None and line.region is not None:
            parts.append(self.tr("{0} W at the wall ({1} A at {2} V)").format(
                f"{line.wall.wall_w:,.0f}", f"{line.wall.wall_w / line.region.volts:.1f}",
                f"{line.region.volts:.0f}"))
        if line.unknown:
            parts.append(self.tr("not counted: {0}").format(", ".join(line.unknown)))
        self.setText(" · ".join(parts))
        self.setStyleSheet(f"color: {colour('error')};" if short else "")


class RateLabel(QLabel):
    """The rate in use and where it came from; in the warning colour when it is old."""

    def __init__(self, lang: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lang = lang
        self.setWordWrap(True)

    def show_priced(self, priced: PricedBuild) -> None:
        origin = priced.exchange_rate_origin
        if priced.exchange_rate is None or origin is None:
            self.setText("")
            self.hide()
            return
        text = self.tr("Exchange rate {0} CNY per USD ({1}): {2}").format(
            priced.exchange_rate, priced.exchange_rate_date, origin.get(self.lang))
        stale = priced.rate_age_note
        if stale is not None:
            text = f"⚠ {text}. {stale.get(self.lang)}"
        self.setText(text)
        self.setStyleSheet(f"color: {colour('warn')};" if stale is not None else
                           f"color: {colour('muted')};")
        self.show()


class BuildFacts(QWidget):
    """The power line above the rate line."""

    def __init__(self, lang: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.power = PowerLineLabel()
        self.rate = RateLabel(lang)
        layout.addWidget(self.power)
        layout.addWidget(self.rate)

    def show_build(self, build: Build, priced: PricedBuild, catalog: Catalog,
                   region: str | None) -> None:
        self.power.show_build(build, catalog, region)
        self.rate.show_priced(priced)
