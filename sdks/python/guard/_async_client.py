"""AsyncGuardClient: the asyncio twin of GuardClient (``_client.py``), method for method;
``tests/test_parity.py`` keeps the two signatures identical. Cancel a call by cancelling its task:
nothing is retried after that."""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import Any, Awaitable, Callable, Mapping, Optional, Sequence, Type

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

__all__ = ["AsyncGuardClient"]


class AsyncGuardClient(ClientCore):
    """Guard's server SDK client for asyncio (awaitable twin of :class:`guard.GuardClient`).

    ::

        async with AsyncGuardClient("https://guard.example.com", api_key=os.environ["GUARD_API_KEY"]) as guard:
            await guard.broker_token("user-42")
            await guard.create_dsr_request(organization_id="org_…", type="erasure")

    Use it as an async context manager, or ``await close()``, so its connection pool is released. An
    ``http_client`` you pass in stays yours: this client never closes it.

    ``timeout`` is in seconds per attempt (each of connect, write and every read of an attempt is
    bounded by it); ``max_retries`` counts retries after the first attempt. ``sleep`` (an async
    callable, default ``asyncio.sleep``; pass ``trio.sleep`` under trio), ``random`` and ``now``
    (epoch seconds) replace how retries wait, the jitter source and the clock that reads an
    HTTP-date ``Retry-After``; tests use them to record delays instead of sleeping.
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
        http_client: Optional[httpx.AsyncClient] = None,
        sleep: Optional[Callable[[float], Awaitable[Any]]] = None,
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
        if http_client is not None and not isinstance(http_client, httpx.AsyncClient):
            raise TypeError("http_client must be an httpx.AsyncClient (use GuardClient for httpx.Client)")
        self._owns_http_client = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient(timeout=self._timeout)
        self._sleep = sleep if sleep is not None else asyncio.sleep

    # ----- lifecycle -----------------------------------------------------------------------------

    async def close(self) -> None:
        """Release the connection pool (only when this client created it)."""
        if self._owns_http_client:
            await self._http.aclose()

    # contextlib.aclosing() and other asyncio code look for aclose().
    aclose = close

    @property
    def is_closed(self) -> bool:
        return self._http.is_closed

    async def __aenter__(self) -> AsyncGuardClient:
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        await self.close()

    # ----- public (no credential) ----------------------------------------------------------------

    async def get_organization(self, slug: str, *, request_options: Optional[RequestOptions] = None) -> OrgSummary:
        """An organisation by its short name (slug)."""
        return await self._send(
            self._prepare("getOrganization", path_params={"slug": slug}, request_options=request_options)
        )

    async def get_notices(self, org_id: str, *, request_options: Optional[RequestOptions] = None) -> NoticeList:
        """The organisation's published notices, under ``notices``."""
        return await self._send(
            self._prepare("getNotices", path_params={"orgId": org_id}, request_options=request_options)
        )

    async def get_notice(self, notice_id: str, *, request_options: Optional[RequestOptions] = None) -> Notice:
        """One published notice."""
        return await self._send(
            self._prepare("getNotice", path_params={"noticeId": notice_id}, request_options=request_options)
        )

    async def get_banner_config(
        self,
        org_id: str,
        *,
        domain: Optional[str] = None,
        app_id: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> BannerConfig:
        """Banner configuration for a web ``domain``, a native ``app_id``, or (neither) the
        organisation default. When both are given the server uses ``domain``."""
        return await self._send(
            self._prepare(
                "getBannerConfig",
                path_params={"orgId": org_id},
                query={"domain": domain, "appId": app_id},
                request_options=request_options,
            )
        )

    async def give_anonymous_consent(
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
        return await self._send(
            self._prepare(
                "giveAnonymousConsent", body=body, idempotency_key=idempotency_key, request_options=request_options
            )
        )

    # ----- service API key -----------------------------------------------------------------------

    async def broker_token(
        self, external_id: str, *, request_options: Optional[RequestOptions] = None
    ) -> BrokeredToken:
        """Mint a short-lived principal access token for your user ``external_id`` and keep it for
        this client's principal calls. Hand ``accessToken`` to your app; broker again when it expires.
        Never retried: it takes no idempotency key, and the token is a secret."""
        token: BrokeredToken = await self._send(
            self._prepare("brokerToken", body={"externalId": external_id}, request_options=request_options)
        )
        self._store_token(token)
        return token

    async def record_consent(
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
        return await self._send(
            self._prepare("recordConsent", body=body, idempotency_key=idempotency_key, request_options=request_options)
        )

    async def get_consent(self, consent_id: str, *, request_options: Optional[RequestOptions] = None) -> ConsentRecord:
        """One consent record."""
        return await self._send(
            self._prepare("getConsent", path_params={"consentId": consent_id}, request_options=request_options)
        )

    async def withdraw_consent(
        self, consent_id: str, *, request_options: Optional[RequestOptions] = None
    ) -> ConsentRecord:
        """Withdraw a consent. Withdrawing a withdrawn one is ``409 CONFLICT``, so this is never retried."""
        return await self._send(
            self._prepare("withdrawConsent", path_params={"consentId": consent_id}, request_options=request_options)
        )

    async def get_consent_status(
        self,
        *,
        email: Optional[str] = None,
        external_id: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> ConsentStatus:
        """Every consent of one principal, found by ``email`` or ``external_id`` (exactly one: the
        server answers ``400 VALIDATION_ERROR`` to neither or both)."""
        return await self._send(
            self._prepare(
                "getConsentStatus",
                query={"email": email, "externalId": external_id},
                request_options=request_options,
            )
        )

    async def verify_consent(
        self, consent_id: str, *, request_options: Optional[RequestOptions] = None
    ) -> ConsentGateVerdict:
        """Consent Gate: ask before processing that depends on a consent; ``deny`` means stop."""
        return await self._send(
            self._prepare("verifyConsent", body={"consentId": consent_id}, request_options=request_options)
        )

    async def list_gate_decisions(
        self, *, limit: Optional[int] = None, request_options: Optional[RequestOptions] = None
    ) -> ConsentGateDecisionList:
        """The gate's decision log, newest first (server default 50, at most 200)."""
        return await self._send(
            self._prepare("listGateDecisions", query={"limit": limit}, request_options=request_options)
        )

    async def list_gate_alerts(self, *, request_options: Optional[RequestOptions] = None) -> ConsentGateAlerts:
        """Consents denied repeatedly inside the rolling window: processing that ignores the gate."""
        return await self._send(self._prepare("listGateAlerts", request_options=request_options))

    # ----- principal access token ----------------------------------------------------------------

    async def link_anonymous_consent(
        self, anonymous_id: str, *, request_options: Optional[RequestOptions] = None
    ) -> AnonymousConsentLink:
        """Move a guest's anonymous consents to the signed-in principal. Idempotent."""
        return await self._send(
            self._prepare("linkAnonymousConsent", body={"anonymousId": anonymous_id}, request_options=request_options)
        )

    async def list_dsr_requests(self, *, request_options: Optional[RequestOptions] = None) -> DsrRequestList:
        """The principal's own data-subject requests, under ``requests``."""
        return await self._send(self._prepare("listDsrRequests", request_options=request_options))

    async def create_dsr_request(
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
        return await self._send(
            self._prepare(
                "createDsrRequest", body=body, idempotency_key=idempotency_key, request_options=request_options
            )
        )

    async def list_grievances(self, *, request_options: Optional[RequestOptions] = None) -> GrievanceList:
        """The principal's own grievances, under ``grievances``."""
        return await self._send(self._prepare("listGrievances", request_options=request_options))

    async def create_grievance(
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
        return await self._send(
            self._prepare(
                "createGrievance", body=body, idempotency_key=idempotency_key, request_options=request_options
            )
        )

    async def get_nomination(self, *, request_options: Optional[RequestOptions] = None) -> Optional[Nomination]:
        """The principal's active nomination, or ``None``."""
        return await self._send(self._prepare("getNomination", request_options=request_options))

    async def upsert_nomination(
        self, *, nominee_name: str, nominee_contact: str, request_options: Optional[RequestOptions] = None
    ) -> Nomination:
        """Set or replace the principal's nomination (the same record is updated, never a second one)."""
        body = {"nomineeName": nominee_name, "nomineeContact": nominee_contact}
        return await self._send(self._prepare("upsertNomination", body=body, request_options=request_options))

    async def revoke_nomination(self, *, request_options: Optional[RequestOptions] = None) -> NominationRevocation:
        """Revoke the principal's nomination; ``revoked`` is false when none was active."""
        return await self._send(self._prepare("revokeNomination", request_options=request_options))

    # ----- transport -------------------------------------------------------------------------------

    async def _send(self, call: PreparedCall) -> Any:
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
                response = await self._http.send(request)
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
            await self._sleep(decision.delay)
            retries_so_far += 1
