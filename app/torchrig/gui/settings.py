"""Typed settings (Picard's pattern): each option has a name, a type, a default and a check, so
pages read ``settings.currency`` instead of parsing strings, and a hand-edited or damaged value
falls back to its default instead of crashing a page.

The settings are a small versioned JSON file (``torchrig.settings``) in the platform's config
folder, or in ``$TORCHRIG_CONFIG_DIR`` when set (tests point it at a temp dir so they never touch
the user's real settings). Not QSettings: PySide6 stores Python ``bytes`` and other objects in a
QSettings file as pickles and unpickles them on read, and TorchRig never unpickles a file. JSON
also gets the same size/depth limits and atomic saves as every other file the user owns.

Changes are kept in memory and written by :meth:`Settings.sync` (the main window syncs on close
and the Settings dialog on every change), so a burst of edits is one write.
"""

from __future__ import annotations

import base64
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.jsonio import atomic_write_json, load_versioned, unused_name
from torchrig.paths import fallback_dir, home_dir

if TYPE_CHECKING:
    from torchrig.builds.pricing import DefaultRate
    from torchrig.catalog.exchange_rates import ReferenceRate

# The builder's and the catalog's modules are imported where a value is checked, not here:
# the window reads its settings before its first paint, and these imports (the whole catalog
# package among them) were a fifth of that start's time and memory.

T = TypeVar("T")

FORMAT = "torchrig.settings"
VERSION = 1
CONFIG_DIR_ENV = "TORCHRIG_CONFIG_DIR"
FILE_NAME = "settings.json"

LANGUAGES = ("system", "en", "zh")
THEMES = ("system", "light", "dark")
CURRENCIES = ("CNY", "USD")
REPORT_LANGS = ("zh", "en")
SETTINGS_RATE_ORIGIN = Msg("the default rate in Settings", "设置中的默认汇率")
MAX_TEXT = 2000
"""Longest text any option holds (a path, a shop's contact block); longer is a damaged file."""


def config_dir() -> Path:
    """The per-user config folder (not created here): ``$TORCHRIG_CONFIG_DIR``, else the
    platform's place for preferences (XDG on Linux, ``%APPDATA%`` on Windows, ``~/Library/
    Preferences`` on macOS)."""
    override = os.environ.get(CONFIG_DIR_ENV)
    if override:
        return Path(override).expanduser()
    home = home_dir()
    if home is None:
        return fallback_dir() / "config"
    if sys.platform.startswith("win"):
        appdata = os.environ.get("APPDATA")
        return (Path(appdata) if appdata else home / "AppData" / "Roaming") / "TorchRig"
    if sys.platform == "darwin":
        return home / "Library" / "Preferences" / "TorchRig"
    xdg = os.environ.get("XDG_CONFIG_HOME")
    # The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".config"
    return base / "torchrig"


def _one_of(*choices: str) -> Callable[[Any], bool]:
    return lambda value: value in choices


def _region_code(value: Any) -> bool:
    from torchrig.builds.wall_checks import REGION_CODES

    return value in REGION_CODES


def _short_text(value: Any) -> bool:
    return len(value) <= MAX_TEXT


def _date_or_empty(value: Any) -> bool:
    """A date as build files hold it (catalog.fields.check_date), or "" for none."""
    if value == "":
        return True
    from torchrig.catalog.fields import check_date

    try:
        check_date(value, "date")
    except InputError:
        return False
    return True


def exchange_rate_error(rate: float, date: str, where: str) -> str:
    """Why a default exchange rate (0 = none) cannot go into a new build, in the build
    loader's words ("" when it can): new builds take it as is, so each must open again."""
    if rate == 0:
        return ""
    from decimal import Decimal

    from torchrig.builds.build import Build, ExchangeRate, validate_build

    try:
        validate_build(Build(name="-", exchange_rate=ExchangeRate(
            Decimal(str(round(rate, 4))), date)), where=where)
    except InputError as exc:
        return str(exc)
    return ""


def _rate(value: Any) -> bool:
    # 0 means "not set"; CNY per USD has stayed within 1-10 for decades, 1000 is a typo guard.
    return math.isfinite(value) and 0.0 <= value <= 1000.0


