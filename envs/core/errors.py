"""Errors shared by every braincards environment."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action that the rules do not accept in the current decision.

    ``action`` is what was given and ``legal`` (when known) the actions that are legal
    now; the message names both.
    """

    def __init__(self, message: str, action=None, legal=None):
        if legal is not None:
            message = f"{message}; legal actions now: {list(legal)}"
        super().__init__(message)
        self.action = action
        self.legal = None if legal is None else list(legal)
