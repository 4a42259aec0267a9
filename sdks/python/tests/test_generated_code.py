"""The operations table and what is generated from it: guard/_methods.py is fresh, every argument the
table declares is one the contract declares in the same place, both clients put every argument on
the wire where the table says, and the model generator's naming rules hold."""

from __future__ import annotations

import asyncio
import copy
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple, get_type_hints

import httpx
import pytest
import yaml
from conftest import CONTRACT, SDK_ROOT, ScriptedServer, json_response, make_async_client, make_client

import guard
from guard._operations import BODY, OPERATIONS, PATH, QUERY, SESSION_LIST, STRING_LIST, Operation, Param

sys.path.insert(0, str(SDK_ROOT / "scripts"))
import generate_clients
import generate_models

DOCUMENT = generate_models.load_contract(CONTRACT / "openapi" / "v1.yaml")


def contract_operation(operation_id: str) -> Dict[str, Any]:
    for item in DOCUMENT["paths"].values():
        for spec in item.values():
            if isinstance(spec, dict) and spec.get("operationId") == operation_id:
                return spec
    raise AssertionError(f"{operation_id} is not in the contract")


def deref(node: Dict[str, Any]) -> Dict[str, Any]:
    while "$ref" in node:
        target: Any = DOCUMENT
        for key in node["$ref"].removeprefix("#/").split("/"):
            target = target[key]
        node = target
    return node


def test_generated_methods_are_fresh() -> None:
    current = (SDK_ROOT / "guard" / "_methods.py").read_text(encoding="utf-8")
    assert current == generate_clients.render(), (
        "guard/_methods.py is stale against guard/_operations.py: run `python scripts/generate_models.py`"
    )


@pytest.mark.parametrize("operation", list(OPERATIONS.values()), ids=lambda op: op.method_name)
def test_every_argument_is_the_contracts_in_the_same_place(operation: Operation) -> None:
    spec = contract_operation(operation.operation_id)
    declared = {
        (parameter["in"], parameter["name"]): parameter.get("required", False)
        for parameter in (deref(p) for p in spec.get("parameters", []))
    }
    body_schema: Dict[str, Any] = {}
    if "requestBody" in spec:
        body_schema = deref(deref(spec["requestBody"])["content"]["application/json"]["schema"])
    for param in operation.params:
        if param.where == PATH:
            assert "{" + param.wire + "}" in operation.path
            assert not param.optional
        elif param.where == QUERY:
            assert ("query", param.wire) in declared, f"{param.wire} is not a query parameter of the contract"
            assert param.optional == (not declared[("query", param.wire)])
        else:
            assert param.where == BODY
            assert param.wire in body_schema.get("properties", {}), f"{param.wire} is not a body field"
            assert param.optional == (param.wire not in body_schema.get("required", []))
    ours = {param.wire for param in operation.params if param.where == BODY}
    assert set(body_schema.get("required", [])) <= ours, "every required body field is an argument"
    required_query = {name for (where, name), required in declared.items() if where == "query" and required}
    assert required_query <= {param.wire for param in operation.params if param.where == QUERY}


def sample(param: Param) -> Any:
    if param.annotation == STRING_LIST:
        return ("email", "phone")  # any sequence; sent as a JSON array
    if param.annotation == "int":
        return 7
    if param.annotation == SESSION_LIST:
        return ({"clientSessionId": f"{param.name} value/ü"},)  # any sequence of dicts; sent as an array
    return f"{param.name} value/ü"


def arguments(operation: Operation) -> Tuple[List[Any], Dict[str, Any]]:
    positional = [sample(param) for param in operation.params if param.positional]
    keywords = {param.name: sample(param) for param in operation.params if not param.positional}
    return positional, keywords


def seen(request: httpx.Request) -> Tuple[str, str, Any]:
    body = json.loads(request.content) if request.content else None
    return request.method, str(request.url), body


def answer(request: httpx.Request) -> httpx.Response:
    return json_response(200, {"accessToken": "t", "expiresAt": 1, "tokenType": "Bearer"})


