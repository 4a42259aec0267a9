"""The Python adapter of the conformance suite (conformance/README.md): runs every scenario in
conformance/scenarios against the fixture server with guard-sdk.

    GUARD_CONFORMANCE_FIXTURES="$(head -1 /tmp/fixtures.json)" \\
        .venv/bin/python sdks/python/conformance_adapter.py [--only <id>]... [--verbose] [--client sync|async|both]

Each scenario runs with GuardClient and then with AsyncGuardClient (``--client both``, the default),
and passes only when both do: the two clients are one SDK, so they must behave as one. Scenarios are
written with the family's (Node) method names and argument shapes; this adapter maps them to Python:
snake_case methods, an input object expanded into snake_case keyword arguments, ``timeoutMs`` to
``timeout`` in seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import math
import os
import re
import secrets
import sys
import traceback
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import httpx

import guard

SDK_NAME = "python"
HERE = Path(__file__).resolve().parent
CONFORMANCE = HERE.parent.parent / "conformance"

# How each method's positional arguments (in the family's shape) become a Python call: "p" passes
# the argument as is, "k" expands an input object into snake_case keyword arguments.
CLIENT_METHODS: Dict[str, Tuple[str, ...]] = {
    "getOrganization": ("p",),
    "getNotices": ("p",),
    "getNotice": ("p",),
    "getBannerConfig": ("p", "k"),
    "giveAnonymousConsent": ("k",),
    "brokerToken": ("p",),
    "setAccessToken": ("p",),
    "linkAnonymousConsent": ("p",),
    "listDsrRequests": (),
    "createDsrRequest": ("k", "key"),  # 1.6.0's bare idempotency-key string, as the second argument
    "listGrievances": (),
    "createGrievance": ("k",),
    "getNomination": (),
    "upsertNomination": ("k",),
    "revokeNomination": (),
    "recordConsent": ("k",),
    "getConsent": ("p",),
    "withdrawConsent": ("p",),
    "getConsentStatus": ("k",),
    "verifyConsent": ("p",),
    "listGateDecisions": ("k",),
    "listGateAlerts": (),
    "listDueRetentions": ("k",),
    "listBreaches": ("k",),
    "listCrossBorderTransfers": ("k",),
    "confirmErasureExecuted": ("p", "k"),
    "createOfflineConsentLink": ("k",),
    "syncOfflineCaptures": ("p",),  # the sessions pass through as the devices signed them (camelCase)
    "createPosConsentRequest": ("k",),
    "recordIvrConsentArtifact": ("k",),
    "withdrawConsentByToken": ("p",),
}
HELPERS: Dict[str, Tuple[Any, Tuple[str, ...]]] = {
    "hasConsent": (guard.has_consent, ("p", "p")),
    "verifyWebhookSignature": (guard.verify_webhook_signature, ("p", "p", "p")),
    "verifyStandardWebhook": (guard.verify_standard_webhook, ("p", "p", "p", "k")),
    "canonicalizeAuditEvent": (guard.canonicalize_audit_event, ("p",)),
    "computeAuditHash": (guard.compute_audit_hash, ("p", "p")),
    "canonicalizeCaptureArtifact": (guard.canonicalize_capture_artifact, ("p",)),
    "verifyCaptureSignature": (guard.verify_capture_signature, ("p", "p", "p")),
}
CLIENT_OPTIONS = {"baseUrl", "apiKey", "accessToken", "timeoutMs", "maxRetries"}
REQUEST_OPTIONS = {"timeoutMs", "maxRetries", "idempotencyKey", "headers"}
VALUE_FORMS = ("$fixture", "$ref", "$unique", "$concat")
OPERATORS = ("$type", "$absent", "$contains", "$length", "$regex", "$not", "$all")


class StepFailure(Exception):
    pass


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


# ----- values and matching ----------------------------------------------------------------------


class Scope:
    def __init__(self, fixtures: Dict[str, Any], run_id: str) -> None:
        self.fixtures = fixtures
        self.run_id = run_id
        self.counter = 0
        self.vars: Dict[str, Any] = {}
        self.clients: Dict[str, Any] = {}


def value_form(value: Any) -> Optional[str]:
    if isinstance(value, dict) and len(value) == 1:
        (key,) = value
        if key in VALUE_FORMS:
            return key
    return None


def resolve(value: Any, scope: Scope) -> Any:
    """Resolves ``$fixture``, ``$ref``, ``$unique`` and ``$concat`` anywhere inside ``value``."""
    if isinstance(value, list):
        return [resolve(item, scope) for item in value]
    if not isinstance(value, dict):
        return value
    form = value_form(value)
    if form is None:
        return {key: resolve(item, scope) for key, item in value.items()}
    arg = value[form]
    if form == "$fixture":
        if arg not in scope.fixtures:
            raise StepFailure(f"no fixture {arg}")
        if scope.fixtures[arg] is None:
            raise StepFailure(f"fixture {arg} is null ({'; '.join(scope.fixtures.get('notes') or []) or 'no note'})")
        return scope.fixtures[arg]
    if form == "$ref":
        if arg not in scope.vars:
            raise StepFailure(f"no value named {arg} (not in let, not captured)")
        return scope.vars[arg]
    if form == "$unique":
        scope.counter += 1
        return f"{arg}-{scope.run_id}-{scope.counter}"
    return "".join(js_string(part) for part in resolve(arg, scope))


def js_string(value: Any) -> str:
    """String(value) as the scenarios (written for JavaScript) mean it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and math.isfinite(value) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def scalar_equal(actual: Any, expected: Any) -> bool:
    # JSON equality: numbers by value, but true is not 1.
    if isinstance(actual, bool) or isinstance(expected, bool):
        return isinstance(actual, bool) and isinstance(expected, bool) and actual == expected
    if isinstance(actual, (int, float)) and isinstance(expected, (int, float)):
        return actual == expected
    return type(actual) is type(expected) and actual == expected


