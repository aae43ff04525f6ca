"""Errors that carry a message meant for the user (CLI: one line on stderr, exit 2)."""


class InputError(Exception):
    """Bad input from the user or a file: the message says what is wrong and where.

    Raised by loaders and validators; the CLI prints ``str(error)`` on one line and exits 2,
    the GUI shows it in a dialog. Never used for programming errors.
    """
