"""The offline and assisted capture calls (contract 2.14.0, tag ``offline``) on a scripted server, on
both clients: routes and bodies, which calls mint an Idempotency-Key (reused on retries), that a
capture sync is retried without one, error mapping, and the ``dpdpcca/2`` helpers against every
case of contract/vectors/capture-artifact.json."""

from __future__ import annotations

import asyncio
import base64
import re
from typing import Any, Dict

import httpx
import pytest
from conftest import CONTRACT, Recorder, ScriptedServer, json_response, load_json, make_async_client, make_client

import guard

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
NOTICE = "ntc_12345678"
LINK: Dict[str, Any] = {"notice_id": NOTICE, "purpose": "Marketing", "data_types": ["email"], "label": "Counter 3"}
POS: Dict[str, Any] = {"notice_id": NOTICE, "purpose": "Marketing", "data_types": ["phone"], "phone": "+91 98765 43210"}
IVR: Dict[str, Any] = {
    "notice_id": NOTICE,
    "partner_call_id": "call-1",
    "audio_recording_uri": "s3://recordings/call-1.wav",
    "locale": "en",
    "dtmf_sequence": "1",
    "caller_number_hash": "9f86d081884c7d65",
    "captured_at": 1_700_000_000_000,
    "partner_signature": "sig",
    "purpose": "Marketing",
    "data_types": ["phone"],
}
SESSION: Dict[str, Any] = {
    "clientSessionId": "6f1c2f9e-8b1a-4c3d-9e2f-1a2b3c4d5e6f",
    "deviceId": "dev_12345678",
    "noticeId": NOTICE,
    "noticeVersion": 1,
    "noticeLocale": "en",
    "channel": "agent_app",
    "capturedAtClient": 1_700_000_000_000,
    "deviceSignature": base64.b64encode(bytes(64)).decode("ascii"),
    "dataTypes": ["email"],
    "purposeGrants": [
        {"purposeKey": "Marketing", "purposeLabel": "Marketing", "category": "non_essential", "status": "opt_in"}
    ],
}
RESULTS = {"results": [{"clientSessionId": SESSION["clientSessionId"], "status": "verified", "consentId": "cns_1"}]}


def unavailable() -> httpx.Response:
    return json_response(503, {"code": "UNAVAILABLE", "error": "down"})


def test_each_offline_call_posts_its_body_to_its_route_with_the_service_key() -> None:
    server = ScriptedServer(
        json_response(201, {"linkId": "olk_1", "token": "t1"}),
        json_response(200, RESULTS),
        json_response(201, {"requestId": "pos_1", "token": "t2", "expiresAt": 1}),
        json_response(201, {"artifactId": "ivr_1", "accepted": True, "consentId": "cns_2"}),
    )
    with make_client(server, api_key="gk_live_secret") as client:
        assert client.create_offline_consent_link(**LINK) == {"linkId": "olk_1", "token": "t1"}
        assert client.sync_offline_captures([SESSION])["results"][0]["status"] == "verified"
        assert client.create_pos_consent_request(**POS)["token"] == "t2"
        assert client.record_ivr_consent_artifact(**IVR)["consentId"] == "cns_2"
    assert [(r.method, r.url.path, r.headers["authorization"]) for r in server.requests] == [
        ("POST", "/api/v1/offline-consent/links", "Bearer gk_live_secret"),
        ("POST", "/api/v1/offline/captures", "Bearer gk_live_secret"),
        ("POST", "/api/v1/offline/pos", "Bearer gk_live_secret"),
        ("POST", "/api/v1/offline/ivr", "Bearer gk_live_secret"),
    ]
    assert server.body(0) == {"noticeId": NOTICE, "purpose": "Marketing", "dataTypes": ["email"], "label": "Counter 3"}
    assert server.body(1) == {"sessions": [SESSION]}, "sessions pass through exactly as the devices signed them"
    assert server.body(2) == {
        "noticeId": NOTICE,
        "purpose": "Marketing",
        "dataTypes": ["phone"],
        "phone": "+91 98765 43210",
    }
    assert server.body(3) == {
        "noticeId": NOTICE,
        "partnerCallId": "call-1",
        "audioRecordingUri": "s3://recordings/call-1.wav",
        "locale": "en",
        "dtmfSequence": "1",
        "callerNumberHash": "9f86d081884c7d65",
        "capturedAt": 1_700_000_000_000,
        "partnerSignature": "sig",
        "purpose": "Marketing",
        "dataTypes": ["phone"],
    }, "the optional transcript is left out, never sent as null"


@pytest.mark.parametrize(
    "name", ["create_offline_consent_link", "create_pos_consent_request", "record_ivr_consent_artifact"]
)
def test_links_pos_and_ivr_mint_one_key_per_call_reused_on_retries(name: str, sleeper: Recorder) -> None:
    arguments = {
        "create_offline_consent_link": LINK,
        "create_pos_consent_request": POS,
        "record_ivr_consent_artifact": IVR,
    }[name]
    server = ScriptedServer(unavailable(), httpx.ConnectError("reset"), json_response(201, {}), json_response(201, {}))
    with make_client(server, sleeper, api_key="gk_live_secret") as client:
        getattr(client, name)(**arguments)
        getattr(client, name)(**arguments, idempotency_key="caller-key")
    keys = server.header("Idempotency-Key")
    assert UUID4.match(keys[0] or "")
    assert keys[:3] == [keys[0]] * 3
    assert keys[3] == "caller-key"
    assert sleeper.delays == [0.5, 1.0]


