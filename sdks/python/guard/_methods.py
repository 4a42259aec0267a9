"""The methods of GuardClient and AsyncGuardClient, generated from guard/_operations.py by
scripts/generate_clients.py. Do not edit: change the table and run the generator (a test fails while
this file is stale).

Each method gathers its arguments by name and hands them to ``_call`` with its operation's name; the
table says where each one goes. The two classes differ only in ``async``/``await``.
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Dict, Iterator, Optional, Sequence

from ._base import ClientCore, PreparedCall
from ._models import (
    AnonymousConsent,
    AnonymousConsentLink,
    BannerConfig,
    Breach,
    BreachList,
    BrokeredToken,
    ConsentGateAlerts,
    ConsentGateBypassAlert,
    ConsentGateDecision,
    ConsentGateDecisionList,
    ConsentGateVerdict,
    ConsentRecord,
    ConsentStatus,
    CrossBorderTransfer,
    CrossBorderTransferList,
    DsrRequest,
    DsrRequestList,
    DueRetention,
    DueRetentionList,
    ErasureExecution,
    Grievance,
    GrievanceList,
    IvrConsentArtifactResult,
    Nomination,
    NominationRevocation,
    Notice,
    NoticeList,
    OfflineCaptureSession,
    OfflineCaptureSyncResult,
    OfflineConsentLink,
    OrgSummary,
    PosConsentRequest,
    WithdrawalByTokenResult,
)
from ._options import RequestOptions

__all__ = ["AsyncMethods", "SyncMethods"]


class SyncMethods(ClientCore):
    """The operations of :class:`guard.GuardClient`, one method each."""

    def _send(self, call: PreparedCall) -> Any:
        """Send ``call``, with retries. GuardClient implements it."""
        raise NotImplementedError

    def _call(
        self,
        method_name: str,
        arguments: Dict[str, Any],
        request_options: Optional[RequestOptions],
        idempotency_key: Optional[str] = None,
    ) -> Any:
        return self._send(self._prepare(method_name, arguments, request_options, idempotency_key))

    # ----- public (no credential) -----------------------------------------------------------------

    def get_organization(self, slug: str, *, request_options: Optional[RequestOptions] = None) -> OrgSummary:
        """An organisation by its short name (slug)."""
        return self._call("getOrganization", {"slug": slug}, request_options)

    def get_notices(
        self,
        org_id: str,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> NoticeList:
        """The organisation's published notices, under ``notices``, a page at a time (``nextCursor``)."""
        return self._call("getNotices", {"org_id": org_id, "limit": limit, "cursor": cursor}, request_options)

    def iter_notices(
        self,
        org_id: str,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Iterator[Notice]:
        """Every item of :meth:`get_notices`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = self.get_notices(org_id, limit=limit, cursor=page_cursor, request_options=request_options)
            yield from page["notices"]
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

    def get_notice(self, notice_id: str, *, request_options: Optional[RequestOptions] = None) -> Notice:
        """One published notice."""
        return self._call("getNotice", {"notice_id": notice_id}, request_options)

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
        return self._call("getBannerConfig", {"org_id": org_id, "domain": domain, "app_id": app_id}, request_options)

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
        return self._call(
            "giveAnonymousConsent",
            {
                "organization_id": organization_id,
                "notice_id": notice_id,
                "purpose": purpose,
                "data_types": data_types,
                "anonymous_id": anonymous_id,
            },
            request_options,
            idempotency_key,
        )

    def withdraw_consent_by_token(
        self,
        withdrawal_token: str,
        *,
        request_options: Optional[RequestOptions] = None,
    ) -> WithdrawalByTokenResult:
        """Withdraw every consent an offline withdrawal token stands for (printed on a slip or read out
        after an offline, QR, POS or IVR consent; DPDP s.6(4)). No credential: the token is the
        proof. Idempotent: a repeat lists them under ``alreadyWithdrawn``."""
        return self._call("withdrawConsentByToken", {"withdrawal_token": withdrawal_token}, request_options)

    # ----- service API key ------------------------------------------------------------------------

    def broker_token(
        self,
        external_id: str,
        *,
        email: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> BrokeredToken:
        """Mint a short-lived principal access token for your user ``external_id`` and keep it for
        this client's principal calls. Hand ``accessToken`` to your app; broker again when it expires.
        Never retried: it takes no idempotency key, and the token is a secret.

        ``email`` (contract 2.10.0) stores the user's email address, by which ``record_consent`` and
        ``get_consent_status`` find them; omitted, the stored address is left as it is."""
        return self._call("brokerToken", {"external_id": external_id, "email": email}, request_options)

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
        return self._call(
            "recordConsent",
            {"email": email, "notice_id": notice_id, "purpose": purpose, "data_types": data_types},
            request_options,
            idempotency_key,
        )

    def get_consent(self, consent_id: str, *, request_options: Optional[RequestOptions] = None) -> ConsentRecord:
        """One consent record."""
        return self._call("getConsent", {"consent_id": consent_id}, request_options)

    def withdraw_consent(self, consent_id: str, *, request_options: Optional[RequestOptions] = None) -> ConsentRecord:
        """Withdraw a consent. Withdrawing a withdrawn one is ``409 CONFLICT``, so this is never retried."""
        return self._call("withdrawConsent", {"consent_id": consent_id}, request_options)

    def get_consent_status(
        self,
        *,
        email: Optional[str] = None,
        external_id: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> ConsentStatus:
        """Every consent of one principal, found by ``email`` or ``external_id`` (exactly one: the
        server answers ``400 VALIDATION_ERROR`` to neither or both)."""
        return self._call("getConsentStatus", {"email": email, "external_id": external_id}, request_options)

    def verify_consent(
        self,
        consent_id: str,
        *,
        request_options: Optional[RequestOptions] = None,
    ) -> ConsentGateVerdict:
        """Consent Gate: ask before processing that depends on a consent; ``deny`` means stop."""
        return self._call("verifyConsent", {"consent_id": consent_id}, request_options)

    def list_gate_decisions(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> ConsentGateDecisionList:
        """The gate's decision log, newest first (server default 50, at most 200), a page at a time."""
        return self._call("listGateDecisions", {"limit": limit, "cursor": cursor}, request_options)

    def iter_gate_decisions(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Iterator[ConsentGateDecision]:
        """Every item of :meth:`list_gate_decisions`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = self.list_gate_decisions(limit=limit, cursor=page_cursor, request_options=request_options)
            yield from page["decisions"]
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

    def list_gate_alerts(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> ConsentGateAlerts:
        """Consents denied repeatedly inside the rolling window (processing that ignores the gate),
        most recently denied first, a page at a time."""
        return self._call("listGateAlerts", {"limit": limit, "cursor": cursor}, request_options)

    def iter_gate_alerts(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Iterator[ConsentGateBypassAlert]:
        """Every item of :meth:`list_gate_alerts`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = self.list_gate_alerts(limit=limit, cursor=page_cursor, request_options=request_options)
            yield from page["alerts"]
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

    def list_due_retentions(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> DueRetentionList:
        """Scheduled erasures whose retention window has elapsed (DPDP s.8(7), r.8), under ``due``, a
        page at a time: the principal was told at least 48 hours before; your backend now erases."""
        return self._call("listDueRetentions", {"limit": limit, "cursor": cursor}, request_options)

    def iter_due_retentions(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Iterator[DueRetention]:
        """Every item of :meth:`list_due_retentions`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = self.list_due_retentions(limit=limit, cursor=page_cursor, request_options=request_options)
            yield from page["due"]
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

    def list_breaches(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> BreachList:
        """The breach register (s.8(6)), drills excluded, under ``breaches``, a page at a time."""
        return self._call("listBreaches", {"limit": limit, "cursor": cursor}, request_options)

    def iter_breaches(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Iterator[Breach]:
        """Every item of :meth:`list_breaches`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = self.list_breaches(limit=limit, cursor=page_cursor, request_options=request_options)
            yield from page["breaches"]
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

    def list_cross_border_transfers(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> CrossBorderTransferList:
        """Active processing activities declared as crossing borders (s.16), archived ones excluded,
        under ``transfers``, a page at a time."""
        return self._call("listCrossBorderTransfers", {"limit": limit, "cursor": cursor}, request_options)

    def iter_cross_border_transfers(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Iterator[CrossBorderTransfer]:
        """Every item of :meth:`list_cross_border_transfers`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = self.list_cross_border_transfers(limit=limit, cursor=page_cursor, request_options=request_options)
            yield from page["transfers"]
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

    def confirm_erasure_executed(
        self,
        scheduled_erasure_id: str,
        *,
        executed_at: Optional[int] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> ErasureExecution:
        """Confirm that your backend erased the data of a due retention (from
        :meth:`list_due_retentions`): recorded on the audit chain and raised as the
        ``retention.erasure_executed`` webhook event. ``executed_at`` (epoch ms) defaults to the
        server's now. Safe to repeat: a repeat answers the first confirmation. A cancelled, held or
        not-yet-due erasure is ``409 CONFLICT``; an unknown id ``404``."""
        return self._call(
            "confirmErasureExecuted",
            {"scheduled_erasure_id": scheduled_erasure_id, "executed_at": executed_at},
            request_options,
        )

    def create_offline_consent_link(
        self,
        *,
        notice_id: str,
        purpose: str,
        data_types: Sequence[str],
        label: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> OfflineConsentLink:
        """Mint a QR consent link for a published notice; render ``/offline-consent/{token}`` on
        Guard's origin as a QR code. ``label`` (where the code is deployed) is shown to staff only.
        A create call: see ``idempotency_key`` on :meth:`create_dsr_request`."""
        return self._call(
            "createOfflineConsentLink",
            {"notice_id": notice_id, "purpose": purpose, "data_types": data_types, "label": label},
            request_options,
            idempotency_key,
        )

    def sync_offline_captures(
        self,
        sessions: Sequence[OfflineCaptureSession],
        *,
        request_options: Optional[RequestOptions] = None,
    ) -> OfflineCaptureSyncResult:
        """Forward 1-200 capture sessions exactly as the enrolled devices built and signed them (for a
        server fronting a fleet). Partial success is normal: read each result's ``status``
        (``verified``, ``quarantined`` or ``rejected``, with a ``reason``). Safe to repeat."""
        return self._call("syncOfflineCaptures", {"sessions": sessions}, request_options)

    def create_pos_consent_request(
        self,
        *,
        notice_id: str,
        purpose: str,
        data_types: Sequence[str],
        phone: str,
        idempotency_key: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> PosConsentRequest:
        """Start a point-of-sale consent request for a phone number keyed in at a till. The answer is
        not a consent: none exists until the customer confirms at ``/consent/{token}``. A create call."""
        return self._call(
            "createPosConsentRequest",
            {"notice_id": notice_id, "purpose": purpose, "data_types": data_types, "phone": phone},
            request_options,
            idempotency_key,
        )

    def record_ivr_consent_artifact(
        self,
        *,
        notice_id: str,
        partner_call_id: str,
        audio_recording_uri: str,
        transcript: Optional[str] = None,
        locale: str,
        dtmf_sequence: str,
        caller_number_hash: str,
        captured_at: int,
        partner_signature: str,
        purpose: str,
        data_types: Sequence[str],
        idempotency_key: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> IvrConsentArtifactResult:
        """Store an IVR consent artefact from a telephony partner: a ``dtmf_sequence`` starting with
        ``1`` records a consent, anything else a refusal kept as evidence. A create call;
        ``partner_call_id`` also makes a resubmission return the original artefact."""
        return self._call(
            "recordIvrConsentArtifact",
            {
                "notice_id": notice_id,
                "partner_call_id": partner_call_id,
                "audio_recording_uri": audio_recording_uri,
                "transcript": transcript,
                "locale": locale,
                "dtmf_sequence": dtmf_sequence,
                "caller_number_hash": caller_number_hash,
                "captured_at": captured_at,
                "partner_signature": partner_signature,
                "purpose": purpose,
                "data_types": data_types,
            },
            request_options,
            idempotency_key,
        )

    # ----- principal access token -----------------------------------------------------------------

    def link_anonymous_consent(
        self,
        anonymous_id: str,
        *,
        request_options: Optional[RequestOptions] = None,
    ) -> AnonymousConsentLink:
        """Move a guest's anonymous consents to the signed-in principal. Idempotent."""
        return self._call("linkAnonymousConsent", {"anonymous_id": anonymous_id}, request_options)

    def list_dsr_requests(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> DsrRequestList:
        """The principal's own data-subject requests, newest first, under ``requests``, a page at a time."""
        return self._call("listDsrRequests", {"limit": limit, "cursor": cursor}, request_options)

    def iter_dsr_requests(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Iterator[DsrRequest]:
        """Every item of :meth:`list_dsr_requests`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = self.list_dsr_requests(limit=limit, cursor=page_cursor, request_options=request_options)
            yield from page["requests"]
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

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
        return self._call(
            "createDsrRequest",
            {"organization_id": organization_id, "type": type, "details": details},
            request_options,
            idempotency_key,
        )

    def list_grievances(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> GrievanceList:
        """The principal's own grievances, newest first, under ``grievances``, a page at a time."""
        return self._call("listGrievances", {"limit": limit, "cursor": cursor}, request_options)

    def iter_grievances(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Iterator[Grievance]:
        """Every item of :meth:`list_grievances`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = self.list_grievances(limit=limit, cursor=page_cursor, request_options=request_options)
            yield from page["grievances"]
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

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
        return self._call(
            "createGrievance",
            {"organization_id": organization_id, "subject": subject, "description": description},
            request_options,
            idempotency_key,
        )

    def get_nomination(self, *, request_options: Optional[RequestOptions] = None) -> Optional[Nomination]:
        """The principal's active nomination, or ``None``."""
        return self._call("getNomination", {}, request_options)

    def upsert_nomination(
        self,
        *,
        nominee_name: str,
        nominee_contact: str,
        request_options: Optional[RequestOptions] = None,
    ) -> Nomination:
        """Set or replace the principal's nomination (the same record is updated, never a second one)."""
        return self._call(
            "upsertNomination",
            {"nominee_name": nominee_name, "nominee_contact": nominee_contact},
            request_options,
        )

    def revoke_nomination(self, *, request_options: Optional[RequestOptions] = None) -> NominationRevocation:
        """Revoke the principal's nomination; ``revoked`` is false when none was active."""
        return self._call("revokeNomination", {}, request_options)


class AsyncMethods(ClientCore):
    """The operations of :class:`guard.AsyncGuardClient`, one method each."""

    async def _send(self, call: PreparedCall) -> Any:
        """Send ``call``, with retries. AsyncGuardClient implements it."""
        raise NotImplementedError

    async def _call(
        self,
        method_name: str,
        arguments: Dict[str, Any],
        request_options: Optional[RequestOptions],
        idempotency_key: Optional[str] = None,
    ) -> Any:
        return await self._send(self._prepare(method_name, arguments, request_options, idempotency_key))

    # ----- public (no credential) -----------------------------------------------------------------

    async def get_organization(self, slug: str, *, request_options: Optional[RequestOptions] = None) -> OrgSummary:
        """An organisation by its short name (slug)."""
        return await self._call("getOrganization", {"slug": slug}, request_options)

    async def get_notices(
        self,
        org_id: str,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> NoticeList:
        """The organisation's published notices, under ``notices``, a page at a time (``nextCursor``)."""
        return await self._call("getNotices", {"org_id": org_id, "limit": limit, "cursor": cursor}, request_options)

    async def iter_notices(
        self,
        org_id: str,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> AsyncIterator[Notice]:
        """Every item of :meth:`get_notices`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = await self.get_notices(org_id, limit=limit, cursor=page_cursor, request_options=request_options)
            for item in page["notices"]:
                yield item
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

    async def get_notice(self, notice_id: str, *, request_options: Optional[RequestOptions] = None) -> Notice:
        """One published notice."""
        return await self._call("getNotice", {"notice_id": notice_id}, request_options)

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
        return await self._call(
            "getBannerConfig",
            {"org_id": org_id, "domain": domain, "app_id": app_id},
            request_options,
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
        return await self._call(
            "giveAnonymousConsent",
            {
                "organization_id": organization_id,
                "notice_id": notice_id,
                "purpose": purpose,
                "data_types": data_types,
                "anonymous_id": anonymous_id,
            },
            request_options,
            idempotency_key,
        )

    async def withdraw_consent_by_token(
        self,
        withdrawal_token: str,
        *,
        request_options: Optional[RequestOptions] = None,
    ) -> WithdrawalByTokenResult:
        """Withdraw every consent an offline withdrawal token stands for (printed on a slip or read out
        after an offline, QR, POS or IVR consent; DPDP s.6(4)). No credential: the token is the
        proof. Idempotent: a repeat lists them under ``alreadyWithdrawn``."""
        return await self._call("withdrawConsentByToken", {"withdrawal_token": withdrawal_token}, request_options)

    # ----- service API key ------------------------------------------------------------------------

    async def broker_token(
        self,
        external_id: str,
        *,
        email: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> BrokeredToken:
        """Mint a short-lived principal access token for your user ``external_id`` and keep it for
        this client's principal calls. Hand ``accessToken`` to your app; broker again when it expires.
        Never retried: it takes no idempotency key, and the token is a secret.

        ``email`` (contract 2.10.0) stores the user's email address, by which ``record_consent`` and
        ``get_consent_status`` find them; omitted, the stored address is left as it is."""
        return await self._call("brokerToken", {"external_id": external_id, "email": email}, request_options)

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
        return await self._call(
            "recordConsent",
            {"email": email, "notice_id": notice_id, "purpose": purpose, "data_types": data_types},
            request_options,
            idempotency_key,
        )

    async def get_consent(self, consent_id: str, *, request_options: Optional[RequestOptions] = None) -> ConsentRecord:
        """One consent record."""
        return await self._call("getConsent", {"consent_id": consent_id}, request_options)

    async def withdraw_consent(
        self,
        consent_id: str,
        *,
        request_options: Optional[RequestOptions] = None,
    ) -> ConsentRecord:
        """Withdraw a consent. Withdrawing a withdrawn one is ``409 CONFLICT``, so this is never retried."""
        return await self._call("withdrawConsent", {"consent_id": consent_id}, request_options)

    async def get_consent_status(
        self,
        *,
        email: Optional[str] = None,
        external_id: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> ConsentStatus:
        """Every consent of one principal, found by ``email`` or ``external_id`` (exactly one: the
        server answers ``400 VALIDATION_ERROR`` to neither or both)."""
        return await self._call("getConsentStatus", {"email": email, "external_id": external_id}, request_options)

    async def verify_consent(
        self,
        consent_id: str,
        *,
        request_options: Optional[RequestOptions] = None,
    ) -> ConsentGateVerdict:
        """Consent Gate: ask before processing that depends on a consent; ``deny`` means stop."""
        return await self._call("verifyConsent", {"consent_id": consent_id}, request_options)

    async def list_gate_decisions(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> ConsentGateDecisionList:
        """The gate's decision log, newest first (server default 50, at most 200), a page at a time."""
        return await self._call("listGateDecisions", {"limit": limit, "cursor": cursor}, request_options)

    async def iter_gate_decisions(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> AsyncIterator[ConsentGateDecision]:
        """Every item of :meth:`list_gate_decisions`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = await self.list_gate_decisions(limit=limit, cursor=page_cursor, request_options=request_options)
            for item in page["decisions"]:
                yield item
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

    async def list_gate_alerts(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> ConsentGateAlerts:
        """Consents denied repeatedly inside the rolling window (processing that ignores the gate),
        most recently denied first, a page at a time."""
        return await self._call("listGateAlerts", {"limit": limit, "cursor": cursor}, request_options)

    async def iter_gate_alerts(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> AsyncIterator[ConsentGateBypassAlert]:
        """Every item of :meth:`list_gate_alerts`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = await self.list_gate_alerts(limit=limit, cursor=page_cursor, request_options=request_options)
            for item in page["alerts"]:
                yield item
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

    async def list_due_retentions(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> DueRetentionList:
        """Scheduled erasures whose retention window has elapsed (DPDP s.8(7), r.8), under ``due``, a
        page at a time: the principal was told at least 48 hours before; your backend now erases."""
        return await self._call("listDueRetentions", {"limit": limit, "cursor": cursor}, request_options)

    async def iter_due_retentions(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> AsyncIterator[DueRetention]:
        """Every item of :meth:`list_due_retentions`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = await self.list_due_retentions(limit=limit, cursor=page_cursor, request_options=request_options)
            for item in page["due"]:
                yield item
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

    async def list_breaches(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> BreachList:
        """The breach register (s.8(6)), drills excluded, under ``breaches``, a page at a time."""
        return await self._call("listBreaches", {"limit": limit, "cursor": cursor}, request_options)

    async def iter_breaches(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> AsyncIterator[Breach]:
        """Every item of :meth:`list_breaches`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = await self.list_breaches(limit=limit, cursor=page_cursor, request_options=request_options)
            for item in page["breaches"]:
                yield item
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

    async def list_cross_border_transfers(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> CrossBorderTransferList:
        """Active processing activities declared as crossing borders (s.16), archived ones excluded,
        under ``transfers``, a page at a time."""
        return await self._call("listCrossBorderTransfers", {"limit": limit, "cursor": cursor}, request_options)

    async def iter_cross_border_transfers(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> AsyncIterator[CrossBorderTransfer]:
        """Every item of :meth:`list_cross_border_transfers`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = await self.list_cross_border_transfers(
                limit=limit,
                cursor=page_cursor,
                request_options=request_options,
            )
            for item in page["transfers"]:
                yield item
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

    async def confirm_erasure_executed(
        self,
        scheduled_erasure_id: str,
        *,
        executed_at: Optional[int] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> ErasureExecution:
        """Confirm that your backend erased the data of a due retention (from
        :meth:`list_due_retentions`): recorded on the audit chain and raised as the
        ``retention.erasure_executed`` webhook event. ``executed_at`` (epoch ms) defaults to the
        server's now. Safe to repeat: a repeat answers the first confirmation. A cancelled, held or
        not-yet-due erasure is ``409 CONFLICT``; an unknown id ``404``."""
        return await self._call(
            "confirmErasureExecuted",
            {"scheduled_erasure_id": scheduled_erasure_id, "executed_at": executed_at},
            request_options,
        )

    async def create_offline_consent_link(
        self,
        *,
        notice_id: str,
        purpose: str,
        data_types: Sequence[str],
        label: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> OfflineConsentLink:
        """Mint a QR consent link for a published notice; render ``/offline-consent/{token}`` on
        Guard's origin as a QR code. ``label`` (where the code is deployed) is shown to staff only.
        A create call: see ``idempotency_key`` on :meth:`create_dsr_request`."""
        return await self._call(
            "createOfflineConsentLink",
            {"notice_id": notice_id, "purpose": purpose, "data_types": data_types, "label": label},
            request_options,
            idempotency_key,
        )

    async def sync_offline_captures(
        self,
        sessions: Sequence[OfflineCaptureSession],
        *,
        request_options: Optional[RequestOptions] = None,
    ) -> OfflineCaptureSyncResult:
        """Forward 1-200 capture sessions exactly as the enrolled devices built and signed them (for a
        server fronting a fleet). Partial success is normal: read each result's ``status``
        (``verified``, ``quarantined`` or ``rejected``, with a ``reason``). Safe to repeat."""
        return await self._call("syncOfflineCaptures", {"sessions": sessions}, request_options)

    async def create_pos_consent_request(
        self,
        *,
        notice_id: str,
        purpose: str,
        data_types: Sequence[str],
        phone: str,
        idempotency_key: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> PosConsentRequest:
        """Start a point-of-sale consent request for a phone number keyed in at a till. The answer is
        not a consent: none exists until the customer confirms at ``/consent/{token}``. A create call."""
        return await self._call(
            "createPosConsentRequest",
            {"notice_id": notice_id, "purpose": purpose, "data_types": data_types, "phone": phone},
            request_options,
            idempotency_key,
        )

    async def record_ivr_consent_artifact(
        self,
        *,
        notice_id: str,
        partner_call_id: str,
        audio_recording_uri: str,
        transcript: Optional[str] = None,
        locale: str,
        dtmf_sequence: str,
        caller_number_hash: str,
        captured_at: int,
        partner_signature: str,
        purpose: str,
        data_types: Sequence[str],
        idempotency_key: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> IvrConsentArtifactResult:
        """Store an IVR consent artefact from a telephony partner: a ``dtmf_sequence`` starting with
        ``1`` records a consent, anything else a refusal kept as evidence. A create call;
        ``partner_call_id`` also makes a resubmission return the original artefact."""
        return await self._call(
            "recordIvrConsentArtifact",
            {
                "notice_id": notice_id,
                "partner_call_id": partner_call_id,
                "audio_recording_uri": audio_recording_uri,
                "transcript": transcript,
                "locale": locale,
                "dtmf_sequence": dtmf_sequence,
                "caller_number_hash": caller_number_hash,
                "captured_at": captured_at,
                "partner_signature": partner_signature,
                "purpose": purpose,
                "data_types": data_types,
            },
            request_options,
            idempotency_key,
        )

    # ----- principal access token -----------------------------------------------------------------

    async def link_anonymous_consent(
        self,
        anonymous_id: str,
        *,
        request_options: Optional[RequestOptions] = None,
    ) -> AnonymousConsentLink:
        """Move a guest's anonymous consents to the signed-in principal. Idempotent."""
        return await self._call("linkAnonymousConsent", {"anonymous_id": anonymous_id}, request_options)

    async def list_dsr_requests(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> DsrRequestList:
        """The principal's own data-subject requests, newest first, under ``requests``, a page at a time."""
        return await self._call("listDsrRequests", {"limit": limit, "cursor": cursor}, request_options)

    async def iter_dsr_requests(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> AsyncIterator[DsrRequest]:
        """Every item of :meth:`list_dsr_requests`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = await self.list_dsr_requests(limit=limit, cursor=page_cursor, request_options=request_options)
            for item in page["requests"]:
                yield item
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

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
        return await self._call(
            "createDsrRequest",
            {"organization_id": organization_id, "type": type, "details": details},
            request_options,
            idempotency_key,
        )

    async def list_grievances(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> GrievanceList:
        """The principal's own grievances, newest first, under ``grievances``, a page at a time."""
        return await self._call("listGrievances", {"limit": limit, "cursor": cursor}, request_options)

    async def iter_grievances(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> AsyncIterator[Grievance]:
        """Every item of :meth:`list_grievances`, page after page (``limit`` is the page size,
        ``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."""
        page_cursor = cursor
        while True:
            page = await self.list_grievances(limit=limit, cursor=page_cursor, request_options=request_options)
            for item in page["grievances"]:
                yield item
            page_cursor = page.get("nextCursor")
            if page_cursor is None:
                return

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
        return await self._call(
            "createGrievance",
            {"organization_id": organization_id, "subject": subject, "description": description},
            request_options,
            idempotency_key,
        )

    async def get_nomination(self, *, request_options: Optional[RequestOptions] = None) -> Optional[Nomination]:
        """The principal's active nomination, or ``None``."""
        return await self._call("getNomination", {}, request_options)

    async def upsert_nomination(
        self,
        *,
        nominee_name: str,
        nominee_contact: str,
        request_options: Optional[RequestOptions] = None,
    ) -> Nomination:
        """Set or replace the principal's nomination (the same record is updated, never a second one)."""
        return await self._call(
            "upsertNomination",
            {"nominee_name": nominee_name, "nominee_contact": nominee_contact},
            request_options,
        )

    async def revoke_nomination(self, *, request_options: Optional[RequestOptions] = None) -> NominationRevocation:
        """Revoke the principal's nomination; ``revoked`` is false when none was active."""
        return await self._call("revokeNomination", {}, request_options)
