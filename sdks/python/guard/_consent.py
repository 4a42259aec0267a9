"""has_consent: contract 1.6.0's helper, unchanged. A pure check over records the caller already
holds; for a decision that reflects a withdrawal made a second ago, ask the server
(``verify_consent``)."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

__all__ = ["has_consent"]


def has_consent(consents: Iterable[Mapping[str, Any]], purpose: str) -> bool:
    """True when some record has exactly ``purpose`` (case-sensitive) and no ``withdrawnAt``.

    Records are consent dicts as the API returns them (``ConsentRecord``, a consent-status entry,
    ...); an absent ``withdrawnAt`` counts as not withdrawn, as ``null`` does.
    """
    return any(consent.get("purpose") == purpose and consent.get("withdrawnAt") is None for consent in consents)
