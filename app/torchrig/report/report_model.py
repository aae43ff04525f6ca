"""The Report page's state without widgets (the page in ``gui/pages/report_page.py`` is widgets
bound to a :class:`ReportModel`).

The model holds what the sheet is made of: the inputs the other pages attach (the build, the
Wizard's workload and its measurement, the last benchmark report, this machine's profile, a
collective report), the header and section options as typed (:class:`SheetFields`), and the
last rendered PDF with where it was exported. :meth:`ReportModel.sheet_job` reads all of it
into a :class:`SheetJob` - everything one render needs, fixed at that moment - which assembles
and renders the sheet when called, on the page's worker thread.

Words the user reads are the page's (translated with Qt) and come in as :class:`ReportWords`;
the English defaults are the source texts.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from torchrig.catalog.model import Catalog
from torchrig.errors import InputError
from torchrig.i18n import Lang

if TYPE_CHECKING:
    from torchrig.report.sheet import Sheet

SECTIONS = ("bom", "totals", "comparison", "requirements", "verify", "bench", "claims",
            "scaling", "findings", "attachment")
"""The sheet's sections in the order the page offers them (report.sheet's section keys)."""
FIELD_KEYS = ("kind", "number", "shop", "contact", "logo", "validity", "pdf_lang", "tier",
              "sections", "internal", "attach_workload")
"""The sheet fields' keys, as :meth:`ReportModel.snapshot` stores them."""


@dataclass(frozen=True)
class ReportWords:
    """The model's messages in the user's language (``no_logo`` has ``{0}``: the path)."""

    no_build: str = ("There is no build to print: make or open one on the Build page, or "
                     "attach the Wizard's workload for a plan sheet.")
    no_logo: str = "logo {0}: no such file"
    no_parts_list: str = "A plan sheet has no parts list to put in a workbook; export it as PDF."


@dataclass(frozen=True)
class SheetFields:
    """The header and options as typed: a quote or a build sheet, its number, the sender
    (shop and contact), a logo file, the days a quote is valid (0: not stated), the PDF's
    language, the tier to compare with (None: the build's own), the sections to print,
    whether the sheet is internal (the shop's remarks and this machine; else a customer
    copy), and whether the Wizard's workload is attached (its requirements, findings and
    scaling are printed only then: the Wizard always holds a workload, its default one
    included, and the customer did not necessarily ask for it)."""

    kind: str = "quote"
    number: str = ""
    shop: str = ""
    contact: str = ""
    logo: str = ""
    validity: int = 0
    pdf_lang: str = "zh"
    tier: str | None = None
    sections: Mapping[str, bool] = field(
        default_factory=lambda: dict.fromkeys(SECTIONS, True))
    internal: bool = False
    attach_workload: bool = False

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["sections"] = dict(self.sections)
        return out


@dataclass(frozen=True)
class Attached:
    """What the sheet will be made of, for the line above the form: the build's name (None:
    no build with parts yet), the attached workload's name (or its model), the benchmark's
    start (to the minute), whether a collective report is attached, and whether the sheet is
    a plan sheet (no build, an attached workload)."""

    build: str | None
    workload: str | None
    bench: str | None
    collective: bool
    plan_only: bool = False

    @property
    def ready(self) -> bool:
        """There is a build, or an attached workload for a plan sheet: something to render."""
        return self.build is not None or self.plan_only


@dataclass(frozen=True)
class SheetJob:
    """One render's inputs, read on the GUI thread; calling it assembles the sheet and renders
    the PDF without touching a widget (it runs on a worker thread)."""

    build: Any
    catalog: Catalog
    header: dict[str, Any]
    lang: Lang
    sections: frozenset[str]
    internal: bool
    tier: str | None = None
    workload: Any = None
    bench_report: Any = None
    profile: Any = None
    collective_report: Any = None
    verify: Any = None
    default_rate: Any = None  # builds.pricing.DefaultRate for a build without a rate

    def sheet(self) -> Sheet:
        """The sheet as it will be printed (reportlab is not needed for this): the build's,
        or with no build the workload's plan sheet."""
        from torchrig.report.sheet import Header, SheetOptions

        if self.build is None:
            from torchrig.report.plan_sheet import assemble_plan_sheet

            sheet = assemble_plan_sheet(
                self.workload, self.catalog, header=Header(**self.header), lang=self.lang,
                options=SheetOptions(lang=self.lang, sections=self.sections,
                                     internal=self.internal))
        else:
            sheet = self._build_sheet()
        if self.verify is not None:
            # The measurement is of the attached workload, which both kinds of sheet plan.
            from torchrig.report.verify_section import verify_section

            sheet = replace(sheet, verify=verify_section(self.verify, self.lang))
        return sheet

    def _build_sheet(self) -> Sheet:
        from torchrig.report.assemble import assemble_sheet
        from torchrig.report.sheet import Header, SheetOptions

        return assemble_sheet(
            self.build, self.catalog, header=Header(**self.header), lang=self.lang,
            workload=self.workload, bench_report=self.bench_report, profile=self.profile,
            collective_report=self.collective_report, tier_id=self.tier,
            options=SheetOptions(lang=self.lang, sections=self.sections,
                                 internal=self.internal), default_rate=self.default_rate)

    def __call__(self) -> bytes:
        # reportlab is imported here, on the worker, not on the GUI thread (~200 ms).
        from torchrig.report.pdf import render_sheet_bytes

        return render_sheet_bytes(self.sheet())

    def xlsx(self, no_parts_list: str = ReportWords.no_parts_list) -> bytes:
        """The quote as an Excel workbook (the same sheet as the PDF). Raises InputError for
        a plan sheet, which has no parts to list."""
        if self.build is None:
            raise InputError(no_parts_list)
        from torchrig.report.xlsx import render_sheet_xlsx

        return render_sheet_xlsx(self.sheet())