def deep_equal(actual: Any, expected: Any) -> bool:
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and actual.keys() == expected.keys()
            and all(deep_equal(actual[key], expected[key]) for key in expected)
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(deep_equal(a, e) for a, e in zip(actual, expected))
        )
    return scalar_equal(actual, expected)


def mismatch(actual: Any, expected: Any, scope: Scope, where: str) -> Optional[str]:
    """None when ``actual`` matches ``expected``, else a message naming where they differ."""
    if isinstance(expected, dict):
        if value_form(expected):
            wanted = resolve(expected, scope)
            return None if deep_equal(actual, wanted) else f"{where}: expected {as_json(wanted)}, got {as_json(actual)}"
        if len(expected) == 1 and next(iter(expected)) in OPERATORS:
            name, arg = next(iter(expected.items()))
            return operator(actual, name, arg, scope, where)
        if not isinstance(actual, dict):
            return f"{where}: expected an object, got {as_json(actual)}"
        for key, sub in expected.items():
            if key not in actual:
                if isinstance(sub, dict) and list(sub) == ["$absent"]:
                    continue
                return f"{where}.{key}: missing"
            problem = mismatch(actual[key], sub, scope, f"{where}.{key}")
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{where}: expected an array, got {as_json(actual)}"
        if len(actual) != len(expected):
            return f"{where}: expected {len(expected)} items, got {len(actual)}: {as_json(actual)}"
        for index, (item, sub) in enumerate(zip(actual, expected)):
            problem = mismatch(item, sub, scope, f"{where}.{index}")
            if problem:
                return problem
        return None
    return None if scalar_equal(actual, expected) else f"{where}: expected {as_json(expected)}, got {as_json(actual)}"


def operator(actual: Any, name: str, arg: Any, scope: Scope, where: str) -> Optional[str]:
    if name == "$type":
        kind = json_type(actual)
        ok = kind == arg or (arg == "number" and kind == "integer")
        return None if ok else f"{where}: expected a {arg}, got {as_json(actual)}"
    if name == "$absent":
        return f"{where}: expected no such key, got {as_json(actual)}"
    if name == "$contains":
        if not isinstance(actual, list):
            return f"{where}: expected an array, got {as_json(actual)}"
        if any(mismatch(item, arg, scope, where) is None for item in actual):
            return None
        return f"{where}: no element matches {as_json(arg)} in {as_json(actual)}"
    if name == "$length":
        ok = isinstance(actual, (list, str)) and js_length(actual) == arg
        return None if ok else f"{where}: expected length {arg}, got {as_json(actual)}"
    if name == "$regex":
        ok = isinstance(actual, str) and re.search(arg, actual) is not None
        return None if ok else f"{where}: expected a string matching /{arg}/, got {as_json(actual)}"
    if name == "$not":
        if mismatch(actual, arg, scope, where) is None:
            return f"{where}: expected not {as_json(arg)}, got {as_json(actual)}"
        return None
    if name == "$all":
        for each in arg:
            problem = mismatch(actual, each, scope, where)
            if problem:
                return problem
        return None
    raise StepFailure(f"unknown matcher {name}")


def js_length(value: Any) -> int:
    # A JavaScript string's length counts UTF-16 code units.
    if isinstance(value, str):
        return len(value.encode("utf-16-le", "surrogatepass")) // 2
    return len(value)