@pytest.mark.parametrize("operation", list(OPERATIONS.values()), ids=lambda op: op.method_name)
def test_both_clients_send_every_argument_where_the_table_says(operation: Operation) -> None:
    positional, keywords = arguments(operation)
    credentials = {"api_key": "k", "access_token": "tok"}

    sync_server = ScriptedServer(answer)
    with make_client(sync_server, **credentials) as client:
        getattr(client, operation.python_name)(*positional, **keywords)

    async_server = ScriptedServer(answer)

    async def scenario() -> None:
        async with make_async_client(async_server, **credentials) as client:
            await getattr(client, operation.python_name)(*positional, **keywords)

    asyncio.run(scenario())
    assert seen(sync_server.requests[0]) == seen(async_server.requests[0])

    method, url, body = seen(sync_server.requests[0])
    assert method == operation.http_method
    request_url = httpx.URL(url)
    for param in operation.params:
        value = sample(param)
        if param.where == PATH:
            assert f"/{param.name}%20value%2F%C3%BC" in request_url.raw_path.decode()
        elif param.where == QUERY:
            assert request_url.params[param.wire] == str(value)
        else:
            listed = param.annotation in (STRING_LIST, SESSION_LIST)
            assert body[param.wire] == (list(value) if listed else value)
    body_fields = [param.wire for param in operation.params if param.where == BODY]
    assert (body is None) == (not body_fields)
    if body is not None:
        assert list(body) == body_fields, "the body's fields in the table's order"


def test_optional_arguments_left_out_are_not_sent() -> None:
    server = ScriptedServer()
    with make_client(server, api_key="k") as client:
        client.get_banner_config("org_1")
        client.get_consent_status(email="a@example.com")
        client.list_gate_decisions()
    assert [str(request.url) for request in server.requests] == [
        "https://guard.test/api/v1/org/org_1/banner-config",
        "https://guard.test/api/v1/consent-status?email=a%40example.com",
        "https://guard.test/api/v1/consent/gate/decisions",
    ]


def test_broker_token_alone_stores_the_answers_token() -> None:
    assert [op.method_name for op in OPERATIONS.values() if op.stores_token] == ["brokerToken"]


# ----- the model generator's naming rules ---------------------------------------------------------


def test_a_response_the_contract_names_later_keeps_the_sdks_name_as_a_deprecated_alias() -> None:
    document = copy.deepcopy(DOCUMENT)
    schemas = document["components"]["schemas"]
    verify = contract_operation("verifyConsentGate")
    response = verify["responses"]["200"]["content"]["application/json"]
    body = copy.deepcopy(deref(response["schema"]))
    schemas.pop("ConsentGateVerdict", None)
    schemas["ConsentGateAnswer"] = body
    for item in document["paths"].values():
        for spec in item.values():
            if isinstance(spec, dict) and spec.get("operationId") == "verifyConsentGate":
                spec["responses"]["200"]["content"]["application/json"]["schema"] = {
                    "$ref": "#/components/schemas/ConsentGateAnswer"
                }

    source = generate_models.Generator(document).module()
    namespace: Dict[str, Any] = {}
    exec(compile(source, "_models.py", "exec"), namespace)
    assert namespace["ConsentGateVerdict"] is namespace["ConsentGateAnswer"]
    assert {"ConsentGateVerdict", "ConsentGateAnswer"} <= set(namespace["__all__"])
    assert namespace["RESPONSE_TYPES"]["verifyConsentGate"] == "ConsentGateAnswer"
    assert "``ConsentGateVerdict``, its former name (deprecated)" in namespace["ConsentGateAnswer"].__doc__


def test_the_gate_types_keep_the_contracts_names() -> None:
    # The verify answer and a row of the decision log are two types; contract 1.6.0 named the row.
    assert guard.ConsentGateVerdict.__required_keys__ == frozenset({"decision", "reason", "consentId"})
    assert "apiKeyId" in guard.ConsentGateDecision.__required_keys__
    assert get_type_hints(guard.ConsentGateDecisionList)["decisions"] == List[guard.ConsentGateDecision]


def test_a_key_repeated_in_the_contract_stops_the_generator(tmp_path: Path) -> None:
    contract = tmp_path / "v1.yaml"
    contract.write_text(
        "components:\n  schemas:\n    ConsentGateDecision: {type: object}\n    ConsentGateDecision: {type: string}\n",
        encoding="utf-8",
    )
    with pytest.raises(yaml.constructor.ConstructorError, match="ConsentGateDecision"):
        generate_models.load_contract(contract)
