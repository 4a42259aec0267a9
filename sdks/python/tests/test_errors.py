"""Error mapping (conformance/README.md, "Errors") and the error-code list against contract/errors.json."""

from __future__ import annotations

from typing import Any, Optional

import httpx
import pytest
from conftest import CONTRACT, ScriptedServer, load_json, make_client

import guard


def raised(response: httpx.Response) -> guard.GuardApiError:
    with make_client(ScriptedServer(response), max_retries=0) as client, pytest.raises(guard.GuardApiError) as caught:
        client.get_organization("acme")
    return caught.value


def answer(
    status: int, body: Any, content_type: str = "application/json", request_id: Optional[str] = None
) -> httpx.Response:
    headers = {"content-type": content_type}
    if request_id:
        headers["x-request-id"] = request_id
    content = body if isinstance(body, bytes) else body.encode("utf-8")
    return httpx.Response(status, content=content, headers=headers)


def test_a_guard_error_body_is_read_field_by_field() -> None:
    error = raised(
        answer(
            400,
            '{"code":"VALIDATION_ERROR","error":"dataTypes must have at least 1 item",'
            '"field":"dataTypes","requestId":"req_body"}',
            request_id="req_header",
        )
    )
    assert (error.status, error.code, error.message, error.field) == (
        400,
        "VALIDATION_ERROR",
        "dataTypes must have at least 1 item",
        "dataTypes",
    )
    assert error.request_id == "req_body", "the body's requestId wins over the header"
    assert error.headers["x-request-id"] == "req_header"
    assert "400 VALIDATION_ERROR" in str(error) and "req_body" in str(error)


def test_an_unknown_code_is_kept_as_sent() -> None:
    error = raised(answer(422, '{"code":"SOMETHING_NEWER","error":"from a future server"}'))
    assert error.code == "SOMETHING_NEWER" and error.code not in guard.API_ERROR_CODES


@pytest.mark.parametrize(
    "status,body,content_type,code",
    [
        (502, "<html>Bad gateway</html>", "text/html", "UNAVAILABLE"),
        (400, '{"error":"legacy message"}', "application/json", "VALIDATION_ERROR"),
        (404, "", "application/json", "NOT_FOUND"),
        (500, "[1,2]", "application/json", "INTERNAL_ERROR"),
        (503, '{"code":""}', "application/json", "UNAVAILABLE"),
        (429, '{"code":7}', "application/json", "RATE_LIMITED"),
        (418, "not json {", "text/plain", "VALIDATION_ERROR"),
        (401, b"\xff\xfe", "application/json", "UNAUTHORIZED"),
    ],
)
def test_a_body_without_a_usable_code_gets_the_status_code_and_never_a_parse_error(
    status: int, body: Any, content_type: str, code: str
) -> None:
    error = raised(answer(status, body, content_type))
    assert error.code == code
    if "legacy" not in str(body):
        assert error.message == f"Request failed with status {status}"
    assert error.request_id is None and error.field is None


def test_the_request_id_falls_back_to_the_header() -> None:
    assert raised(answer(404, '{"code":"NOT_FOUND","error":"no"}', request_id="req_h")).request_id == "req_h"


@pytest.mark.parametrize(
    "status,code",
    [
        (400, "VALIDATION_ERROR"),
        (401, "UNAUTHORIZED"),
        (403, "FORBIDDEN"),
        (404, "NOT_FOUND"),
        (409, "CONFLICT"),
        (413, "PAYLOAD_TOO_LARGE"),
        (415, "UNSUPPORTED_MEDIA_TYPE"),
        (426, "SDK_VERSION_UNSUPPORTED"),
        (429, "RATE_LIMITED"),
        (500, "INTERNAL_ERROR"),
        (501, "UNAVAILABLE"),
        (503, "UNAVAILABLE"),
        (599, "UNAVAILABLE"),
        (402, "VALIDATION_ERROR"),
        (422, "VALIDATION_ERROR"),
        (301, "VALIDATION_ERROR"),
    ],
)
def test_code_for_status(status: int, code: str) -> None:
    assert guard.code_for_status(status) == code


def test_status_derived_codes_are_catalog_codes_with_that_status() -> None:
    catalog = {entry["code"]: entry["status"] for entry in load_json(CONTRACT / "errors.json")["codes"]}
    for status in (400, 401, 403, 404, 409, 413, 415, 426, 429, 500, 503):
        code = guard.code_for_status(status)
        assert catalog[code] == status, f"{status} maps to {code}, which the catalog gives {catalog[code]}"


def test_error_code_list_matches_the_catalogs_api_codes_in_order() -> None:
    catalog = load_json(CONTRACT / "errors.json")
    api_codes = [entry["code"] for entry in catalog["codes"] if entry["surface"] == "api"]
    assert list(guard.API_ERROR_CODES) == api_codes
    assert catalog["version"] == guard.CONTRACT_VERSION


def test_the_error_tree() -> None:
    for error_type in (
        guard.GuardApiError,
        guard.GuardConnectionError,
        guard.GuardTimeoutError,
        guard.GuardMissingCredentialError,
        guard.GuardWebhookSecretError,
    ):
        assert issubclass(error_type, guard.GuardError)
    assert not issubclass(guard.GuardTimeoutError, guard.GuardConnectionError)
    assert issubclass(guard.GuardWebhookSecretError, ValueError), "a bad secret is a bad argument value"
    assert guard.GuardMissingCredentialError("apiKey").credential == "apiKey"
    assert "broker_token" in guard.GuardMissingCredentialError("accessToken").message
