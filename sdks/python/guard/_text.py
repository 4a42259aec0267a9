"""Text to bytes exactly as the JavaScript reference implementations do it, so that every SDK of the
family signs and hashes the same bytes for the same string."""

from __future__ import annotations

__all__ = ["utf8"]


def utf8(text: str) -> bytes:
    """UTF-8 of ``text`` as JavaScript's ``Buffer.from(text, "utf8")`` writes it.

    A Python ``str`` can hold surrogate code points (from ``"\\ud83d\\ude00"`` literals or JSON
    parsed with surrogates kept apart). JavaScript reads a high-low pair as one character and writes
    a lone surrogate as U+FFFD; plain ``str.encode`` would raise instead.
    """
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode("utf-8")
