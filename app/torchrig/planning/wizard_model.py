"""The Wizard's state and rules without widgets (the page in ``gui/pages/wizard_page.py`` is
widgets bound to a :class:`WizardModel`, as napari keeps ``components/`` apart from ``_qt``).

The model holds the workload being edited: the last valid :class:`Workload` (which also keeps
what no field shows, such as an imported Hugging Face config's architecture) and every field's
value as typed. Validation turns the typed values into a workload document and checks it with
the core's own rules (``Workload.from_dict``); an error names its field. The subject of the plan
(this machine, a tier or the Build page's build), the money terms, which plan result is current
(a generation number: only the newest request's result is shown) and whether what is shown is
stale live here too, and so does the planning itself: :func:`compute_plan`, a plain function
of a :class:`PlanRequest` that the page runs on its worker thread, and :func:`scaling_for`, the
scaling curves for a finished plan, which the page works out when it shows the plan.

Words the user reads are not made here: the page translates with Qt. Field errors are either
the loader's own message (``FieldError.kind == "rejected"``) or a code the page words
(``"not_a_number"``, ``"not_whole"``); money errors are the names of the fields that did not
parse.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal, cast

from torchrig.builds.capabilities import Capabilities, from_profile, from_tier
from torchrig.catalog.exchange_rates import ReferenceRate, catalog_reference
from torchrig.catalog.model import Catalog
from torchrig.catalog.money_text import ungroup_number
from torchrig.errors import InputError
from torchrig.hardware.model import SystemProfile
from torchrig.planning.advice import Advice, advise, positive_amount, time_target_seconds
from torchrig.planning.analysis import Analysis, analyze
from torchrig.planning.assumed_settings import (
    AssumedSetting,
    assumed_lines,
    assumed_settings,
    changed_options,
    options_for,
    value_of,
)
from torchrig.planning.device import device_spec, subject_device
from torchrig.planning.hf_config import hf_workload_fields, load_hf_config
from torchrig.planning.links import Link
from torchrig.planning.presets import ModelPreset, load_presets
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.measured_network import plan_link
from torchrig.planning.requirements.types import Assumption
from torchrig.planning.scaling_series import Series, scaling_series
from torchrig.planning.sized_defaults import REFERENCE_GPU, Sizing, size_to_model
from torchrig.planning.workload import (
    ARCH_FIELDS,
    CONFIG_FIELDS,
    KV_CACHE_DTYPES,
    MODES,
    OFFLOADS,
    OPTIMIZERS,
    PRECISIONS,
    STRATEGIES,
    TASKS,
    Workload,
    default_workload,
    load_workload,
)
from torchrig.planning.workload_fields import NETWORKS

FIELD_KINDS: dict[str, str] = {
    "task": "choice", "mode": "choice",
    "model": "choice", "params": "int", "layers": "int", "hidden": "int", "heads": "int",
    "kv_heads": "int", "vocab": "int",
    "precision": "choice", "optimizer": "choice", "batch_size": "int",
    "grad_accumulation": "int", "image_size": "int",
    "seq_len": "int", "output_tokens": "int", "kv_cache_dtype": "choice",
    "gradient_checkpointing": "bool", "lora_rank": "int", "epochs": "float",
    "ema": "bool", "denoising_steps": "int", "guidance": "choice",
    "dataset.samples": "int", "dataset.sample_bytes": "float", "dataset.decoded_bytes": "float",
    "dataset.cache_in_ram": "bool", "precomputed_latents": "bool",
    "gpus_per_node": "int", "nodes": "int", "network": "choice", "nics_per_node": "int",
    "strategy": "choice", "tp_size": "int",
    "pp_size": "int", "vp_size": "int", "ep_size": "int", "offload": "choice",
}
"""Every Wizard field in form order: its key in the workload document (``dataset.x`` for the
dataset's fields; the keys are what validation errors name) and its kind: choice, int, float
or bool. A choice holds a code, a bool a flag, a number the text as typed."""
NO_NETWORK = ""
"""The network choice's code for "not given" (the workload's None: perfect scaling across
nodes is assumed, which the plan says)."""
GUIDANCE: dict[str, bool | None] = {"default": None, "on": True, "off": False}
"""The guidance choice's codes and the workload's values (None: the model's usual setting)."""
CHOICES: dict[str, tuple[str, ...]] = {
    "task": TASKS, "mode": MODES, "precision": PRECISIONS, "optimizer": OPTIMIZERS,
    "strategy": STRATEGIES, "offload": OFFLOADS, "guidance": tuple(GUIDANCE),
    "kv_cache_dtype": KV_CACHE_DTYPES, "network": (NO_NETWORK, *NETWORKS)}
"""The codes each choice offers (the model's depend on the task: :meth:`WizardModel.models_for`)."""
NETWORK_FIELDS = ("network", "nics_per_node")
"""The network between nodes (``torchrig plan --network --nics-per-node``): they count only
with more than one node, and the page disables them for one."""
CUSTOM_ONLY = ("params", "layers", "hidden", "heads", "kv_heads", "vocab")
"""Fields that describe a custom model; a preset model ignores them."""
CUSTOM_MODEL = "custom"
TEXT_TASKS = ("nlp_transformer", "llm_finetune_full", "llm_finetune_lora", "llm_inference")
"""Tasks an imported transformer config may keep (a BERT config on another task takes its
own)."""
MONEY_FIELDS = ("time_target", "rate", "hourly_price")
"""The money fields that are typed, in the order their errors are listed."""


@dataclass(frozen=True)
class FieldError:
    """Why a field's value is refused: ``kind`` "not_a_number" (``text``: what was typed, as
    read), "not_whole" (an integer field got a fraction) or "rejected" (``text``: the workload
    loader's message, without the leading "workload: ")."""

    kind: Literal["not_a_number", "not_whole", "rejected"]
    text: str


@dataclass(frozen=True)
class Validation:
    """The typed values checked: a ``workload`` when they are valid; else the field ``errors``
    and, for a loader message that names no field, ``general``."""

    workload: Workload | None
    errors: dict[str, FieldError] = field(default_factory=dict)
    general: str = ""


@dataclass(frozen=True)
class MoneyFields:
    """The money terms as typed (``torchrig plan --recommend``'s options): a time target in
    hours, the currency prices are compared in, CNY per USD, and one GPU's hourly price."""

    time_target: str = ""
    currency: str = "USD"
    rate: str = ""
    hourly_gpu: str | None = None
    hourly_price: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MoneyFields:
        return cls(**{key: data[key] for key in ("time_target", "currency", "rate",
                                                  "hourly_gpu", "hourly_price")})


@dataclass(frozen=True)
class MoneyTerms:
    """The money fields read: what advise() takes, and the fields that did not parse (left
    out of the terms; names from :data:`MONEY_FIELDS`)."""

    time_target_s: float | None
    currency: str
    cny_per_usd: Decimal | None
    hourly: dict[str, Decimal]
    errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlanRequest:
    """Everything one plan needs, fixed when it was asked for (the worker reads nothing else)."""

    generation: int
    workload: Workload
    subject: Capabilities
    terms: MoneyTerms
    measured_link: Link | None = None
    """This machine's collective benchmark as a link (:meth:`WizardModel.measured_link`)."""


@dataclass(frozen=True)
class PlanResult:
    """A plan for a request: the analysis, the recommendation and how long they took (ms)."""

    generation: int
    analysis: Analysis
    advice: Advice
    ms: float


def number_text(value: Any) -> str:
    """A workload value as a number field shows it (7.0 as "7")."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def parse_number(text: str, kind: str) -> tuple[Any, FieldError | None]:
    """(value, None) or (None, why); empty text is (None, None): the field is not set.
    Thousands separators are ignored: ``_``, and commas between groups of three digits (the
    rule prices follow, catalog/money_text.py); ``1,5`` is not a number rather than fifteen."""
    typed = text.strip()  # what an error shows
    plain = ungroup_number(typed.replace("_", ""))
    if not typed:
        return None, None
    if plain is None:
        return None, FieldError("not_a_number", typed)
    try:
        value = float(plain)
    except ValueError:
        return None, FieldError("not_a_number", typed)
    if kind == "int":
        if not value.is_integer():
            return None, FieldError("not_whole", typed)
        return int(value), None
    return value, None


def fields_of(workload: Workload) -> dict[str, Any]:
    """The field values that show ``workload``: codes for choices, flags, numbers as text."""
    doc = workload.to_dict()
    flat = {k: v for k, v in doc.items() if k != "dataset"}
    flat.update({f"dataset.{k}": v for k, v in doc["dataset"].items()})
    fields: dict[str, Any] = {}
    for key, kind in FIELD_KINDS.items():
        value = flat.get(key)
        if key == "guidance":
            value = next(k for k, v in GUIDANCE.items() if v is value)
        elif key == "network":
            value = NO_NETWORK if value is None else value
        elif kind == "bool":
            value = bool(value)
        elif kind != "choice":
            value = "" if value is None else number_text(value)
        fields[key] = value
    return fields


def scaling_for(analysis: Analysis, advice: Advice, collective_report: Any = None
                ) -> tuple[list[Series], str]:
    """Efficiency vs GPU count for the candidate links, planned with the subject's GPU, or
    with the recommended catalog GPU (named in the second item) when the subject has none."""
    rec = advice.recommendation
    req = analysis.requirements
    modelled_with = ""
    step = req.throughput.get("step_time_s")
    if (step is None or not step.value) and rec.gpu is not None:
        req = plan(req.workload, device_spec(rec.gpu))
        modelled_with = rec.gpu.name
    return scaling_series(req.workload, req, analysis.subject, collective_report), modelled_with


def compute_plan(request: PlanRequest, catalog: Catalog) -> PlanResult:
    """The plan the Wizard shows: analyze() for the subject and advise() with the money terms
    (the same path as ``torchrig plan --recommend``). Pure, so it runs on a worker thread."""
    started = time.perf_counter()
    workload, terms = request.workload, request.terms
    analysis = analyze(workload, request.subject, catalog, request.measured_link)
    # gpu_options' cache makes the re-plans the overkill rule did cheap here.
    # The GPU is recommended for the subject's machine (its build, a tier's starter build).
    advice = advise(workload, catalog, terms.currency, terms.cny_per_usd, terms.hourly,
                    terms.time_target_s, request.subject)
    return PlanResult(request.generation, analysis, advice,
                      (time.perf_counter() - started) * 1000)


class WizardModel:
    """The Wizard without its widgets.

    Attributes:
        workload: the last valid workload, and the base of the next document (its fields that
            no Wizard field shows - a name, an imported config's architecture - carry over).
        fields: every field's value as typed (see :data:`FIELD_KINDS`).
        subject_choice: "machine", "build" or "tier:<id>"; profile / build_caps: what the
            first two stand for once known.
        money: the money fields as typed; default_cny_per_usd: the Settings' default rate.
        collective_report: a measured collective report (the Benchmark page's cluster tab).
        generation: the number of the newest plan request; pending: a request not yet
            started; analysis / last_plan_ms: the newest plan shown; priced: the GPUs the
            newest request has an hourly price for.
        stale: the typed values are invalid, so what is shown is the last valid plan.
    """

    def __init__(self, catalog: Catalog, default_cny_per_usd: Decimal | None = None,
                 workload: Workload | None = None) -> None:
        self.catalog = catalog
        self.presets: dict[str, ModelPreset] = load_presets()
        self.workload: Workload = workload or default_workload("image_classification")
        self.fields: dict[str, Any] = fields_of(self.workload)
        self.subject_choice = "machine"
        self.profile: SystemProfile | None = None
        self.build_caps: Capabilities | None = None
        self.default_cny_per_usd = default_cny_per_usd
        # An empty rate field compares prices at the shipped reference rate, as the Build page
        # prices a build without a rate of its own (docs/hardware-sources.md sec. 8).
        self.reference = _shipped_reference(catalog)
        self.money = MoneyFields(rate="" if default_cny_per_usd is None
                                 else str(default_cny_per_usd))
        self.collective_report: Any = None
        self.generation = 0
        self.pending: PlanRequest | None = None
        self.analysis: Analysis | None = None
        self.last_plan_ms = 0.0
        self.priced: tuple[str, ...] = ()
        self.stale = False
        self.sizing: Sizing | None = None
        # The workload the Wizard filled the fields with itself (a task's defaults, an import
        # laid out for its size): a setting still at its value there is assumed, not given.
        # None for a workload file, which is the user's choice of every setting.
        self.origin: Workload | None = self.workload if workload is None else None

    # --- the workload being edited ------------------------------------------------------------

    def load(self, workload: Workload) -> None:
        """Edit ``workload`` from now on: every field shows its value. What it assumes stays
        measured against :attr:`origin` (a solver's change applied is the user's choice)."""
        self.workload = workload
        self.fields = fields_of(workload)

    def load_file(self, path: Path) -> Workload:
        """A workload file, to :meth:`load`: its every setting is the user's (as for
        ``torchrig plan --workload``), so nothing is assumed. Raises InputError."""
        workload = load_workload(path)
        self.origin, self.sizing = None, None
        return workload

    def _filled(self, workload: Workload, sizing: Sizing | None = None) -> Workload:
        """``workload`` is what the Wizard fills the fields with (its :attr:`origin`)."""
        self.origin, self.sizing = workload, sizing
        return workload

    def _sized(self, workload: Workload) -> Workload:
        """``workload`` with its layout sized to the model (planning.sized_defaults), for the
        subject's GPU when it has one, else the rule's reference GPU; remembered so the
        Wizard can say what it assumed."""
        caps = self.subject()
        device = subject_device(caps) if caps is not None else None
        if device is None or device.vram_bytes is None:
            device = device_spec(self.catalog.get(REFERENCE_GPU))  # the Wizard's catalog
        sizing = size_to_model(workload, (), device)
        return self._filled(sizing.workload, sizing if sizing.reason is not None else None)

    def assumed(self, planned: Sequence[Assumption] = ()) -> list[AssumedSetting]:
        """The settings the user has not chosen: those whose field still holds the value the
        Wizard filled in (:attr:`origin`), as ``torchrig plan`` lists those no option gave.
        The size rule's choices keep its reason while all of them stand; once the user
        changes one, the layout is theirs (the rule's reason no longer describes it)."""
        if self.origin is None:
            return []
        given = changed_options(self.workload, self.origin)
        if self.origin.model != default_workload(self.origin.task).model:
            # An imported model is the user's, as for plan --hf-config.
            given |= options_for({"model"})
        s = self.sizing
        if s is None:
            return assumed_settings(self.workload, given, planned=planned)
        if any(value_of(self.workload, f) != value_of(s.workload, f) for f in s.fields):
            return assumed_settings(self.workload, given | options_for(s.fields),
                                    planned=planned)
        return assumed_settings(self.workload, given, s.fields, s.reason, planned)

    def assumed_note(self, lang: str, fields: Mapping[str, str] | None = None,
                     planned: Sequence[Assumption] = ()) -> str:
        """:meth:`assumed` in words, each line saying which of the Wizard's ``fields`` (key ->
        the label it shows) change them; "" when nothing is assumed. ``planned``: the
        assumptions of the plan shown (its "no network given" among them)."""
        return "\n".join(assumed_lines(self.assumed(planned), lang, fields))

    def for_task(self, task: str) -> Workload:
        """The workload a newly chosen task starts from: that task's typical defaults, keeping
        a typed-in or imported model (its name and shape) when the new task suits it - a
        Qwen2.5 config imported for inference stays Qwen2.5 when the task becomes LoRA."""
        base = default_workload(task)
        old = self.workload
        if old.model != CUSTOM_MODEL or _family(old.task) != _family(task):
            return self._filled(base)
        doc = base.to_dict()
        doc.update({n: getattr(old, n) for n in ("model", "name", "params", "style",
                                                 *ARCH_FIELDS, *CONFIG_FIELDS)})
        if doc["seq_len"] is not None and old.max_positions is not None:
            doc["seq_len"] = min(doc["seq_len"], old.max_positions)
        try:
            return self._sized(Workload.from_dict(doc, where="workload"))
        except InputError:
            return self._filled(base)  # the model does not suit the task's defaults: start afresh

    def models_for(self, task: str) -> list[str]:
        """The model presets offered for ``task`` (then "custom", a model typed in)."""
        return [preset.id for preset in self.presets.values() if task in preset.tasks]

    @property
    def multi_node(self) -> bool:
        """The nodes field holds more than one node (as typed; while it does not parse, the
        last valid workload's): the network fields count only then."""
        nodes, _error = parse_number(str(self.fields.get("nodes", "")), "int")
        return (self.workload.nodes if nodes is None else nodes) > 1

    @property
    def custom(self) -> bool:
        """The model is typed in (custom), so the custom-model fields count."""
        return self.fields.get("model") == CUSTOM_MODEL

    def document(self) -> tuple[dict[str, Any], dict[str, FieldError]]:
        """The workload document from the typed fields, and the fields that do not parse."""
        doc = self.workload.to_dict()
        doc["dataset"] = dict(doc["dataset"])
        errors: dict[str, FieldError] = {}
        custom = self.custom
        for key, kind in FIELD_KINDS.items():
            value: Any = self.fields.get(key)
            if key == "guidance":
                value = GUIDANCE[value]
            elif key == "network":
                value = value or None
            elif kind == "bool":
                value = bool(value)
            elif kind != "choice":
                value, error = parse_number(value, kind)
                if error:
                    errors[key] = error
                    continue
            if key in CUSTOM_ONLY and not custom:
                value = None
            if key.startswith("dataset."):
                doc["dataset"][key.split(".", 1)[1]] = value
            else:
                doc[key] = value
        if not custom:
            # A preset has its own shape: drop what an imported config or a custom model set.
            for key in ("params", "style", *ARCH_FIELDS):
                doc[key] = None
        return doc, errors

    def validate(self) -> Validation:
        """Check the typed values with the workload loader's rules; a loader message that
        quotes a field's key is that field's error."""
        doc, errors = self.document()
        if errors:
            return Validation(None, errors)
        try:
            workload = Workload.from_dict(doc, where="workload")
        except InputError as exc:
            message = str(exc).removeprefix("workload: ")
            key = next((k for k in FIELD_KINDS if f"'{k}'" in message
                        or f"'{k.split('.')[-1]}'" in message), None)
            if key is None:
                return Validation(None, {}, message)
            return Validation(None, {key: FieldError("rejected", message)})
        return Validation(workload)

    def check(self) -> Validation:
        """:meth:`validate`, and its consequence: valid values become the workload; invalid
        ones make what is shown stale (the last valid plan)."""
        result = self.validate()
        self.stale = result.workload is None
        if result.workload is not None:
            self.workload = result.workload
        return result

    def workload_from_config(self, path: Path) -> Workload:
        """The workload for a Hugging Face ``config.json``: the model becomes the architecture
        it describes; the task stays when it suits a transformer. Raises InputError."""
        model = load_hf_config(path)
        task = self.workload.task if self.workload.task in TEXT_TASKS \
            and model.task != "nlp_transformer" else None
        fields = hf_workload_fields(model, task)
        doc = default_workload(fields["task"]).to_dict()
        doc.update(fields)
        return self._sized(Workload.from_dict(doc, where=str(path)))

    # --- what the plan is for ------------------------------------------------------------------

    def subject(self) -> Capabilities | None:
        """The chosen subject's capabilities; None while this machine is not detected yet or no
        build has been made."""
        choice = self.subject_choice
        if choice == "machine":
            return from_profile(self.profile, self.catalog) if self.profile else None
        if choice == "build":
            return self.build_caps
        return from_tier(self.catalog.tier(choice.split(":", 1)[1]), self.catalog)

    def set_build_caps(self, caps: Capabilities | None) -> bool:
        """The Build page's build changed; True when the plan is for it (re-plan then)."""
        self.build_caps = caps
        return self.subject_choice == "build"

    def money_terms(self) -> MoneyTerms:
        """The money fields read; a field that does not parse is left out and named."""
        money = self.money
        errors: list[str] = []
        target = None
        hours = ungroup_number(money.time_target.strip())
        if hours is None:
            errors.append("time_target")  # a comma that is not thousands grouping
        elif hours:
            try:
                target = time_target_seconds(float(hours), "time target")
            except (ValueError, InputError):
                errors.append("time_target")
        rate = self.reference.rate if self.reference is not None else None
        if money.rate.strip():
            try:
                rate = positive_amount(money.rate, "exchange rate")
            except InputError:
                rate = None  # a refused rate converts nothing (not the reference in its place)
                errors.append("rate")
        hourly: dict[str, Decimal] = {}
        if money.hourly_price.strip():
            try:
                hourly[cast(str, money.hourly_gpu)] = positive_amount(
                    money.hourly_price, "GPU-hour price")
            except InputError:
                errors.append("hourly_price")
        return MoneyTerms(target, money.currency, rate, hourly, tuple(errors))

    def set_default_rate(self, rate: Decimal | None) -> bool:
        """A new default rate from Settings. It replaces the rate field's text unless the user
        typed a rate of their own (text other than the old default); True when it did."""
        shown = "" if self.default_cny_per_usd is None else str(self.default_cny_per_usd)
        self.default_cny_per_usd = rate
        if self.money.rate.strip() != shown:
            return False
        self.money = MoneyFields(**{**self.money.to_dict(),
                                    "rate": "" if rate is None else str(rate)})
        return True

    # --- plans ---------------------------------------------------------------------------------

    def request_plan(self, subject: Capabilities, terms: MoneyTerms) -> PlanRequest:
        """A plan of the current workload, newer than every earlier request; it waits in
        ``pending`` until :meth:`take_pending` (an earlier request still waiting is dropped)."""
        self.generation += 1
        self.priced = tuple(terms.hourly)
        self.pending = PlanRequest(self.generation, self.workload, subject, terms,
                                   self.measured_link())
        return self.pending

    def measured_link(self) -> Link | None:
        """The link the plan uses from the attached collective report: only for This machine
        and a report measured on it (its hosts include this machine's name, when both are
        known), as ``torchrig plan --gpu this --collective-report`` (the same plan_link). A
        report without an all-reduce leaves the catalog's link."""
        report = self.collective_report
        if report is None or self.subject_choice != "machine":
            return None
        host = self.profile.hostname if self.profile is not None else None
        if host and report.transport.hosts and host not in report.transport.hosts:
            return None
        try:
            return plan_link(report, self.workload)
        except InputError:
            return None

    def take_pending(self) -> PlanRequest | None:
        request, self.pending = self.pending, None
        return request

    def accept(self, result: PlanResult) -> bool:
        """Take a finished plan if it answers the newest request; False for an older one (a
        newer edit is on its way, and its plan will be shown instead)."""
        if result.generation != self.generation:
            return False
        self.analysis, self.last_plan_ms = result.analysis, result.ms
        return True

    # --- a rebuilt page carries the state over --------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The workload, every field as typed (including text that does not parse yet), the
        subject, the attached collective report, the money fields, and what the Wizard filled
        in (origin, sizing: what the note says is assumed)."""
        return {"workload": self.workload, "fields": dict(self.fields),
                "subject": self.subject_choice, "collective_report": self.collective_report,
                "money": self.money.to_dict(), "origin": self.origin, "sizing": self.sizing}

    def restore(self, state: dict[str, Any]) -> None:
        """Take back a :meth:`snapshot` (``money`` may be missing: the fields stay as they
        are)."""
        self.collective_report = state["collective_report"]
        self.subject_choice = state["subject"]
        self.workload = state["workload"]
        self.fields = dict(state["fields"])
        self.origin, self.sizing = state.get("origin"), state.get("sizing")
        if state.get("money"):
            self.money = MoneyFields.from_dict(state["money"])


def _shipped_reference(catalog: Catalog) -> ReferenceRate | None:
    """The catalog's reference USD -> CNY rate; None without one. A damaged rate file is the
    main window's to report (as a damaged catalog): here it only means no reference."""
    try:
        return catalog_reference(catalog)
    except InputError:
        return None


def precisions_for(workload: Workload) -> tuple[str, ...]:
    """The precisions the planner models for ``workload`` with everything else kept: the
    workload's rules decide (fp8 trains transformers only, fp4 only serves, int8 / int4 train
    only as a LoRA base), so a precision list built from this offers exactly what plans. A
    workload that is itself invalid gets every precision (its own error is shown instead)."""
    try:
        workload.validate()
    except InputError:
        return PRECISIONS
    allowed = []
    for p in PRECISIONS:
        try:
            replace(workload, precision=p).validate()
        except InputError:
            continue
        allowed.append(p)
    return tuple(allowed)


def _family(task: str) -> str:
    """Which model kinds a task takes: a custom model moves only between tasks of one family."""
    return "text" if task in TEXT_TASKS else "vision"
