"""The UI language: which one to use, and the Qt translators that put it on screen.

Two layers of text, two mechanisms. Strings written in ``gui/`` go through Qt's translation
system (``self.tr``, extracted by ``scripts/build_translations.py`` into
``resources/translations/torchrig_zh_CN.ts`` and compiled to ``.qm``). Text produced by the
Qt-free core (findings, detected-hardware labels, tier names) is already bilingual
(:class:`torchrig.i18n.Msg`); pages pick one side with their ``lang`` ("en"/"zh"). Both must
agree, so :func:`apply_language` is the one place that switches.
"""

from __future__ import annotations

from pathlib import Path

from torchrig.errors import InputError
from torchrig.gui.qt import QCoreApplication, QLibraryInfo, QLocale, QTranslator
from torchrig.i18n import Lang

CATALOG_BASENAME = "torchrig"
QT_LOCALE = {"en": "en_US", "zh": "zh_CN"}
"""Locale of each UI language: Qt's own catalogue names and number formatting follow it."""

_installed: list[QTranslator] = []
"""Translators this module installed, so a language switch removes exactly those."""


def system_language() -> Lang:
    """The language the desktop asks for: Chinese for any zh locale (zh_CN, zh_TW, zh_HK
    read Simplified Chinese better than English), English otherwise."""
    names = [QLocale.system().name(), *QLocale.system().uiLanguages()]
    return "zh" if any(n.lower().startswith("zh") for n in names) else "en"


def resolve_language(setting: str) -> Lang:
    """``settings.language`` ("system", "en", "zh") -> the language to show."""
    if setting == "zh":
        return "zh"
    if setting == "en":
        return "en"
    return system_language()


def translations_dir() -> Path | None:
    """``resources/translations``, or None when the resources cannot be found (the app then
    runs in English rather than not at all)."""
    from torchrig.resources import resources_dir

    try:
        folder = resources_dir() / "translations"
    except InputError:
        return None
    return folder if folder.is_dir() else None


def catalog_path(lang: Lang) -> Path | None:
    """Our compiled catalogue for ``lang`` (None for English, the source language)."""
    folder = translations_dir()
    if lang == "en" or folder is None:
        return None
    path = folder / f"{CATALOG_BASENAME}_{QT_LOCALE[lang]}.qm"
    return path if path.is_file() else None


def apply_language(lang: Lang) -> list[str]:
    """Install the translators for ``lang`` on the running application, replacing the ones
    installed before, and make ``lang``'s locale the default for number formatting.

    Returns the catalogue files installed (empty for English). A missing catalogue is not an
    error: the affected text stays English.
    """
    app = QCoreApplication.instance()
    for translator in _installed:
        if app is not None:
            app.removeTranslator(translator)
    _installed.clear()
    # Spin boxes and QLocale formatting follow the UI language, so a decimal point typed in a
    # price field is read the same way the tables print it.
    QLocale.setDefault(QLocale(QT_LOCALE[lang]))
    if app is None or lang == "en":
        return []
    loaded: list[str] = []
    ours = catalog_path(lang)
    if ours is not None:
        translator = QTranslator(app)
        if translator.load(str(ours)):
            app.installTranslator(translator)
            _installed.append(translator)
            loaded.append(str(ours))
    # Qt's own strings: standard buttons (Save, Cancel), file dialogs, context menus.
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    qt_base = QTranslator(app)
    if qt_base.load(QLocale(QT_LOCALE[lang]), "qtbase", "_", qt_dir):
        app.installTranslator(qt_base)
        _installed.append(qt_base)
        loaded.append(qt_base.filePath())
    return loaded


def installed_catalogues() -> list[str]:
    """Files of the translators installed now (shown in the About dialog)."""
    return [t.filePath() for t in _installed]
