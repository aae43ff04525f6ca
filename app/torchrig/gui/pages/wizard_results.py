"""The Wizard's answer on screen: the verdict line, the memory breakdown, the recommendation
with the time and money behind it, the sizing solver's changes (each setting with an Apply
button) and the scaling curves - all drawn from a finished
:class:`~torchrig.planning.wizard_model.PlanResult`.

:class:`WizardResults` makes these widgets and fills them; the Wizard page lays them out
(between its own input widgets) and decides when a plan is shown.
"""

from __future__ import annotations

from html import escape
from typing import Any

from torchrig.findings import Severity
from torchrig.gui.charts import BreakdownChart, ScalingChart
from torchrig.gui.findings_view import FindingsView
from torchrig.gui.qt import (
    QHBoxLayout,
    QLabel,
    QObject,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from torchrig.gui.style import colour
from torchrig.gui.widgets import WrappedLabel
from torchrig.planning.advice import Advice
from torchrig.planning.analysis import Analysis, Recommendation
from torchrig.planning.breakdown import requirement_bars
from torchrig.planning.fit_verdict import (
    fit_verdict,
    other_tier_gpu,
    other_tier_layout,
    tier_is_subject_but_not_as_shown,
)
from torchrig.planning.gpu_choice import PICK_BASES
from torchrig.planning.solver import SolverAnswer
from torchrig.planning.wizard_model import PlanResult, scaling_for
from torchrig.units import fmt_flops, fmt_gib, fmt_money, fmt_seconds


class WizardResults(QObject):
    """The widgets that show a plan (``headline``, ``chart``, ``recommendation``,
    ``solver_box`` with ``apply_buttons``, ``findings_view``, ``scaling_chart``), made
    without a parent for the page to place.

    Signals:
        apply_requested(object): the Apply button of a solver change (a ``Change``).
    """

    apply_requested = Signal(object)

    def __init__(self, lang: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.lang = lang
        self.headline = WrappedLabel()
        self.chart = BreakdownChart(lang)
        self.recommendation = WrappedLabel()
        self.solver_box = QWidget()
        self.solver_layout = QVBoxLayout(self.solver_box)
        self.solver_layout.setContentsMargins(0, 0, 0, 0)
        self.solver_box.hide()
        self.apply_buttons: list[QPushButton] = []
        self.findings_view = FindingsView(lang)
        self.scaling_chart = ScalingChart(lang)

    def show_failure(self, message: str, details: str) -> None:
        # A planner bug must not look like an answer: say so where the verdict goes.
        self.headline.setText(_coloured(self.tr("Planning failed: {0}").format(message),
                                        colour("error")))
        self.headline.setToolTip(details)

    def mark_stale(self, stale: bool) -> None:
        """While a field is invalid the results are the last valid plan's: greyed out, and the
        headline says so, so nobody reads them as the answer for what is typed now."""
        for widget in (self.chart, self.findings_view, self.recommendation):
            widget.setEnabled(not stale)
        if stale and not self.headline.text().startswith("<p><b>"):
            note = self.tr("Out of date: these results are for the last valid input. Correct the "
                           "field marked in red to plan again.")
            self.headline.setText(f"<p><b>{escape(note)}</b></p>"
                                  f"<span style='color:{colour('muted')}'>"
                                  f"{self.headline.text()}</span>")

    def show(self, result: PlanResult, priced: tuple[str, ...], collective_report: Any) -> None:
        """A finished plan; ``priced``: the GPUs the user gave an hourly price for;
        ``collective_report``: a measured link for the scaling curves (or None)."""
        self._show(result.analysis, result.ms)
        self._show_recommendation(result, priced)
        self._show_scaling(result, collective_report)

    def _show(self, analysis: Analysis, ms: float) -> None:
        self.headline.setToolTip("")
        req = analysis.requirements
        caps = analysis.subject
        self.chart.set_bars(requirement_bars(req, caps))
        t = req.throughput
        fit = fit_verdict(analysis).code  # the one verdict the tier line reads too
        subject = caps.label.get(self.lang)
        if fit == "no_gpu":
            verdict = escape(self.tr("no GPU on {0}").format(subject))
        elif fit == "unknown":
            verdict = escape(self.tr("GPU memory of {0} unknown").format(subject))
        elif fit == "fits":
            verdict = _coloured(self.tr("fits on {0}").format(subject), colour("ok"))
        elif fit == "tight":
            verdict = _coloured(self.tr("tight on {0}: only the safety margin is short").format(
                subject), colour("warn"))
        else:
            verdict = _coloured(self.tr("does not fit on {0}").format(subject),
                                colour("error"))
        speed = t.get("samples_per_s")
        epoch = t.get("time_per_epoch_s")
        util = t.get("utilisation")
        parts = [_bold(self.tr("VRAM per GPU:")) + f" {fmt_gib(req.vram_total)} — {verdict}"]
        # The VRAM verdict alone read "fits" in green beside a Blocker: say what blocks.
        blockers = [f for f in analysis.findings if f.severity == Severity.BLOCKER]
        if blockers:
            first = blockers[0].title.get(self.lang)
            text = (self.tr("Not ready: 1 blocker ({0})").format(first) if len(blockers) == 1
                    else self.tr("Not ready: {0} blockers, first: {1}").format(len(blockers),
                                                                              first))
            parts.insert(0, _coloured(text, colour("error")))
        throughput = _bold(self.tr("Estimated throughput:"))
        if speed is not None and speed.value:
            rate = f"{speed.value:,.0f}"
            per_epoch = fmt_seconds(epoch.value if epoch else None, self.lang)
            text = (self.tr("1 sample/s; time per epoch {0}").format(per_epoch) if rate == "1"
                    else self.tr("{0} samples/s; time per epoch {1}").format(rate, per_epoch))
            per_gpu = t.get("samples_per_s_per_gpu")
            if per_gpu is not None and per_gpu.note.en.startswith("memory-bound"):
                # A CNN timed by its memory traffic: the peak's share was not what set it
                # (issue 24 review: ResNet-50 read "assumes 40% of 312.0 TFLOP/s").
                text += " (" + per_gpu.note.get(self.lang) + ")"
            elif util is not None and util.value:
                text += " " + self.tr("(assumes {0} of {1})").format(
                    f"{util.value:.0%}", fmt_flops(t["peak_flops"].value))
            parts.append(f"{throughput} {escape(text)}")
        elif speed is not None:
            parts.append(f"{throughput} {escape(speed.note.get(self.lang))}")
        scaling = t.get("scaling_efficiency")
        if scaling is not None and req.workload.total_gpus > 1:
            # Over the GPUs' links and, between nodes, the network given (or none: the
            # planner's note says perfect scaling is assumed).
            value = (self.tr("unknown") if scaling.value is None
                     else f"{scaling.value:.1%}")
            parts.append(_bold(self.tr("Scaling efficiency:"))
                         + f" {escape(value)} — {escape(scaling.note.get(self.lang))}")
        parts.append(_coloured(self.tr("planned in {0} ms").format(f"{ms:.1f}"),
                               colour("muted")))
        self.headline.setText("<br/>".join(p for p in parts if p))
        self.findings_view.set_findings(analysis.findings,
                                        empty=self.tr("No bottlenecks found."))
        self._show_solver(analysis.solver)

    def _show_recommendation(self, result: PlanResult, priced: tuple[str, ...]) -> None:
        """The lowest tier and the best-value GPU with the time and money behind them, and
        the scaling chart that may be modelled with that GPU."""
        advice = result.advice
        rec = advice.recommendation
        if rec.tier:
            tier = _bold(rec.tier.name.get(self.lang)) + " " + escape(
                self.tr("(seed {0})").format(rec.tier.section))
            if tier_is_subject_but_not_as_shown(result.analysis, rec):
                tier += " " + escape(self._not_as_shown(result.analysis, rec))
            elif other_tier_layout(result.analysis, rec):
                # Another tier laid out otherwise (Enterprise runs 1 x 8 as 2 x 4): said too,
                # or its run time reads as the time of the layout the headline plans.
                tier += " " + escape(self._not_as_shown(result.analysis, rec, gpu=False))
        else:
            tier = escape(self.tr("none of the seed's tiers"))
        if rec.gpu is not None:
            # What the pick is, in the core's words: "best value" only when it was priced.
            basis = PICK_BASES[rec.gpu_basis or "price"].get(self.lang)
            said = self.tr("lowest tier {0}; catalog GPU ({1}): {2}").format(
                tier, escape(basis),
                f"{escape(rec.gpu.name)} ({fmt_gib(rec.gpu.gpu.vram_bytes, 0)})")
        else:
            said = self.tr("lowest tier {0}; no catalog GPU fits").format(tier)
        lines = [_bold(self.tr("Recommended:")) + " " + said]
        # What machine the GPU is for (the subject's build, or what the workload assumes), in
        # the core's words, so a workstation is never told to buy an SXM module unexplained.
        if advice.bought_for.en:
            lines.append(escape(advice.bought_for.get(self.lang)))
        lines += self._money_lines(advice, priced)
        self.recommendation.setText("<br/>".join(lines))

    def _not_as_shown(self, analysis: Analysis, rec: Recommendation, gpu: bool = True) -> str:
        """The headline says the tier does not run the workload as shown: say what the tier
        needs instead - another GPU it lists (when ``gpu``), or more nodes of fewer GPUs
        each."""
        said = []
        if gpu and other_tier_gpu(analysis, rec) and rec.tier_gpu is not None:
            said.append(self.tr("with {0}, not as shown above with {1}").format(
                rec.tier_gpu.name, analysis.subject.gpu_name or "?"))
        if other_tier_layout(analysis, rec) and rec.tier_layout is not None:
            w = analysis.requirements.workload
            said.append(self.tr("as {0} x {1} GPUs (nodes x GPUs per node), not as shown "
                                "above with {2} x {3}").format(
                rec.tier_layout[0], rec.tier_layout[1], w.nodes, w.gpus_per_node))
        return "; ".join(said)

    def _money_lines(self, advice: Advice, priced: tuple[str, ...]) -> list[str]:
        """The time and money behind the recommendation: the tier's run time against the
        target, the best-value GPU's price and time, and the user's hourly price worked out."""
        rec = advice.recommendation
        lines: list[str] = []
        target = advice.time_target_s
        if rec.time_s is not None:
            text = self.tr("run time on the tier's GPU: {0}").format(
                fmt_seconds(rec.time_s, self.lang))
            if target is not None:
                text += " " + self.tr("(target {0})").format(fmt_seconds(target, self.lang))
            lines.append(escape(text))
        elif target is not None and rec.tier is None:
            lines.append(_coloured(self.tr("No tier finishes within {0}.").format(
                fmt_seconds(target, self.lang)), colour("warn")))
        options = {o.part.id: o for o in advice.options}
        best = options.get(rec.gpu.id) if rec.gpu is not None else None
        if best is not None:
            price = (self.tr("no price in {0}").format(advice.currency) if best.price is None
                     else fmt_money(float(best.price), best.currency))
            lines.append(escape(self.tr("{0}: {1} per GPU, run time {2}").format(
                best.part.name, price, fmt_seconds(best.time_s, self.lang))))
        for part_id, option in options.items():
            if part_id not in priced:
                continue
            cost = option.cost_per_epoch if option.cost_per_epoch is not None \
                else option.cost_per_million_tokens
            if cost is None:
                text = self.tr("At your price, {0}: no epoch or token rate to cost").format(
                    option.part.name)
            elif option.cost_per_epoch is not None:
                text = self.tr("At your price, {0}: {1} per epoch, run time {2}").format(
                    option.part.name, fmt_money(float(cost), option.currency),
                    fmt_seconds(option.time_s, self.lang))
            else:
                text = self.tr("At your price, {0}: {1} per million tokens").format(
                    option.part.name, fmt_money(float(cost), option.currency))
            if option.meets_target is False:
                text += " " + self.tr("(misses the time target)")
            lines.append(escape(text))
        return lines

    def _show_solver(self, answer: SolverAnswer | None) -> None:
        """The sizing solver's changes, settings first, each with an Apply button."""
        while self.solver_layout.count():
            item = self.solver_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.apply_buttons = []
        if answer is None or not answer.changes:
            self.solver_box.hide()
            return
        title = QLabel(_bold(self.tr("Changes that make it fit (re-planned):")))
        title.setTextFormat(Qt.TextFormat.RichText)
        self.solver_layout.addWidget(title)
        for change in answer.changes:
            row = QWidget()
            row_layout = QHBoxLayout(row)
            row_layout.setContentsMargins(0, 0, 0, 0)
            time = change.time_text(self.lang)
            text = QLabel(escape(f"{change.label.get(self.lang)} — "
                                 f"{fmt_gib(change.vram_needed)}, {time}"))
            text.setToolTip(change.time_note.get(self.lang))
            text.setWordWrap(True)
            row_layout.addWidget(text, 1)
            if change.kind == "setting":
                button = QPushButton(self.tr("Apply"))
                button.setToolTip(self.tr("Change the workload to this setting"))
                button.clicked.connect(
                    lambda _checked=False, c=change: self.apply_requested.emit(c))
                row_layout.addWidget(button)
                self.apply_buttons.append(button)
            self.solver_layout.addWidget(row)
        self.solver_box.show()

    def _show_scaling(self, result: PlanResult, collective_report: Any) -> None:
        """Efficiency vs GPU count for the candidate links; planned with the subject's GPU, or
        with the recommended catalog GPU when the subject has none."""
        series, modelled_with = scaling_for(result.analysis, result.advice, collective_report)
        note = self.tr("modelled with {0}").format(modelled_with) if modelled_with else ""
        self.scaling_chart.set_series(series, note if series else self.tr(
            "No scaling curve: inference, or no GPU throughput to model with."))


def _bold(text: str) -> str:
    return f"<b>{escape(text)}</b>"


def _coloured(text: str, hex_colour: str) -> str:
    return f"<span style='color:{hex_colour}'>{escape(text)}</span>"
