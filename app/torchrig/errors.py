"""Errors that carry a message meant for the user (CLI: one line on stderr, exit 2)."""


MAX_MESSAGE = 600
"""Messages quote the bad value; a hostile 100,000-character value must not become a 100 KB
error line, so the message is shortened here, once, for every caller."""


class InputError(Exception):
    """Bad input from the user or a file: the message says what is wrong and where.

    Raised by loaders and validators; the CLI prints ``str(error)`` on one line and exits 2,
    the GUI shows it in a dialog. Never used for programming errors.
    """

    def __init__(self, message: str = "") -> None:
        message = str(message)
        if len(message) > MAX_MESSAGE:
            message = message[: MAX_MESSAGE - 20] + " … (shortened)"
        super().__init__(message)
