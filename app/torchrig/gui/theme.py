"""Light / dark / follow-the-system appearance.

Qt 6.8+ can ask the platform for a colour scheme (``QStyleHints.setColorScheme``); Windows 11,
macOS and GNOME/KDE honour it. Many platforms do not (X11 without a platform theme, Xvfb, the
offscreen platform, Qt < 6.8), so when the scheme did not take, the Fusion style with our own
palette gives the same result everywhere. "system" undoes both.
"""

from __future__ import annotations

from torchrig.gui.qt import QApplication, QColor, QPalette, Qt

THEMES = ("system", "light", "dark")

_DARK = {
    "Window": "#2b2b2e", "WindowText": "#f0f0f0", "Base": "#1f1f22",
    "AlternateBase": "#2a2a2e", "ToolTipBase": "#3a3a3e", "ToolTipText": "#f0f0f0",
    "PlaceholderText": "#a8a7ab", "Text": "#f0f0f0", "Button": "#38383d",
    "ButtonText": "#f0f0f0", "BrightText": "#ff7b72", "Light": "#4a4a50", "Midlight": "#404046",
    "Mid": "#303034", "Dark": "#1a1a1c", "Shadow": "#000000", "Highlight": "#3584e4",
    "HighlightedText": "#ffffff", "Link": "#78aeed", "LinkVisited": "#c397d8",
}
_LIGHT = {
    "Window": "#efefef", "WindowText": "#1b1b1b", "Base": "#ffffff",
    "AlternateBase": "#f5f5f5", "ToolTipBase": "#ffffdc", "ToolTipText": "#1b1b1b",
    "PlaceholderText": "#646368", "Text": "#1b1b1b", "Button": "#efefef",
    "ButtonText": "#1b1b1b", "BrightText": "#ffffff", "Light": "#ffffff", "Midlight": "#cacaca",
    "Mid": "#b8b8b8", "Dark": "#9f9f9f", "Shadow": "#767676", "Highlight": "#3584e4",
    "HighlightedText": "#ffffff", "Link": "#1a5fb4", "LinkVisited": "#7b3fa0",
}
_DISABLED_TEXT = {"dark": "#7f7f85", "light": "#8f8f8f"}

_system_style: str | None = None
"""The style before we first changed anything ("system" restores it)."""
_changed = False
"""Whether a "light" or "dark" choice is in place (a scheme, a style or a palette of ours)."""


def palette_for(theme: str) -> QPalette:
    """Our Fusion palette for "light" or "dark"."""
    colours = _DARK if theme == "dark" else _LIGHT
    palette = QPalette()
    for role_name, hex_colour in colours.items():
        palette.setColor(getattr(QPalette.ColorRole, role_name), QColor(hex_colour))
    disabled = QColor(_DISABLED_TEXT["dark" if theme == "dark" else "light"])
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text,
                 QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return palette


def apply_theme(theme: str) -> str:
    """Apply "system", "light" or "dark" to the running application; returns how it was done:
    "platform" (the platform's own scheme), "palette" (our Fusion palette) or "system"."""
    global _system_style, _changed
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return "system"
    if theme not in ("light", "dark"):
        if not _changed:
            # Nothing of ours to undo (the window's start, mostly): the first app.style()
            # from Python builds QStyle's enums, 14 ms of the start for nothing.
            return "system"
        hints = app.styleHints()
        if hasattr(hints, "unsetColorScheme"):  # Qt >= 6.8
            hints.unsetColorScheme()
        if _system_style is not None and app.style().name() != _system_style:
            app.setStyle(_system_style)
        app.setPalette(QPalette())  # an empty palette: the platform's own colours again
        _changed = False
        return "system"
    if _system_style is None:
        _system_style = app.style().name()
    _changed = True
    hints = app.styleHints()
    can_ask = hasattr(hints, "setColorScheme")  # Qt >= 6.8
    want = Qt.ColorScheme.Dark if theme == "dark" else Qt.ColorScheme.Light
    if can_ask:
        hints.setColorScheme(want)
        if hints.colorScheme() == want:
            app.setPalette(QPalette())  # drop a fallback palette from an earlier choice
            return "platform"
    if app.style().name().lower() != "fusion":
        app.setStyle("Fusion")  # native styles (Windows, macOS) ignore custom palettes
    app.setPalette(palette_for(theme))
    return "palette"