class ReportModel:
    """The Report page without its widgets.

    Attributes:
        build / workload / bench_report / verify_result / profile / collective_report: the
            inputs the other pages attach.
        fields: the header and options as typed.
        pdf_bytes: the last rendered PDF (what Export writes); last_export: where it went.
    """

    def __init__(self, catalog: Catalog, fields: SheetFields | None = None,
                 words: ReportWords | None = None) -> None:
        self.catalog = catalog
        self.fields = fields or SheetFields()
        self.words = words or ReportWords()
        self.build: Any = None
        self.workload: Any = None
        self.bench_report: Any = None
        self.verify_result: Any = None  # the Wizard's "Measure on this machine" result
        self.profile: Any = None
        self.collective_report: Any = None
        # The rate for a build without its own (the page sets it from Settings / the shipped
        # reference, as the Build page prices): builds.pricing.DefaultRate or None.
        self.default_rate: Any = None
        self.pdf_bytes: bytes = b""
        self.last_export: Path | None = None

    def has_build(self) -> bool:
        """A build with parts: the Build page always holds one, and an empty "New build" is
        no quote (it printed "CNY 0.00" and a warning for every missing category)."""
        return self.build is not None and bool(self.build.line_items)

    def attached_workload(self) -> Any:
        """The workload, while the user has attached it to the sheet (else None)."""
        return self.workload if self.fields.attach_workload else None

    def attached(self) -> Attached:
        workload = self.attached_workload()
        return Attached(
            build=self.build.name if self.has_build() else None,
            workload=None if workload is None else workload.name or workload.model,
            bench=None if self.bench_report is None else self.bench_report.started[:16],
            collective=self.collective_report is not None,
            plan_only=not self.has_build() and workload is not None)

    def sender(self) -> str:
        """Shop name and contact as the sheet's sender block (the contact on its own line:
        the PDF turns newlines in user text into line breaks)."""
        name, contact = self.fields.shop.strip(), self.fields.contact.strip()
        return f"{name}\n{contact}" if name and contact else name or contact

    def verify_for_sheet(self) -> Any:
        """The measurement, while it is of the sheet's workload (else None: it is left out)."""
        result, workload = self.verify_result, self.attached_workload()
        if result is not None and workload is not None and result.workload == workload:
            return result
        return None

    def sheet_job(self, today: _dt.date | None = None) -> SheetJob:
        """Everything the sheet needs, read now (dated ``today``): the build's sheet, or with
        no build (none with parts) the attached workload's plan sheet. Raises InputError when
        there is neither or the logo file is missing."""
        workload = self.attached_workload()
        build = self.build if self.has_build() else None
        if build is None and workload is None:
            raise InputError(self.words.no_build)
        f = self.fields
        logo = f.logo.strip() or None
        if logo is not None and not Path(logo).is_file():
            raise InputError(self.words.no_logo.format(logo))
        header = dict(
            kind=f.kind, number=f.number, date=(today or _dt.date.today()).isoformat(),
            validity_days=(f.validity or None) if f.kind == "quote" else None,
            shop=self.sender(), logo_path=logo,
            customer=build.customer if build is not None else "",
            project=build.project if build is not None else "")
        return SheetJob(
            build, self.catalog, header, cast(Lang, f.pdf_lang),
            frozenset(key for key, on in f.sections.items() if on), f.internal, f.tier,
            workload, self.bench_report, self.profile, self.collective_report,
            self.verify_for_sheet(), self.default_rate)

    def remembered(self) -> dict[str, Any]:
        """The Settings defaults a rendered sheet's fields become (the next sheet starts
        with them)."""
        f = self.fields
        return {"shop_name": f.shop, "shop_contact": f.contact, "logo_path": f.logo,
                "validity_days": f.validity, "report_lang": f.pdf_lang}

    def export(self, path: Path, pdf: bytes) -> None:
        """Write ``pdf`` to ``path`` atomically (raises InputError); it is the last export."""
        from torchrig.jsonio import atomic_write_bytes

        atomic_write_bytes(path, pdf)
        self.last_export = path

    def snapshot(self) -> dict[str, Any]:
        """The inputs from the other pages, the fields as typed and the last PDF."""
        return {
            "build": self.build, "workload": self.workload, "bench_report": self.bench_report,
            "profile": self.profile, "collective_report": self.collective_report,
            **self.fields.to_dict(), "pdf_bytes": self.pdf_bytes,
            "last_export": self.last_export,
        }

    def restore(self, state: dict[str, Any]) -> None:
        self.build, self.workload = state["build"], state["workload"]
        self.bench_report, self.profile = state["bench_report"], state["profile"]
        self.collective_report = state["collective_report"]
        self.fields = SheetFields(**{key: state[key] for key in FIELD_KEYS})
        self.fields = replace(self.fields, sections=dict(self.fields.sections))
        self.pdf_bytes = state["pdf_bytes"]
        self.last_export = state["last_export"]