def test_a_capture_sync_carries_no_key_and_is_retried(sleeper: Recorder) -> None:
    server = ScriptedServer(unavailable(), json_response(200, RESULTS))
    with make_client(server, sleeper, api_key="gk_live_secret") as client:
        client.sync_offline_captures((SESSION,))
    assert server.header("Idempotency-Key") == [None, None]
    assert server.requests[0].content == server.requests[1].content


def test_sessions_must_be_a_list_of_dicts() -> None:
    server = ScriptedServer()
    with make_client(server, api_key="gk_live_secret") as client:
        for bad in (SESSION, "sessions", [SESSION, "x"]):
            with pytest.raises(TypeError):
                client.sync_offline_captures(bad)  # type: ignore[arg-type]
    assert server.requests == []


def test_a_rate_limit_beyond_the_cap_surfaces_as_rate_limited_with_its_header(sleeper: Recorder) -> None:
    server = ScriptedServer(
        json_response(429, {"code": "RATE_LIMITED", "error": "slow down"}, {"retry-after": "120"}),
    )
    with make_client(server, sleeper, api_key="gk_live_secret") as client, pytest.raises(guard.GuardApiError) as caught:
        client.create_pos_consent_request(**POS)
    assert (caught.value.status, caught.value.code) == (429, "RATE_LIMITED")
    assert caught.value.headers["retry-after"] == "120"
    assert len(server.requests) == 1 and sleeper.delays == []


def test_a_missing_api_key_fails_before_any_request() -> None:
    server = ScriptedServer()
    with make_client(server) as client, pytest.raises(guard.GuardMissingCredentialError):
        client.sync_offline_captures([SESSION])
    assert server.requests == []


def test_the_async_client_has_the_same_calls() -> None:
    async def run() -> Any:
        server = ScriptedServer(
            unavailable(), json_response(200, RESULTS), json_response(201, {"linkId": "l", "token": "t"})
        )
        async with make_async_client(server, api_key="gk_live_secret") as client:
            synced = await client.sync_offline_captures([SESSION])
            await client.create_offline_consent_link(**LINK)
        return server, synced

    server, synced = asyncio.run(run())
    assert synced == RESULTS
    assert [r.url.path for r in server.requests] == ["/api/v1/offline/captures"] * 2 + ["/api/v1/offline-consent/links"]
    assert UUID4.match(server.header("Idempotency-Key")[2] or "")


# ----- dpdpcca/2 ----------------------------------------------------------------------------------

VECTORS = load_json(CONTRACT / "vectors" / "capture-artifact.json")


def test_the_vector_file_has_the_cases_it_says() -> None:
    assert len(VECTORS["cases"]) == VECTORS["numberOfCases"]
    assert guard.CAPTURE_ARTIFACT_FORMAT == "dpdpcca/2"


@pytest.mark.parametrize("case", VECTORS["cases"], ids=[c["id"] for c in VECTORS["cases"]])
def test_capture_artifact_vector(case: Dict[str, Any]) -> None:
    session = case["input"]["session"]
    if "error" in case:
        with pytest.raises(guard.CaptureArtifactError) as caught:
            guard.canonicalize_capture_artifact(session)
        assert (caught.value.code, caught.value.field) == (case["error"]["code"], case["error"]["field"])
        return
    canonical = guard.canonicalize_capture_artifact(session)
    assert canonical == case["canonical"]
    assert canonical.encode("utf-8").hex() == case["canonicalUtf8Hex"]
    key = VECTORS["testKeys"][case["input"]["publicKey"]]["publicKeySpkiBase64"]
    assert guard.verify_capture_signature(key, canonical, case["input"]["signature"]) is (case["result"] == "valid")


def test_an_integral_float_reads_as_the_integer_and_booleans_are_refused() -> None:
    basic = next(c for c in VECTORS["cases"] if c["id"] == "basic")
    session = {**basic["input"]["session"], "noticeVersion": 3.0}
    assert guard.canonicalize_capture_artifact(session) == basic["canonical"]
    with pytest.raises(guard.CaptureArtifactError) as caught:
        guard.canonicalize_capture_artifact({**session, "noticeVersion": True})
    assert caught.value.field == "noticeVersion"


def test_withdraw_by_token_is_public_and_retried(sleeper: Recorder) -> None:
    server = ScriptedServer(unavailable(), json_response(200, {"withdrawn": [], "alreadyWithdrawn": ["cns_1"]}))
    with make_client(server, sleeper, api_key="gk_live_secret") as client:
        result = client.withdraw_consent_by_token("wdt_0123456789abcdef0123456789abcdef")
    assert result["alreadyWithdrawn"] == ["cns_1"]
    assert [(r.method, r.url.path) for r in server.requests] == [("POST", "/api/v1/offline/withdrawals")] * 2
    assert server.header("Authorization") == [None, None], "a public route: the API key is not sent"
    assert server.header("Idempotency-Key") == [None, None]
    assert server.body(1) == {"withdrawalToken": "wdt_0123456789abcdef0123456789abcdef"}