def pick(value: Any, dotted: str) -> Any:
    if dotted == "":
        return value
    current = value
    for part in dotted.split("."):
        if isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        elif isinstance(current, dict) and part in current:
            current = current[part]
        else:
            raise StepFailure(f"cannot capture {dotted}: {part} is missing in {as_json(value)}")
    return current


# ----- the SDK ----------------------------------------------------------------------------------


def build_client(spec: Dict[str, Any], scope: Scope, mode: str) -> Any:
    options = resolve(spec, scope)
    unknown = set(options) - CLIENT_OPTIONS
    if unknown:
        raise StepFailure(f"unknown client option(s) {sorted(unknown)}")
    kwargs: Dict[str, Any] = {}
    if "apiKey" in options:
        kwargs["api_key"] = options["apiKey"]
    if "accessToken" in options:
        kwargs["access_token"] = options["accessToken"]
    if "timeoutMs" in options:
        kwargs["timeout"] = options["timeoutMs"] / 1000
    if "maxRetries" in options:
        kwargs["max_retries"] = options["maxRetries"]
    factory = guard.AsyncGuardClient if mode == "async" else guard.GuardClient
    return factory(options["baseUrl"], **kwargs)


def request_options(options: Dict[str, Any]) -> Dict[str, Any]:
    unknown = set(options) - REQUEST_OPTIONS
    if unknown:
        raise StepFailure(f"unknown request option(s) {sorted(unknown)}")
    mapped: Dict[str, Any] = {}
    if "timeoutMs" in options:
        mapped["timeout"] = options["timeoutMs"] / 1000
    if "maxRetries" in options:
        mapped["max_retries"] = options["maxRetries"]
    if "idempotencyKey" in options:
        mapped["idempotency_key"] = options["idempotencyKey"]
    if "headers" in options:
        mapped["headers"] = options["headers"]
    return mapped


def python_arguments(call: str, shape: Tuple[str, ...], args: List[Any]) -> Tuple[List[Any], Dict[str, Any]]:
    if len(args) > len(shape):
        raise StepFailure(f"{call} takes {len(shape)} arguments, got {len(args)}")
    positional: List[Any] = []
    keywords: Dict[str, Any] = {}
    for kind, arg in zip(shape, args):
        if kind == "p":
            positional.append(arg)
        elif kind == "key":
            if isinstance(arg, str):
                keywords["idempotency_key"] = arg
            elif arg is not None:
                keywords["request_options"] = request_options(arg)
        else:
            if arg is None:
                continue
            if not isinstance(arg, dict):
                raise StepFailure(f"{call}: expected an object argument, got {as_json(arg)}")
            keywords.update({snake(key): value for key, value in arg.items()})
    return positional, keywords


def describe_error(error: BaseException) -> Dict[str, Any]:
    if isinstance(error, guard.GuardApiError):
        return {
            "type": "GuardApiError",
            "status": error.status,
            "code": error.code,
            "message": error.message,
            "requestId": error.request_id,
        }
    return {"type": type(error).__name__, "message": str(error)}


def present(value: Any) -> Any:
    """A result as the scenarios see it: JSON with the wire's names."""
    if isinstance(value, guard.StandardWebhookVerification):
        return {"valid": True} if value.valid else {"valid": False, "reason": value.reason}
    return json.loads(json.dumps(value))


async def call_sdk(step: Dict[str, Any], scope: Scope) -> Any:
    args = resolve(step.get("args", []), scope)
    call = step["call"]
    if call in HELPERS:
        function, shape = HELPERS[call]
        positional, keywords = python_arguments(call, shape, args)
        if "options" in step:
            raise StepFailure(f"{call} takes no request options")
        return function(*positional, **keywords)
    client_name = step.get("client", "default")
    client = scope.clients.get(client_name)
    if client is None:
        raise StepFailure(f"no client {client_name}")
    if call not in CLIENT_METHODS:
        raise StepFailure(f"unknown method {call}")
    positional, keywords = python_arguments(call, CLIENT_METHODS[call], args)
    if "options" in step:
        keywords["request_options"] = request_options(resolve(step["options"], scope))
    result = getattr(client, snake(call))(*positional, **keywords)
    return await result if inspect.isawaitable(result) else result


def call_fixture(step: Dict[str, Any], scope: Scope) -> Any:
    body = resolve(step.get("with", {}), scope)
    # awaitWebhook may wait up to its own timeoutMs; give it room on top.
    wait = (body.get("timeoutMs", 15000) if isinstance(body, dict) else 15000) / 1000 + 30
    response = httpx.post(f"{scope.fixtures['controlUrl']}/{step['fixture']}", json=body, timeout=wait)
    try:
        answer = response.json() if response.content else None
    except ValueError:
        answer = None
    if response.status_code >= 300:
        detail = answer.get("error") if isinstance(answer, dict) else response.text
        raise StepFailure(f"fixture {step['fixture']} answered {response.status_code}: {detail}")
    return answer


