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
              "sections", "internal")
"""The sheet fields' keys, as :meth:`ReportModel.snapshot` stores them."""


@dataclass(frozen=True)
class ReportWords:
    """The model's messages in the user's language (``no_logo`` has ``{0}``: the path)."""

    no_build: str = "There is no build to print: make or open one on the Build page."
    no_logo: str = "logo {0}: no such file"


@dataclass(frozen=True)
class SheetFields:
    """The header and options as typed: a quote or a build sheet, its number, the sender
    (shop and contact), a logo file, the days a quote is valid (0: not stated), the PDF's
    language, the tier to compare with (None: the build's own), the sections to print, and
    whether the sheet is internal (this machine in the tier comparison)."""

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

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["sections"] = dict(self.sections)
        return out


@dataclass(frozen=True)
class Attached:
    """What the sheet will be made of, for the line above the form: the build's name (None:
    no build yet, nothing to render), the workload's name (or its model), the benchmark's start
    (to the minute), and whether a collective report is attached."""

    build: str | None
    workload: str | None
    bench: str | None
    collective: bool

    @property
    def ready(self) -> bool:
        """There is a build, so a sheet can be rendered."""
        return self.build is not None


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

    def sheet(self) -> Sheet:
        """The sheet as it will be printed (reportlab is not needed for this)."""
        from torchrig.report.assemble import assemble_sheet
        from torchrig.report.sheet import Header, SheetOptions

        sheet = assemble_sheet(
            self.build, self.catalog, header=Header(**self.header), lang=self.lang,
            workload=self.workload, bench_report=self.bench_report, profile=self.profile,
            collective_report=self.collective_report, tier_id=self.tier,
            options=SheetOptions(lang=self.lang, sections=self.sections,
                                 internal=self.internal))
        if self.verify is not None:
            from torchrig.report.verify_section import verify_section

            sheet = replace(sheet, verify=verify_section(self.verify, self.lang))
        return sheet

    def __call__(self) -> bytes:
        # reportlab is imported here, on the worker, not on the GUI thread (~200 ms).
        from torchrig.report.pdf import render_sheet_bytes

        return render_sheet_bytes(self.sheet())


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
        self.pdf_bytes: bytes = b""
        self.last_export: Path | None = None

    def attached(self) -> Attached:
        workload = self.workload
        return Attached(
            build=None if self.build is None else self.build.name,
            workload=None if workload is None else workload.name or workload.model,
            bench=None if self.bench_report is None else self.bench_report.started[:16],
            collective=self.collective_report is not None)

    def sender(self) -> str:
        """Shop name and contact as the sheet's sender block (the contact on its own line:
        the PDF turns newlines in user text into line breaks)."""
        name, contact = self.fields.shop.strip(), self.fields.contact.strip()
        return f"{name}\n{contact}" if name and contact else name or contact

    def verify_for_sheet(self) -> Any:
        """The measurement, while it is of the sheet's workload (else None: it is left out)."""
        result, workload = self.verify_result, self.workload
        if result is not None and workload is not None and result.workload == workload:
            return result
        return None

    def sheet_job(self, today: _dt.date | None = None) -> SheetJob:
        """Everything the sheet needs, read now (dated ``today``). Raises InputError when
        there is no build or the logo file is missing."""
        if self.build is None:
            raise InputError(self.words.no_build)
        f = self.fields
        logo = f.logo.strip() or None
        if logo is not None and not Path(logo).is_file():
            raise InputError(self.words.no_logo.format(logo))
        header = dict(
            kind=f.kind, number=f.number, date=(today or _dt.date.today()).isoformat(),
            validity_days=(f.validity or None) if f.kind == "quote" else None,
            shop=self.sender(), logo_path=logo, customer=self.build.customer,
            project=self.build.project)
        return SheetJob(
            self.build, self.catalog, header, cast(Lang, f.pdf_lang),
            frozenset(key for key, on in f.sections.items() if on), f.internal, f.tier,
            self.workload, self.bench_report, self.profile, self.collective_report,
            self.verify_for_sheet())

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
