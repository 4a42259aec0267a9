"""The SDK against its sources of truth: the generated models against contract/openapi/v1.yaml, the
method table against the contract's operations and the conformance README's method set, and the
two clients against each other."""

from __future__ import annotations

import inspect
import re
import sys
from typing import Any, Dict, List

import pytest
import yaml
from conftest import CONFORMANCE, CONTRACT, SDK_ROOT

import guard
from guard._models import RESPONSE_TYPES
from guard._operations import OPERATIONS

sys.path.insert(0, str(SDK_ROOT / "scripts"))
import generate_models

DOCUMENT = yaml.safe_load((CONTRACT / "openapi" / "v1.yaml").read_text(encoding="utf-8"))
CONTRACT_OPERATIONS: Dict[str, Dict[str, Any]] = {
    spec["operationId"]: {**spec, "method": method.upper(), "path": path}
    for path, item in DOCUMENT["paths"].items()
    for method, spec in item.items()
    if isinstance(spec, dict) and "operationId" in spec
}
SECURITY_TO_CREDENTIAL = {"serviceKey": "apiKey", "principalToken": "accessToken"}


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_generated_models_are_fresh() -> None:
    current = (SDK_ROOT / "guard" / "_models.py").read_text(encoding="utf-8")
    assert current == generate_models.render(), (
        "guard/_models.py is stale against contract/openapi/v1.yaml: run `python scripts/generate_models.py`"
    )


@pytest.mark.parametrize("operation", list(OPERATIONS.values()), ids=lambda op: op.method_name)
def test_operation_matches_the_contract(operation: Any) -> None:
    spec = CONTRACT_OPERATIONS.get(operation.operation_id)
    assert spec is not None, f"{operation.operation_id} is not in the contract"
    assert (spec["method"], spec["path"]) == (operation.http_method, operation.path)
    schemes = [name for requirement in spec["security"] for name in requirement]
    assert operation.credential == (SECURITY_TO_CREDENTIAL[schemes[0]] if schemes else "none")
    takes_key = any(
        parameter.get("$ref", "").endswith("/IdempotencyKey") or parameter.get("name") == "Idempotency-Key"
        for parameter in spec.get("parameters", [])
    )
    assert operation.creates == takes_key, "create calls are exactly the operations that take an Idempotency-Key"


def _readme_method_table() -> List[List[str]]:
    text = (CONFORMANCE / "README.md").read_text(encoding="utf-8")
    section = text.split("## The method set", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def test_method_set_is_the_conformance_readmes() -> None:
    table = {}
    for method, _arguments, http, credential in _readme_method_table():
        names = re.findall(r"`(\w+)`", method)
        if len(names) != 1 or http == "—":
            continue  # the helpers' row and setAccessToken
        verb, path = re.fullmatch(r"(GET|POST|PUT|DELETE) `([^`]+)`.*", http).groups()
        table[names[0]] = (verb, path, {"none": "none", "apiKey": "apiKey", "accessToken": "accessToken"}[credential])
    ours = {name: (op.http_method, op.path, op.credential) for name, op in OPERATIONS.items()}
    assert ours == table


def test_both_clients_have_every_method_with_the_contracts_response_type() -> None:
    for operation in OPERATIONS.values():
        name = snake(operation.method_name)
        for client_type in (guard.GuardClient, guard.AsyncGuardClient):
            method = getattr(client_type, name, None)
            assert method is not None, f"{client_type.__name__}.{name} is missing"
            assert method.__annotations__["return"] == RESPONSE_TYPES[operation.operation_id], name


def _public_methods(client_type: type) -> Dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in inspect.getmembers(client_type, inspect.isfunction)
        if not name.startswith("_")
    }


def test_the_async_client_mirrors_the_sync_client() -> None:
    sync_methods = _public_methods(guard.GuardClient)
    async_methods = _public_methods(guard.AsyncGuardClient)
    assert set(sync_methods) | {"aclose"} == set(async_methods)
    for name, signature in sync_methods.items():
        if name == "close":
            continue
        async_method = getattr(guard.AsyncGuardClient, name)
        if name.startswith("iter_"):
            # A page walker: a generator in one client, an async generator in the other.
            assert inspect.isgeneratorfunction(getattr(guard.GuardClient, name)), name
            assert inspect.isasyncgenfunction(async_method), name
            assert list(async_methods[name].parameters.values()) == list(signature.parameters.values()), name
            continue
        assert async_methods[name] == signature, name
        is_async = inspect.iscoroutinefunction(async_method)
        assert is_async == (name != "set_access_token"), name
    sync_init = inspect.signature(guard.GuardClient.__init__).parameters
    async_init = inspect.signature(guard.AsyncGuardClient.__init__).parameters
    assert list(sync_init) == list(async_init)


def test_create_calls_take_an_idempotency_key_argument_and_nothing_else_does() -> None:
    for operation in OPERATIONS.values():
        parameters = inspect.signature(getattr(guard.GuardClient, snake(operation.method_name))).parameters
        assert ("idempotency_key" in parameters) == operation.creates, operation.method_name
        assert parameters["request_options"].kind is inspect.Parameter.KEYWORD_ONLY
