"""GuardClient's transport on a scripted fake server: headers, retries, Retry-After, idempotency keys,
credentials, per-request options. No test sleeps: the sleeper records the delays it was asked for."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest
from conftest import BASE_URL, Recorder, ScriptedServer, json_response, make_client

import guard

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
ORG = "org_9f2c4a7b1d3e"
DSR = {"requestId": "dsr_12345678", "type": "erasure", "status": "pending"}


def unavailable(retry_after: Any = None) -> httpx.Response:
    headers = {"retry-after": retry_after} if retry_after is not None else None
    return json_response(503, {"code": "UNAVAILABLE", "error": "down"}, headers)


# ----- headers ---------------------------------------------------------------------------------


def test_every_attempt_carries_the_family_headers_and_its_number(sleeper: Recorder) -> None:
    server = ScriptedServer(unavailable(), unavailable(), json_response(200, {"orgId": ORG}))
    with make_client(server, sleeper) as client:
        assert client.get_organization("acme") == {"orgId": ORG}
    assert server.header("X-Guard-Retry-Count") == ["0", "1", "2"]
    assert set(server.header("X-Guard-SDK")) == {f"guard-sdk/{guard.__version__}"}
    assert set(server.header("Accept")) == {"application/json"}
    assert server.header("Content-Type") == [None, None, None], "no body, no Content-Type"
    assert server.header("Authorization") == [None, None, None], "public call, no credential"
    assert sleeper.delays == [0.5, 1.0]


def test_a_write_sends_json_with_content_type_and_the_service_key() -> None:
    server = ScriptedServer(json_response(200, {"decision": "allow"}))
    with make_client(server, api_key="gk_live_secret") as client:
        client.verify_consent("cns_0000000000")
    request = server.requests[0]
    assert request.method == "POST"
    assert request.url.path == "/api/v1/consent/verify"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["authorization"] == "Bearer gk_live_secret"
    assert server.body() == {"consentId": "cns_0000000000"}


def test_path_segments_are_percent_encoded_as_encodeURIComponent_does() -> None:
    server = ScriptedServer()
    with make_client(server) as client:
        client.get_organization("a/b c?d#e%f!*'()~")
    assert server.requests[0].url.raw_path == b"/api/v1/org/a%2Fb%20c%3Fd%23e%25f!*'()~"


def test_absent_and_empty_query_parameters_are_not_sent() -> None:
    server = ScriptedServer()
    with make_client(server) as client:
        client.get_banner_config(ORG)
        client.get_banner_config(ORG, domain="", app_id="com.example.app")
        client.get_banner_config(ORG, domain="shop.example")
    assert [str(r.url) for r in server.requests] == [
        f"{BASE_URL}/api/v1/org/{ORG}/banner-config",
        f"{BASE_URL}/api/v1/org/{ORG}/banner-config?appId=com.example.app",
        f"{BASE_URL}/api/v1/org/{ORG}/banner-config?domain=shop.example",
    ]


def test_a_trailing_slash_in_base_url_is_ignored_and_a_path_prefix_kept() -> None:
    server = ScriptedServer()
    client = guard.GuardClient(
        "https://host.test/guard/", http_client=httpx.Client(transport=httpx.MockTransport(server))
    )
    client.get_notice("ntc_12345678")
    assert str(server.requests[0].url) == "https://host.test/guard/api/v1/notices/ntc_12345678"


def test_caller_headers_merge_over_the_sdks_except_the_owned_ones() -> None:
    server = ScriptedServer()
    with make_client(server, api_key="gk_live_secret", default_headers={"X-Trace": "client", "X-App": "a"}) as client:
        client.get_consent(
            "cns_0000000000",
            request_options={
                "headers": {
                    "x-trace": "call",
                    "Authorization": "Bearer stolen",
                    "X-Guard-SDK": "evil/0.0.0",
                    "X-Guard-Retry-Count": "99",
                    "Content-Type": "text/plain",
                }
            },
        )
    headers = server.requests[0].headers
    assert headers["x-trace"] == "call"
    assert headers["x-app"] == "a"
    assert headers["authorization"] == "Bearer gk_live_secret"
    assert headers["x-guard-sdk"] == f"guard-sdk/{guard.__version__}"
    assert headers["x-guard-retry-count"] == "0"
    assert "content-type" not in headers, "a call without a body sends no Content-Type"


# ----- retries ---------------------------------------------------------------------------------


def test_retry_after_is_waited_exactly_and_an_http_date_uses_the_injected_clock(sleeper: Recorder) -> None:
    server = ScriptedServer(
        unavailable("2"),
        json_response(
            429, {"code": "RATE_LIMITED", "error": "slow down"}, {"retry-after": "Tue, 14 Nov 2023 22:13:50 GMT"}
        ),
        json_response(200, {}),
    )
    with make_client(server, sleeper, max_retries=5) as client:
        client.get_notice("ntc_12345678")
    assert sleeper.delays == [2.0, 30.0]  # the date is NOW + 30 s


def test_retry_after_beyond_the_cap_surfaces_the_error_at_once(sleeper: Recorder) -> None:
    server = ScriptedServer(json_response(429, {"code": "RATE_LIMITED", "error": "later"}, {"retry-after": "120"}))
    with make_client(server, sleeper) as client, pytest.raises(guard.GuardApiError) as caught:
        client.get_notice("ntc_12345678")
    assert caught.value.status == 429 and caught.value.code == "RATE_LIMITED"
    assert len(server.requests) == 1 and sleeper.delays == []


def test_jitter_comes_from_the_injected_random_source(sleeper: Recorder) -> None:
    server = ScriptedServer(unavailable(), unavailable(), json_response(200, {}))
    with make_client(server, sleeper, random=lambda: 0.8) as client:
        client.get_notice("ntc_12345678")
    assert sleeper.delays == [pytest.approx(0.5 * 0.8), pytest.approx(1.0 * 0.8)]


def test_retries_stop_at_max_retries_and_the_last_error_surfaces(sleeper: Recorder) -> None:
    server = ScriptedServer(unavailable(), unavailable(), json_response(500, {"code": "INTERNAL_ERROR", "error": "x"}))
    with make_client(server, sleeper) as client, pytest.raises(guard.GuardApiError) as caught:
        client.get_notice("ntc_12345678")
    assert caught.value.status == 500 and caught.value.code == "INTERNAL_ERROR"
    assert len(server.requests) == 3


def test_max_retries_per_client_and_per_request(sleeper: Recorder) -> None:
    server = ScriptedServer(unavailable(), unavailable(), json_response(200, {}))
    with make_client(server, sleeper, max_retries=0) as client:
        with pytest.raises(guard.GuardApiError):
            client.get_notice("ntc_12345678")
        assert len(server.requests) == 1
        client.get_notice("ntc_12345678", request_options={"max_retries": 1})
    assert len(server.requests) == 3


@pytest.mark.parametrize("code", [400, 401, 403, 404, 409, 422])
def test_4xx_is_never_retried(code: int, sleeper: Recorder) -> None:
    server = ScriptedServer(json_response(code, {"code": "X", "error": "no"}))
    with make_client(server, sleeper) as client, pytest.raises(guard.GuardApiError):
        client.get_notice("ntc_12345678")
    assert len(server.requests) == 1


def test_connection_failures_are_retried_then_surface_as_connection_errors(sleeper: Recorder) -> None:
    refused = httpx.ConnectError("connection refused")
    server = ScriptedServer(refused, refused, refused)
    with make_client(server, sleeper) as client, pytest.raises(guard.GuardConnectionError) as caught:
        client.get_notice("ntc_12345678")
    assert len(server.requests) == 3 and sleeper.delays == [0.5, 1.0]
    assert caught.value.cause is refused and caught.value.__cause__ is refused
    assert not isinstance(caught.value, guard.GuardTimeoutError)


def test_timeouts_are_their_own_error_type_and_are_retried_when_safe(sleeper: Recorder) -> None:
    server = ScriptedServer(httpx.ReadTimeout("slow"), httpx.ConnectTimeout("slow"))
    with make_client(server, sleeper, max_retries=1) as client, pytest.raises(guard.GuardTimeoutError):
        client.get_notice("ntc_12345678")
    assert len(server.requests) == 2
    assert not issubclass(guard.GuardTimeoutError, guard.GuardConnectionError)
    assert not issubclass(guard.GuardConnectionError, guard.GuardTimeoutError)


def test_the_timeout_is_given_to_each_attempt_per_client_and_per_request() -> None:
    seen = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions["timeout"])
        return json_response(200, {})

    with make_client(ScriptedServer(answer, answer), timeout=12) as client:
        client.get_notice("ntc_12345678")
        client.get_notice("ntc_12345678", request_options={"timeout": 0.25})
    assert seen[0] == {"connect": 12.0, "read": 12.0, "write": 12.0, "pool": 12.0}
    assert seen[1] == {"connect": 0.25, "read": 0.25, "write": 0.25, "pool": 0.25}


def test_a_broker_call_is_never_repeated(sleeper: Recorder) -> None:
    server = ScriptedServer(unavailable("0"), httpx.ConnectError("reset"))
    with make_client(server, sleeper, api_key="gk_live_secret") as client:
        with pytest.raises(guard.GuardApiError):
            client.broker_token("user-1")
        with pytest.raises(guard.GuardConnectionError):
            client.broker_token("user-1")
    assert len(server.requests) == 2 and sleeper.delays == []


def test_withdraw_is_never_repeated(sleeper: Recorder) -> None:
    server = ScriptedServer(unavailable("0"))
    with make_client(server, sleeper, api_key="gk_live_secret") as client, pytest.raises(guard.GuardApiError):
        client.withdraw_consent("cns_0000000000")
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.upsert_nomination(nominee_name="Asha", nominee_contact="asha@example.com"),
        lambda c: c.revoke_nomination(),
        lambda c: c.link_anonymous_consent("guest-1"),
        lambda c: c.verify_consent("cns_0000000000"),
    ],
    ids=["upsert_nomination", "revoke_nomination", "link_anonymous_consent", "verify_consent"],
)
def test_writes_the_contract_declares_idempotent_are_retried(call: Any, sleeper: Recorder) -> None:
    server = ScriptedServer(unavailable("0"), json_response(200, {}))
    with make_client(server, sleeper, api_key="gk_live_secret", access_token="tok") as client:
        call(client)
    assert len(server.requests) == 2
    assert server.header("Idempotency-Key") == [None, None], "no key is minted for them"


def test_a_write_with_a_caller_idempotency_key_header_is_safe_to_repeat(sleeper: Recorder) -> None:
    server = ScriptedServer(
        unavailable("0"), json_response(200, {"accessToken": "t", "expiresAt": 1, "tokenType": "Bearer"})
    )
    with make_client(server, sleeper, api_key="gk_live_secret") as client:
        client.broker_token("user-1", request_options={"idempotency_key": "mine"})
    assert server.header("Idempotency-Key") == ["mine", "mine"]


# ----- idempotency keys ------------------------------------------------------------------------


CREATES = {
    "create_dsr_request": lambda c, **kw: c.create_dsr_request(organization_id=ORG, type="erasure", **kw),
    "create_grievance": lambda c, **kw: c.create_grievance(organization_id=ORG, subject="s", description="d", **kw),
    "record_consent": lambda c, **kw: c.record_consent(
        email="a@example.com", notice_id="ntc_12345678", purpose="Marketing", data_types=["email"], **kw
    ),
    "give_anonymous_consent": lambda c, **kw: c.give_anonymous_consent(
        organization_id=ORG, notice_id="ntc_12345678", purpose="Marketing", data_types=["email"], anonymous_id="g", **kw
    ),
}


@pytest.mark.parametrize("name", sorted(CREATES))
def test_a_create_mints_one_key_per_call_and_reuses_it_on_every_retry(name: str, sleeper: Recorder) -> None:
    server = ScriptedServer(
        unavailable("0"), httpx.ConnectError("reset"), json_response(201, DSR), json_response(201, DSR)
    )
    with make_client(server, sleeper, api_key="gk_live_secret", access_token="tok") as client:
        CREATES[name](client)
        CREATES[name](client)
    keys = server.header("Idempotency-Key")
    assert len(keys) == 4
    assert UUID4.match(keys[0] or "")
    assert keys[0] == keys[1] == keys[2], "one logical call, one key on every attempt"
    assert keys[3] != keys[0], "the next call mints a new key"
    assert server.header("X-Guard-Retry-Count") == ["0", "1", "2", "0"]


def test_the_callers_key_is_sent_as_argument_or_as_request_option() -> None:
    server = ScriptedServer(json_response(201, DSR), json_response(201, DSR), json_response(201, DSR))
    with make_client(server, access_token="tok") as client:
        client.create_dsr_request(organization_id=ORG, type="erasure", idempotency_key="k-arg")
        client.create_dsr_request(organization_id=ORG, type="erasure", request_options={"idempotency_key": "k-opt"})
        client.create_dsr_request(
            organization_id=ORG, type="erasure", idempotency_key="same", request_options={"idempotency_key": "same"}
        )
    assert server.header("Idempotency-Key") == ["k-arg", "k-opt", "same"]


def test_two_different_keys_for_one_call_are_refused_before_sending() -> None:
    server = ScriptedServer()
    with make_client(server, access_token="tok") as client, pytest.raises(ValueError):
        client.create_dsr_request(
            organization_id=ORG, type="erasure", idempotency_key="a", request_options={"idempotency_key": "b"}
        )
    assert server.requests == []


def test_create_bodies_leave_out_what_the_caller_left_out() -> None:
    server = ScriptedServer(json_response(201, DSR), json_response(201, DSR))
    with make_client(server, access_token="tok") as client:
        client.create_dsr_request(organization_id=ORG, type="erasure")
        client.create_dsr_request(organization_id=ORG, type="correction", details="My surname is misspelt.")
    assert server.body(0) == {"organizationId": ORG, "type": "erasure"}
    assert server.body(1) == {"organizationId": ORG, "type": "correction", "details": "My surname is misspelt."}


def test_data_types_must_be_a_list_not_a_string() -> None:
    with make_client(ScriptedServer(), api_key="k") as client, pytest.raises(TypeError):
        client.record_consent(email="a@example.com", notice_id="ntc_12345678", purpose="Marketing", data_types="email")


# ----- credentials -----------------------------------------------------------------------------


def never_called(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"no request may be sent, got {request.method} {request.url}")


@pytest.mark.parametrize(
    "call,credential",
    [
        (lambda c: c.broker_token("u"), "apiKey"),
        (lambda c: c.verify_consent("cns_0000000000"), "apiKey"),
        (lambda c: c.list_gate_decisions(), "apiKey"),
        (lambda c: c.list_gate_alerts(), "apiKey"),
        (lambda c: c.get_consent_status(email="a@example.com"), "apiKey"),
        (lambda c: c.record_consent(email="a@x.com", notice_id="n", purpose="p", data_types=["d"]), "apiKey"),
        (lambda c: c.get_consent("cns_0000000000"), "apiKey"),
        (lambda c: c.withdraw_consent("cns_0000000000"), "apiKey"),
        (lambda c: c.list_dsr_requests(), "accessToken"),
        (lambda c: c.create_dsr_request(organization_id=ORG, type="erasure"), "accessToken"),
        (lambda c: c.list_grievances(), "accessToken"),
        (lambda c: c.create_grievance(organization_id=ORG, subject="s", description="d"), "accessToken"),
        (lambda c: c.get_nomination(), "accessToken"),
        (lambda c: c.upsert_nomination(nominee_name="n", nominee_contact="c"), "accessToken"),
        (lambda c: c.revoke_nomination(), "accessToken"),
        (lambda c: c.link_anonymous_consent("g"), "accessToken"),
    ],
)
def test_a_missing_credential_fails_locally_before_any_request(call: Any, credential: str) -> None:
    with (
        make_client(ScriptedServer(never_called)) as client,
        pytest.raises(guard.GuardMissingCredentialError) as caught,
    ):
        call(client)
    assert caught.value.credential == credential


def test_an_empty_credential_counts_as_absent() -> None:
    with make_client(ScriptedServer(never_called), api_key="", access_token="") as client:
        with pytest.raises(guard.GuardMissingCredentialError):
            client.list_gate_alerts()
        with pytest.raises(guard.GuardMissingCredentialError):
            client.list_dsr_requests()


def test_broker_token_stores_the_token_for_principal_calls_and_set_access_token_replaces_it() -> None:
    token = {"accessToken": "tok-brokered", "expiresAt": 1, "tokenType": "Bearer"}
    server = ScriptedServer(json_response(201, token), json_response(200, {"requests": []}))
    with make_client(server, api_key="gk_live_secret") as client:
        assert client.broker_token("user-42") == token
        assert server.body(0) == {"externalId": "user-42"}
        client.list_dsr_requests()
        client.set_access_token("tok-from-app")
        client.list_grievances()
        client.set_access_token(None)
        with pytest.raises(guard.GuardMissingCredentialError):
            client.get_nomination()
    assert server.header("Authorization") == ["Bearer gk_live_secret", "Bearer tok-brokered", "Bearer tok-from-app"]


def test_broker_token_sends_the_email_only_when_given() -> None:
    token = {"accessToken": "tok-brokered", "expiresAt": 1, "tokenType": "Bearer"}
    server = ScriptedServer(json_response(201, token), json_response(201, token), json_response(201, token))
    with make_client(server, api_key="gk_live_secret") as client:
        client.broker_token("user-42", email="asha@example.com")
        client.broker_token("user-43", email=None, request_options={"timeout": 5})
        client.broker_token(external_id="user-44")
    assert server.body(0) == {"externalId": "user-42", "email": "asha@example.com"}
    assert server.body(1) == {"externalId": "user-43"}
    assert server.body(2) == {"externalId": "user-44"}


def test_a_principal_call_never_sends_the_service_key() -> None:
    server = ScriptedServer()
    with make_client(server, api_key="gk_live_secret", access_token="tok") as client:
        client.list_dsr_requests()
        client.get_organization("acme")
    assert server.header("Authorization") == ["Bearer tok", None]


# ----- bodies ----------------------------------------------------------------------------------


def test_a_json_null_body_is_none() -> None:
    server = ScriptedServer(httpx.Response(200, content=b"null", headers={"content-type": "application/json"}))
    with make_client(server, access_token="tok") as client:
        assert client.get_nomination() is None


def test_a_2xx_that_is_not_json_is_an_error_and_is_not_retried(sleeper: Recorder) -> None:
    server = ScriptedServer(httpx.Response(200, content=b"<html>portal</html>", headers={"x-request-id": "req_p"}))
    with make_client(server, sleeper) as client, pytest.raises(guard.GuardApiError) as caught:
        client.get_organization("acme")
    assert (caught.value.status, caught.value.code, caught.value.request_id) == (200, "INTERNAL_ERROR", "req_p")
    assert len(server.requests) == 1


def test_responses_keep_fields_a_newer_server_adds() -> None:
    server = ScriptedServer(json_response(200, {"orgId": ORG, "name": "Acme", "slug": "acme", "futureField": [1]}))
    with make_client(server) as client:
        assert client.get_organization("acme")["futureField"] == [1]  # type: ignore[typeddict-item]


# ----- configuration ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs,error",
    [
        ({"timeout": 0}, ValueError),
        ({"timeout": -1}, ValueError),
        ({"timeout": float("nan")}, ValueError),
        ({"timeout": True}, ValueError),
        ({"max_retries": -1}, ValueError),
        ({"max_retries": 1.5}, ValueError),
        ({"default_headers": {"X": 1}}, TypeError),
        ({"api_key": 42}, TypeError),
        ({"no_such_option": 1}, TypeError),
        ({"http_client": httpx.AsyncClient()}, TypeError),
    ],
)
def test_bad_client_options_fail_at_construction(kwargs: Any, error: type) -> None:
    with pytest.raises(error):
        guard.GuardClient(BASE_URL, **kwargs)


@pytest.mark.parametrize("base_url", ["guard.example.com", "ftp://guard.example.com", "https://", "https://h/?x=1", 42])
def test_base_url_must_be_an_absolute_http_url(base_url: Any) -> None:
    with pytest.raises((ValueError, TypeError)):
        guard.GuardClient(base_url)


@pytest.mark.parametrize(
    "options,error",
    [
        ({"timout": 1}, TypeError),
        ({"signal": object()}, TypeError),
        ({"headers": {"X": 1}}, TypeError),
        ({"timeout": 0}, ValueError),
        ({"max_retries": -1}, ValueError),
        ({"idempotency_key": ""}, ValueError),
        ({"idempotency_key": 42}, ValueError),
    ],
)
def test_bad_request_options_fail_before_sending(options: Any, error: type) -> None:
    with make_client(ScriptedServer(never_called)) as client, pytest.raises(error):
        client.get_organization("acme", request_options=options)


def test_an_empty_path_argument_is_refused_before_sending() -> None:
    with make_client(ScriptedServer(never_called)) as client, pytest.raises(ValueError):
        client.get_notice("")


def test_defaults_are_the_family_constants_and_the_wall_clock_in_seconds() -> None:
    with guard.GuardClient(BASE_URL) as client:
        assert client.timeout == guard.DEFAULT_TIMEOUT and client.max_retries == guard.DEFAULT_MAX_RETRIES
        assert abs(client._now() - time.time()) < 5
