"""Typed settings over QSettings (Picard's pattern): each option has a name, a type and a
default, so pages read ``settings.currency`` instead of parsing strings.

Settings are an INI file in the platform's config folder, or in ``$TORCHRIG_CONFIG_DIR`` when set
(tests point it at a temp dir so they never touch the user's real settings). ``VERSION`` and
:meth:`Settings._upgrade` keep old files readable when an option changes meaning.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from torchrig.gui.qt import QSettings

T = TypeVar("T")

VERSION = 1


@dataclass(frozen=True)
class Option(Generic[T]):
    key: str
    default: T

    def __get__(self, obj: Settings | None, objtype: type | None = None) -> T:
        if obj is None:
            return self  # type: ignore[return-value]
        return obj._read(self.key, self.default)

    def __set__(self, obj: Settings, value: T) -> None:
        obj._qs.setValue(self.key, value)


class Settings:
    language = Option("ui/language", "system")  # "system", "en", "zh"
    theme = Option("ui/theme", "system")  # "system", "light", "dark"
    last_page = Option("ui/last_page", "machine")
    geometry = Option("ui/geometry", b"")
    currency = Option("quote/currency", "CNY")
    exchange_rate = Option("quote/cny_per_usd", 0.0)  # 0 = not set: the user must enter one
    exchange_rate_date = Option("quote/rate_date", "")
    shop_name = Option("quote/shop_name", "")
    shop_contact = Option("quote/shop_contact", "")
    logo_path = Option("quote/logo_path", "")
    validity_days = Option("quote/validity_days", 14)
    report_lang = Option("quote/report_lang", "zh")
    build_folder = Option("folders/builds", "")
    dataset_folder = Option("folders/dataset", "")
    recent_files = Option("files/recent", [])

    MAX_RECENT = 8

    def __init__(self, qsettings: QSettings | None = None) -> None:
        self._qs = qsettings or _open_settings()
        if int(self._qs.value("meta/version", 0) or 0) < VERSION:
            self._upgrade()

    def _read(self, key: str, default: Any) -> Any:
        value = self._qs.value(key, default)
        try:
            if isinstance(default, bool):
                return value in (True, "true", "1", 1)
            if isinstance(default, int):
                return int(value)
            if isinstance(default, float):
                return float(value)
            if isinstance(default, list):
                if value in (None, ""):
                    return []
                return [str(v) for v in value] if isinstance(value, list) else [str(value)]
            if isinstance(default, bytes):
                return bytes(value) if value else b""
            return str(value)
        except (TypeError, ValueError):
            # A hand-edited or corrupt value falls back to the default instead of crashing.
            return default

    def add_recent(self, path: str) -> None:
        files = [p for p in self.recent_files if p != path]
        self.recent_files = [path, *files][: self.MAX_RECENT]

    def sync(self) -> None:
        self._qs.sync()

    def _upgrade(self) -> None:
        self._qs.setValue("meta/version", VERSION)


def _open_settings() -> QSettings:
    folder = os.environ.get("TORCHRIG_CONFIG_DIR")
    if folder:
        return QSettings(os.path.join(folder, "torchrig.ini"), QSettings.Format.IniFormat)
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "TorchRig", "TorchRig")