async def run_step(step: Dict[str, Any], scope: Scope) -> None:
    try:
        value = call_fixture(step, scope) if "fixture" in step else await call_sdk(step, scope)
        ok, outcome = True, present(value)
    except StepFailure:
        raise
    except Exception as error:  # the SDK's error is the step's outcome, to match against `expect`
        ok, outcome = False, describe_error(error)
    expect = step.get("expect", {})
    if "error" in expect:
        if ok:
            raise StepFailure(f"expected an error, got {as_json(outcome)}")
        problem = mismatch(outcome, expect["error"], scope, "error")
    else:
        if not ok:
            raise StepFailure(f"unexpected {as_json(outcome)}")
        problem = mismatch(outcome, expect["result"], scope, "result") if "result" in expect else None
    if problem:
        raise StepFailure(problem)
    for name, dotted in step.get("capture", {}).items():
        scope.vars[name] = pick(outcome, dotted)


async def run_scenario(scenario: Dict[str, Any], fixtures: Dict[str, Any], mode: str, verbose: bool) -> None:
    scope = Scope(fixtures, f"{SDK_NAME}{mode}{secrets.token_hex(4)}")
    try:
        for name, value in scenario.get("let", {}).items():
            scope.vars[name] = resolve(value, scope)
        for name, spec in scenario.get("clients", {}).items():
            scope.clients[name] = build_client(spec, scope, mode)
        for index, step in enumerate(scenario["steps"], start=1):
            label = f"step {index} ({step.get('call') or 'fixture ' + str(step.get('fixture'))})"
            if verbose:
                print(f"  [{mode}] {scenario['id']} {label}", flush=True)
            try:
                await run_step(step, scope)
            except StepFailure as failure:
                raise StepFailure(f"{label}: {failure}") from None
    finally:
        for client in scope.clients.values():
            closed = client.close()
            if inspect.isawaitable(closed):
                await closed


# ----- main -------------------------------------------------------------------------------------


async def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description="guard-sdk conformance adapter")
    parser.add_argument("--only", action="append", default=[], help="scenario id (repeatable, or comma-separated)")
    parser.add_argument("--verbose", action="store_true", help="print each step")
    parser.add_argument("--client", choices=("sync", "async", "both"), default="both")
    opts = parser.parse_args(argv)
    only = {part for item in opts.only for part in item.split(",") if part}
    modes = ("sync", "async") if opts.client == "both" else (opts.client,)

    raw = os.environ.get("GUARD_CONFORMANCE_FIXTURES")
    if not raw:
        print("GUARD_CONFORMANCE_FIXTURES is not set (start conformance/fixture-server.mjs)", file=sys.stderr)
        return 2
    fixtures = json.loads(raw)

    scenarios = [
        json.loads(path.read_text(encoding="utf-8")) for path in sorted((CONFORMANCE / "scenarios").glob("*.json"))
    ]
    known = {scenario["id"] for scenario in scenarios}
    list_file = CONFORMANCE / "expected-failures" / f"{SDK_NAME}.json"
    listed = json.loads(list_file.read_text(encoding="utf-8")) if list_file.exists() else {}
    expected = {entry["id"]: entry["reason"] for entry in listed.get("expectedFailures", [])}

    passed = failed = 0
    for scenario_id in expected:
        if scenario_id not in known:
            print(f"FAIL {scenario_id}: listed in expected-failures/{SDK_NAME}.json but no such scenario")
            failed += 1
    for scenario in scenarios:
        if only and scenario["id"] not in only:
            continue
        problem = None
        for mode in modes:
            try:
                await run_scenario(scenario, fixtures, mode, opts.verbose)
            except StepFailure as failure:
                problem = f"[{mode}] {failure}"
            except Exception:
                problem = f"[{mode}] adapter error: {traceback.format_exc()}"
            if problem:
                break
        is_listed = scenario["id"] in expected
        if problem is None and not is_listed:
            print(f"PASS {scenario['id']}")
            passed += 1
        elif problem is None:
            print(f"STALE {scenario['id']}: passes but is listed in expected-failures/{SDK_NAME}.json; remove it")
            failed += 1
        elif is_listed:
            print(f"XFAIL {scenario['id']}: {problem} (listed: {expected[scenario['id']]})")
        else:
            print(f"FAIL {scenario['id']}: {problem}")
            failed += 1
        sys.stdout.flush()
    print(f"conformance: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