class Option(Generic[T]):
    """A typed setting: ``settings.<name>`` reads the stored value when it has the default's
    type and passes ``check``, else the default; assigning a value that fails is a bug in the
    caller and raises ValueError."""

    def __init__(self, default: T, check: Callable[[Any], bool] | None = None) -> None:
        self.default = default
        self.check = check
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def valid(self, value: Any) -> bool:
        kind = type(self.default)
        if kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        elif kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif kind is list:
            ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        else:
            ok = isinstance(value, kind)
        if ok and isinstance(value, str):
            ok = _short_text(value)
        return ok and (self.check is None or bool(self.check(value)))

    def __get__(self, obj: Settings | None, objtype: type | None = None) -> T:
        if obj is None:
            return self  # type: ignore[return-value]
        value = obj._values.get(self.name, self.default)
        if not self.valid(value):
            return self.default
        if isinstance(self.default, float):
            return float(value)  # type: ignore[return-value]
        if isinstance(value, list):
            return list(value)  # type: ignore[return-value]
        return value  # type: ignore[no-any-return]

    def __set__(self, obj: Settings, value: T) -> None:
        if not self.valid(value):
            raise ValueError(f"setting {self.name!r}: invalid value {value!r}")
        if obj._values.get(self.name) != value:
            obj._values[self.name] = list(value) if isinstance(value, list) else value
            obj.changed = True


class Settings:
    """The user's preferences.

    Attributes:
        path: the settings file.
        changed: whether there are edits :meth:`sync` has not written yet.
        load_error: why the file could not be read ("" when it was fine or absent); the
            defaults are used and the damaged file is set aside, not overwritten, on save.
        save_error: why the last :meth:`sync` failed ("" when it worked).
    """

    language = Option("system", _one_of(*LANGUAGES))
    theme = Option("system", _one_of(*THEMES))
    last_page = Option("machine")
    geometry = Option("")  # QMainWindow.saveGeometry(), base64 (see window_geometry)
    currency = Option("CNY", _one_of(*CURRENCIES))  # for new builds
    exchange_rate = Option(0.0, _rate)  # CNY per USD; 0 = not set: the shipped reference
    exchange_rate_date = Option("", _date_or_empty)
    region = Option("cn", _region_code)  # mains and outlets (builds/wall_checks.py)
    shop_name = Option("")
    shop_contact = Option("")
    logo_path = Option("")
    validity_days = Option(14, lambda v: 0 <= v <= 365)
    report_lang = Option("zh", _one_of(*REPORT_LANGS))
    build_folder = Option("")
    dataset_folder = Option("")
    recent_files = Option[list[str]]([])

    MAX_RECENT = 8

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or config_dir() / FILE_NAME
        self._values: dict[str, Any] = {}
        self.changed = False
        self.load_error = ""
        self.save_error = ""
        self._load()

    @classmethod
    def options(cls) -> dict[str, Option[Any]]:
        return {k: v for k, v in vars(cls).items() if isinstance(v, Option)}

    def _load(self) -> None:
        if not self.path.exists():
            return
        try:
            doc = load_versioned(self.path, FORMAT, VERSION)
        except InputError as exc:
            self.load_error = str(exc)
            return
        values = doc.get("values")
        if not isinstance(values, dict):
            self.load_error = f"{self.path}: field 'values' must be an object"
            return
        # Unknown keys (a newer TorchRig's options) are kept and written back untouched.
        self._values = dict(values)

    @property
    def window_geometry(self) -> bytes:
        try:
            return base64.b64decode(self.geometry, validate=True)
        except ValueError:
            return b""

    @window_geometry.setter
    def window_geometry(self, value: bytes) -> None:
        self.geometry = base64.b64encode(value).decode("ascii")

    def default_rate(self, reference: ReferenceRate | None) -> DefaultRate | None:
        """The rate for a build without one: the shop's own default when set (with its date),
        else the ``reference`` the catalog ships; None when neither exists."""
        from decimal import Decimal

        from torchrig.builds.pricing import DefaultRate

        if self.exchange_rate > 0 and self.exchange_rate_date:
            return DefaultRate(Decimal(str(round(self.exchange_rate, 4))),
                               self.exchange_rate_date, SETTINGS_RATE_ORIGIN)
        return DefaultRate.from_reference(reference) if reference is not None else None

    def builds_folder(self) -> Path:
        """Where Open, Save as and Export start: the folder set in Settings (or last used),
        else the home folder (never the process's current directory)."""
        return Path(self.build_folder) if self.build_folder else Path.home()

    def add_recent(self, path: str) -> None:
        files = [p for p in self.recent_files if p != path]
        self.recent_files = [path, *files][: self.MAX_RECENT]

    def reset(self, name: str) -> None:
        """Forget one option, so it reads as its default again."""
        if name in self._values:
            del self._values[name]
            self.changed = True

    def sync(self) -> bool:
        """Write pending changes atomically; False (with ``save_error``) when that failed."""
        if not self.changed:
            return True
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.load_error and self.path.exists():
                # Never overwrite a file we could not read: keep it for the user to look at.
                # Each damaged file gets a name of its own: a second one never replaces the first.
                self.path.replace(unused_name(self.path.with_name(
                    self.path.stem + ".unreadable.json")))
                self.load_error = ""
            atomic_write_json(self.path, {"format": FORMAT, "version": VERSION,
                                          "values": self._values})
        except (InputError, OSError) as exc:
            self.save_error = str(exc)
            return False
        self.changed = False
        self.save_error = ""
        return True
