"""guard-sdk: the Python server SDK of Guard, the consent and data-principal-rights service for
India's DPDP Act 2023. See README.md for a quick start.

- :class:`GuardClient` / :class:`AsyncGuardClient`: typed methods over Guard's public, principal
  and service routes, with timeouts, safe retries and idempotency keys.
- Pure helpers, no network: :func:`has_consent`, :func:`verify_webhook_signature`,
  :func:`verify_standard_webhook`, :func:`canonicalize_audit_event`, :func:`compute_audit_hash`,
  :func:`validate_audit_fields`.
"""

from __future__ import annotations

from ._async_client import AsyncGuardClient
from ._audit_hash import (
    AuditFieldProblem,
    AuditHashInput,
    canonicalize_audit_event,
    compute_audit_hash,
    validate_audit_fields,
)
from ._capture_artifact import (
    CAPTURE_ARTIFACT_FORMAT,
    CaptureArtifactError,
    CaptureArtifactSession,
    canonicalize_capture_artifact,
    verify_capture_signature,
)
from ._client import GuardClient
from ._consent import has_consent
from ._constants import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    INITIAL_RETRY_DELAY,
    MAX_RETRY_DELAY,
    RETRY_AFTER_CAP,
    RETRY_COUNT_HEADER,
    RETRY_JITTER,
)
from ._errors import (
    GuardApiError,
    GuardConnectionError,
    GuardError,
    GuardMissingCredentialError,
    GuardTimeoutError,
    GuardWebhookSecretError,
    code_for_status,
)
from ._models import *  # noqa: F403  (the generated response types; their own __all__)
from ._models import __all__ as _model_names
from ._options import RequestOptions
from ._retry import AttemptFailure, RetryDecision, backoff_delay, decide_retry, parse_retry_after
from ._version import PACKAGE_NAME, __version__
from ._webhooks import (
    DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
    WEBHOOK_SECRET_PREFIX,
    StandardWebhookVerification,
    verify_standard_webhook,
    verify_webhook_signature,
)

__all__ = [
    "GuardClient",
    "AsyncGuardClient",
    "RequestOptions",
    "GuardError",
    "GuardApiError",
    "GuardConnectionError",
    "GuardTimeoutError",
    "GuardMissingCredentialError",
    "GuardWebhookSecretError",
    "code_for_status",
    "has_consent",
    "verify_webhook_signature",
    "verify_standard_webhook",
    "StandardWebhookVerification",
    "DEFAULT_WEBHOOK_TOLERANCE_SECONDS",
    "WEBHOOK_SECRET_PREFIX",
    "canonicalize_audit_event",
    "compute_audit_hash",
    "validate_audit_fields",
    "AuditHashInput",
    "AuditFieldProblem",
    "CAPTURE_ARTIFACT_FORMAT",
    "CaptureArtifactError",
    "CaptureArtifactSession",
    "canonicalize_capture_artifact",
    "verify_capture_signature",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "INITIAL_RETRY_DELAY",
    "MAX_RETRY_DELAY",
    "RETRY_AFTER_CAP",
    "RETRY_JITTER",
    "RETRY_COUNT_HEADER",
    "AttemptFailure",
    "RetryDecision",
    "backoff_delay",
    "decide_retry",
    "parse_retry_after",
    "PACKAGE_NAME",
    "__version__",
    *_model_names,
]
