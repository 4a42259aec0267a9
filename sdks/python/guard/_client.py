"""GuardClient: the synchronous client. AsyncGuardClient (``_async_client.py``) mirrors it method for
method; ``tests/test_parity.py`` keeps the two signatures identical."""

from __future__ import annotations

import time
from types import TracebackType
from typing import Any, Callable, Mapping, Optional, Sequence, Type

import httpx

from ._base import ClientCore, PreparedCall, data_type_list, without_none
from ._constants import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT
from ._models import (
    AnonymousConsent,
    AnonymousConsentLink,
    BannerConfig,
    BrokeredToken,
    ConsentGateAlerts,
    ConsentGateDecisionList,
    ConsentGateVerdict,
    ConsentRecord,
    ConsentStatus,
    DsrRequest,
    DsrRequestList,
    Grievance,
    GrievanceList,
    Nomination,
    NominationRevocation,
    Notice,
    NoticeList,
    OrgSummary,
)
from ._options import RequestOptions
from ._retry import decide_retry

__all__ = ["GuardClient"]


class GuardClient(ClientCore):
    """Guard's server SDK client.

    ::

        with GuardClient("https://guard.example.com", api_key=os.environ["GUARD_API_KEY"]) as guard:
            guard.broker_token("user-42")
            guard.create_dsr_request(organization_id="org_…", type="erasure")

    Use it as a context manager, or call :meth:`close`, so its connection pool is released. An
    ``http_client`` you pass in stays yours: this client never closes it.

    ``timeout`` is in seconds per attempt (each of connect, write and every read of an attempt is
    bounded by it); ``max_retries`` counts retries after the first attempt. ``sleep``, ``random``
    and ``now`` (epoch seconds) are for tests: they replace how retries wait, the jitter source and
    the clock that reads an HTTP-date ``Retry-After``.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: Optional[str] = None,
        access_token: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        default_headers: Optional[Mapping[str, str]] = None,
        http_client: Optional[httpx.Client] = None,
        sleep: Optional[Callable[[float], Any]] = None,
        random: Optional[Callable[[], float]] = None,
        now: Optional[Callable[[], float]] = None,
    ) -> None:
        super().__init__(
            base_url,
            api_key=api_key,
            access_token=access_token,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
            random=random,
            now=now,
        )
        if http_client is not None and not isinstance(http_client, httpx.Client):
            raise TypeError("http_client must be an httpx.Client (use AsyncGuardClient for httpx.AsyncClient)")
        self._owns_http_client = http_client is None
        self._http = http_client if http_client is not None else httpx.Client(timeout=self._timeout)
        self._sleep = sleep if sleep is not None else time.sleep

    # ----- lifecycle -----------------------------------------------------------------------------

    def close(self) -> None:
        """Release the connection pool (only when this client created it)."""
        if self._owns_http_client:
            self._http.close()

    @property
    def is_closed(self) -> bool:
        return self._http.is_closed

    def __enter__(self) -> GuardClient:
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.close()

    # ----- public (no credential) ----------------------------------------------------------------

    def get_organization(self, slug: str, *, request_options: Optional[RequestOptions] = None) -> OrgSummary:
        """An organisation by its short name (slug)."""
        return self._send(self._prepare("getOrganization", path_params={"slug": slug}, request_options=request_options))

    def get_notices(self, org_id: str, *, request_options: Optional[RequestOptions] = None) -> NoticeList:
        """The organisation's published notices, under ``notices``."""
        return self._send(self._prepare("getNotices", path_params={"orgId": org_id}, request_options=request_options))

    def get_notice(self, notice_id: str, *, request_options: Optional[RequestOptions] = None) -> Notice:
        """One published notice."""
        return self._send(
            self._prepare("getNotice", path_params={"noticeId": notice_id}, request_options=request_options)
        )

    def get_banner_config(
        self,
        org_id: str,
        *,
        domain: Optional[str] = None,
        app_id: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> BannerConfig:
        """Banner configuration for a web ``domain``, a native ``app_id``, or (neither) the
        organisation default. When both are given the server uses ``domain``."""
        return self._send(
            self._prepare(
                "getBannerConfig",
                path_params={"orgId": org_id},
                query={"domain": domain, "appId": app_id},
                request_options=request_options,
            )
        )

    def give_anonymous_consent(
        self,
        *,
        organization_id: str,
        notice_id: str,
        purpose: str,
        data_types: Sequence[str],
        anonymous_id: str,
        idempotency_key: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> AnonymousConsent:
        """Record a guest's consent under a client-generated ``anonymous_id``; link it after sign-in
        with :meth:`link_anonymous_consent`. A create call: see ``idempotency_key``."""
        body = {
            "organizationId": organization_id,
            "noticeId": notice_id,
            "purpose": purpose,
            "dataTypes": data_type_list("data_types", data_types),
            "anonymousId": anonymous_id,
        }
        return self._send(
            self._prepare(
                "giveAnonymousConsent", body=body, idempotency_key=idempotency_key, request_options=request_options
            )
        )

    # ----- service API key -----------------------------------------------------------------------

    def broker_token(self, external_id: str, *, request_options: Optional[RequestOptions] = None) -> BrokeredToken:
        """Mint a short-lived principal access token for your user ``external_id`` and keep it for
        this client's principal calls. Hand ``accessToken`` to your app; broker again when it expires.
        Never retried: it takes no idempotency key, and the token is a secret."""
        token: BrokeredToken = self._send(
            self._prepare("brokerToken", body={"externalId": external_id}, request_options=request_options)
        )
        self._store_token(token)
        return token

    def record_consent(
        self,
        *,
        email: str,
        notice_id: str,
        purpose: str,
        data_types: Sequence[str],
        idempotency_key: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> ConsentRecord:
        """Record consent for a known principal, found by ``email`` (``POST /cm/v1/consent``)."""
        body = {
            "email": email,
            "noticeId": notice_id,
            "purpose": purpose,
            "dataTypes": data_type_list("data_types", data_types),
        }
        return self._send(
            self._prepare("recordConsent", body=body, idempotency_key=idempotency_key, request_options=request_options)
        )

    def get_consent(self, consent_id: str, *, request_options: Optional[RequestOptions] = None) -> ConsentRecord:
        """One consent record."""
        return self._send(
            self._prepare("getConsent", path_params={"consentId": consent_id}, request_options=request_options)
        )

    def withdraw_consent(self, consent_id: str, *, request_options: Optional[RequestOptions] = None) -> ConsentRecord:
        """Withdraw a consent. Withdrawing a withdrawn one is ``409 CONFLICT``, so this is never retried."""
        return self._send(
            self._prepare("withdrawConsent", path_params={"consentId": consent_id}, request_options=request_options)
        )

    def get_consent_status(
        self,
        *,
        email: Optional[str] = None,
        external_id: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> ConsentStatus:
        """Every consent of one principal, found by ``email`` or ``external_id`` (exactly one: the
        server answers ``400 VALIDATION_ERROR`` to neither or both)."""
        return self._send(
            self._prepare(
                "getConsentStatus",
                query={"email": email, "externalId": external_id},
                request_options=request_options,
            )
        )

    def verify_consent(
        self, consent_id: str, *, request_options: Optional[RequestOptions] = None
    ) -> ConsentGateVerdict:
        """Consent Gate: ask before processing that depends on a consent; ``deny`` means stop."""
        return self._send(
            self._prepare("verifyConsent", body={"consentId": consent_id}, request_options=request_options)
        )

    def list_gate_decisions(
        self, *, limit: Optional[int] = None, request_options: Optional[RequestOptions] = None
    ) -> ConsentGateDecisionList:
        """The gate's decision log, newest first (server default 50, at most 200)."""
        return self._send(self._prepare("listGateDecisions", query={"limit": limit}, request_options=request_options))

    def list_gate_alerts(self, *, request_options: Optional[RequestOptions] = None) -> ConsentGateAlerts:
        """Consents denied repeatedly inside the rolling window: processing that ignores the gate."""
        return self._send(self._prepare("listGateAlerts", request_options=request_options))

    # ----- principal access token ----------------------------------------------------------------

    def link_anonymous_consent(
        self, anonymous_id: str, *, request_options: Optional[RequestOptions] = None
    ) -> AnonymousConsentLink:
        """Move a guest's anonymous consents to the signed-in principal. Idempotent."""
        return self._send(
            self._prepare("linkAnonymousConsent", body={"anonymousId": anonymous_id}, request_options=request_options)
        )

    def list_dsr_requests(self, *, request_options: Optional[RequestOptions] = None) -> DsrRequestList:
        """The principal's own data-subject requests, under ``requests``."""
        return self._send(self._prepare("listDsrRequests", request_options=request_options))

    def create_dsr_request(
        self,
        *,
        organization_id: str,
        type: str,
        details: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> DsrRequest:
        """File a data-subject request (``type``: summary, processors, correction or erasure).

        Passing an ``idempotency_key`` used before returns the original request and creates
        nothing; without one the SDK mints a key for this call and reuses it on every retry."""
        body = without_none(organizationId=organization_id, type=type, details=details)
        return self._send(
            self._prepare(
                "createDsrRequest", body=body, idempotency_key=idempotency_key, request_options=request_options
            )
        )

    def list_grievances(self, *, request_options: Optional[RequestOptions] = None) -> GrievanceList:
        """The principal's own grievances, under ``grievances``."""
        return self._send(self._prepare("listGrievances", request_options=request_options))

    def create_grievance(
        self,
        *,
        organization_id: str,
        subject: str,
        description: str,
        idempotency_key: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Grievance:
        """File a grievance. A create call: see ``idempotency_key`` on :meth:`create_dsr_request`."""
        body = {"organizationId": organization_id, "subject": subject, "description": description}
        return self._send(
            self._prepare(
                "createGrievance", body=body, idempotency_key=idempotency_key, request_options=request_options
            )
        )

    def get_nomination(self, *, request_options: Optional[RequestOptions] = None) -> Optional[Nomination]:
        """The principal's active nomination, or ``None``."""
        return self._send(self._prepare("getNomination", request_options=request_options))

    def upsert_nomination(
        self, *, nominee_name: str, nominee_contact: str, request_options: Optional[RequestOptions] = None
    ) -> Nomination:
        """Set or replace the principal's nomination (the same record is updated, never a second one)."""
        body = {"nomineeName": nominee_name, "nomineeContact": nominee_contact}
        return self._send(self._prepare("upsertNomination", body=body, request_options=request_options))

    def revoke_nomination(self, *, request_options: Optional[RequestOptions] = None) -> NominationRevocation:
        """Revoke the principal's nomination; ``revoked`` is false when none was active."""
        return self._send(self._prepare("revokeNomination", request_options=request_options))

    # ----- transport -------------------------------------------------------------------------------

    def _send(self, call: PreparedCall) -> Any:
        retries_so_far = 0
        while True:
            request = self._http.build_request(
                call.operation.http_method,
                call.url,
                params=call.params or None,
                headers=self._attempt_headers(call, retries_so_far),
                content=call.content,
                timeout=call.timeout,
            )
            cause: Optional[BaseException] = None
            try:
                response = self._http.send(request)
            except httpx.RequestError as exc:
                cause = exc
                failure, error = self._transport_failure(call, exc)
            else:
                outcome, value, api_error = self._result(response)
                if api_error is None:
                    return value
                if outcome is None:  # a 2xx we cannot read: repeating would not help
                    raise api_error
                failure, error = outcome, api_error
            decision = decide_retry(
                failure=failure,
                retries_so_far=retries_so_far,
                max_retries=call.max_retries,
                safe_to_repeat=call.safe_to_repeat,
                now=self._now(),
                random=self._random,
            )
            if not decision.retry:
                raise error from cause
            self._log_retry(call, retries_so_far, decision.reason, decision.delay)
            self._sleep(decision.delay)
            retries_so_far += 1
