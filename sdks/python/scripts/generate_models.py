"""Writes guard/_models.py (TypedDicts of every response the SDK returns) from contract/openapi/v1.yaml,
then guard/_methods.py (the clients' methods, scripts/generate_clients.py), whose return types come
from it.

    python scripts/generate_models.py           # rewrite guard/_models.py and guard/_methods.py
    python scripts/generate_models.py --check   # exit 1 if either is stale

The generated files are committed; tests/test_contract_sync.py and tests/test_generated_code.py
render them again in memory and fail when they differ, so a contract change that is not regenerated
fails the build. Needs PyYAML (in the ``test`` extra), never at runtime.
"""

from __future__ import annotations

import argparse
import json
import keyword
import re
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import generate_clients  # the sibling script: this directory is on sys.path when either is run
import yaml

SDK_ROOT = Path(__file__).resolve().parent.parent
REPO_ROOT = SDK_ROOT.parent.parent
CONTRACT = REPO_ROOT / "contract" / "openapi" / "v1.yaml"
OUTPUT = SDK_ROOT / "guard" / "_models.py"


OPERATIONS = generate_clients.load_module("_guard_operations", SDK_ROOT / "guard" / "_operations.py").OPERATIONS

# The SDK's names for response bodies the contract writes inline. A body the contract names as a
# component schema takes the component's name instead; when that differs from the name here, the
# name here is kept as a deprecated alias of it, so code that imported it keeps working.
INLINE_RESPONSE_NAMES = {
    "getNoticesForOrg": "NoticeList",
    "getBannerConfig": "BannerConfig",
    "giveConsentAnonymous": "AnonymousConsent",
    "brokerToken": "BrokeredToken",
    "linkAnonymousConsent": "AnonymousConsentLink",
    "listDsrRequestsForCurrentUser": "DsrRequestList",
    "listGrievancesForCurrentUser": "GrievanceList",
    "revokeNomination": "NominationRevocation",
    "verifyConsentGate": "ConsentGateVerdict",
    "listConsentGateDecisions": "ConsentGateDecisionList",
    "listConsentGateBypassAlerts": "ConsentGateAlerts",
    "syncOfflineCaptures": "OfflineCaptureSyncResult",
    "createPosConsentRequest": "PosConsentRequest",
    "recordIvrConsentArtifact": "IvrConsentArtifactResult",
    "withdrawConsentByToken": "WithdrawalByTokenResult",
    "listDueRetentions": "DueRetentionList",
    "listBreaches": "BreachList",
    "listCrossBorderTransfers": "CrossBorderTransferList",
    "confirmRetentionErasureExecuted": "ErasureExecution",
}

# Component schemas a method takes as an argument whole (not expanded into keyword arguments), so
# they get a TypedDict too: a capture session passes through as the device signed it.
INPUT_SCHEMAS = ("OfflineCaptureSession",)

HEADER = '''"""Response types of guard-sdk, generated from contract/openapi/v1.yaml. Do not edit.

Regenerate with ``python scripts/generate_models.py``; a test fails while this file is stale
(tests/test_contract_sync.py). Every type is a TypedDict: a response is the JSON body as a plain
``dict`` with the wire's field names, so fields a newer server adds are kept, never dropped.
"""
'''


class Generator:
    def __init__(self, document: Dict[str, Any]) -> None:
        self.document = document
        self.schemas: Dict[str, Any] = document["components"]["schemas"]
        self.rendered: Dict[str, str] = {}  # type name -> source, in dependency order
        self.in_progress: set = set()
        self.former_names: Dict[str, str] = {}  # deprecated alias -> the component name it stands for

    # ----- schema -> Python type expression --------------------------------------------------

    def resolve(self, schema: Dict[str, Any]) -> Tuple[Optional[str], Dict[str, Any]]:
        ref = schema.get("$ref")
        if ref is None:
            return None, schema
        name = ref.rsplit("/", 1)[-1]
        return name, self.schemas[name]

    def type_of(self, schema: Dict[str, Any], name_hint: str) -> str:
        ref_name, target = self.resolve(schema)
        if ref_name is not None:
            if _is_named_object(target):
                self.render_object(ref_name, target)
                return ref_name
            return self.type_of(target, ref_name)
        if "anyOf" in schema or "oneOf" in schema:
            variants = schema.get("anyOf") or schema.get("oneOf")
            nullable = any(v.get("type") == "null" for v in variants)
            others = [self.type_of(v, name_hint) for v in variants if v.get("type") != "null"]
            inner = others[0] if len(others) == 1 else f"Union[{', '.join(others)}]"
            return f"Optional[{inner}]" if nullable else inner
        kinds = schema.get("type")
        if isinstance(kinds, list):
            non_null = [k for k in kinds if k != "null"]
            inner = self.type_of({**schema, "type": non_null[0]}, name_hint) if len(non_null) == 1 else "Any"
            return f"Optional[{inner}]" if "null" in kinds else inner
        if "enum" in schema:
            return "Literal[" + ", ".join(json.dumps(v) for v in schema["enum"]) + "]"
        if kinds == "string":
            return "str"
        if kinds == "integer":
            return "int"
        if kinds == "number":
            return "float"
        if kinds == "boolean":
            return "bool"
        if kinds == "array":
            return f"List[{self.type_of(schema.get('items', {}), name_hint + 'Item')}]"
        if kinds == "object" or "properties" in schema or "additionalProperties" in schema:
            if schema.get("properties"):
                self.render_object(name_hint, schema)
                return name_hint
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict):
                return f"Dict[str, {self.type_of(extra, name_hint + 'Value')}]"
            return "Dict[str, Any]"
        return "Any"

    # ----- one TypedDict --------------------------------------------------------------------------

    def render_object(self, name: str, schema: Dict[str, Any]) -> None:
        if not name:
            raise SystemExit("an inline response object has no name: add it to INLINE_RESPONSE_NAMES")
        if name in self.rendered or name in self.in_progress:
            return
        self.in_progress.add(name)
        required = set(schema.get("required", []))
        fields: List[Tuple[str, str, bool, str]] = []
        for prop, prop_schema in schema.get("properties", {}).items():
            hint = name + prop[:1].upper() + prop[1:].lstrip("_@")
            _, target = self.resolve(prop_schema)
            description = prop_schema.get("description") or target.get("description") or ""
            fields.append((prop, self.type_of(prop_schema, hint), prop in required, description))
        self.in_progress.discard(name)
        description = schema.get("description", "")
        formers = sorted(former for former, target in self.former_names.items() if target == name)
        if formers:
            note = ", ".join(f"``{former}``" for former in formers)
            description = f"{description}\n\nAlso importable as {note}, its former name (deprecated).".strip()
        self.rendered[name] = _typed_dict_source(name, description, fields)

    # ----- the module -------------------------------------------------------------------------------

    def response_types(self) -> Dict[str, str]:
        """operationId -> Python type of its first 2xx JSON body, for every operation the SDK calls."""
        operations = {
            op["operationId"]: op
            for item in self.document["paths"].values()
            for op in item.values()
            if isinstance(op, dict) and "operationId" in op
        }
        schemas = {}
        for operation in OPERATIONS.values():
            spec = operations[operation.operation_id]
            status = min(code for code in spec["responses"] if str(code).startswith("2"))
            schemas[operation.operation_id] = spec["responses"][status]["content"]["application/json"]["schema"]
        # Aliases first, so a component's docstring can name its former name however early it renders.
        for operation_id, schema in schemas.items():
            ref_name, _ = self.resolve(schema)
            former = INLINE_RESPONSE_NAMES.get(operation_id)
            if ref_name is not None and former is not None and former != ref_name:
                if former in self.schemas:
                    raise SystemExit(f"{operation_id}: the former name {former} is now another component's")
                self.former_names[former] = ref_name
        result: Dict[str, str] = {}
        for operation_id, schema in schemas.items():
            ref_name, _ = self.resolve(schema)
            # An inline object without an entry in INLINE_RESPONSE_NAMES stops the generator below.
            hint = ref_name or INLINE_RESPONSE_NAMES.get(operation_id, "")
            result[operation_id] = self.type_of(schema, hint)
        return result

    def module(self) -> str:
        responses = self.response_types()
        for name in INPUT_SCHEMAS:
            self.render_object(name, self.schemas[name])
        info = self.document["info"]
        codes = self.schemas["ApiError"]["properties"]["code"]["x-guard-codes"]
        types = "\n".join(self.rendered.values())
        used = {"Dict", "Literal", "Tuple"} | {
            name for name in ("Any", "List", "Optional", "TypedDict", "Union") if re.search(rf"\b{name}\b", types)
        }
        lines = [
            HEADER,
            "from __future__ import annotations",
            "",
            f"from typing import {', '.join(sorted(used))}",
            "",
            f'CONTRACT_VERSION = "{self.document["x-guard-contract-version"]}"',
            f'OPENAPI_DESCRIPTION_VERSION = "{info["version"]}"',
            "",
            "# Every code /api/v1 can return, in catalog order (ApiError.code x-guard-codes). GuardApiError.code",
            "# may also hold a code a newer server added: compare with these, never assume the set is closed.",
            "API_ERROR_CODES: Tuple[str, ...] = (",
            *[f'    "{code}",' for code in codes],
            ")",
            "ApiErrorCode = Literal[",
            *[f'    "{code}",' for code in codes],
            "]",
            "",
        ]
        for source in self.rendered.values():
            lines += ["", source]
        if self.former_names:
            lines += [
                "",
                "# Former names of response types the contract has since named itself. Deprecated: use the",
                "# name on the right.",
                *[f"{former} = {target}" for former, target in sorted(self.former_names.items())],
                "",
            ]
        lines += [
            "",
            "# operationId -> the type its success body has; the client methods are annotated with these.",
            "RESPONSE_TYPES: Dict[str, str] = {",
            *[f'    "{op}": "{type_}",' for op, type_ in responses.items()],
            "}",
            "",
            "__all__ = [",
            '    "API_ERROR_CODES",',
            '    "ApiErrorCode",',
            '    "CONTRACT_VERSION",',
            '    "OPENAPI_DESCRIPTION_VERSION",',
            *[f'    "{name}",' for name in sorted([*self.rendered, *self.former_names]) if not name.startswith("_")],
            "]",
        ]
        return "\n".join(lines) + "\n"


def _is_named_object(schema: Dict[str, Any]) -> bool:
    return bool(schema.get("properties")) and "anyOf" not in schema


def _comment(text: str, indent: str) -> List[str]:
    width = 100 - len(indent)
    lines: List[str] = []
    for paragraph in text.strip().splitlines():
        wrapped = textwrap.wrap(paragraph, width=width, break_long_words=False, break_on_hyphens=False)
        lines += [f"{indent}# {line}" for line in wrapped] or [f"{indent}#"]
    return lines


def _docstring(text: str, indent: str) -> List[str]:
    safe = text.strip().replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    wrapped: List[str] = []
    for paragraph in safe.splitlines():
        wrapped += textwrap.wrap(paragraph, width=100 - len(indent), break_long_words=False) or [""]
    if len(wrapped) == 1 and len(wrapped[0]) <= 100 - len(indent) - 6:
        return [f'{indent}"""{wrapped[0]}"""']
    return [f'{indent}"""{wrapped[0]}', *[f"{indent}{line}".rstrip() for line in wrapped[1:]], f'{indent}"""']


def _identifier(key: str) -> bool:
    return key.isidentifier() and not keyword.iskeyword(key)


Field = Tuple[str, str, bool, str]


def _class_block(name: str, parent: str, total: bool, description: str, fields: List[Field]) -> List[str]:
    header = f"class {name}({parent}{'' if total else ', total=False'}):"
    body: List[str] = []
    if description:
        body += [*_docstring(description, "    "), ""] if fields else _docstring(description, "    ")
    for prop, type_, _, text in fields:
        body += _comment(text, "    ")
        body.append(f"    {prop}: {type_}")
    return [header, *(body or ["    pass"])]


def _functional_block(name: str, total: bool, description: str, fields: List[Field]) -> List[str]:
    lines = _comment(description, "")
    lines += [f"{name} = TypedDict(", f'    "{name}",', "    {"]
    for prop, type_, _, text in fields:
        lines += _comment(text, "        ")
        lines.append(f'        "{prop}": {type_},')
    lines.append("    },")
    if not total:
        lines.append("    total=False,")
    lines.append(")")
    return lines


def _typed_dict_source(name: str, description: str, fields: List[Field]) -> str:
    """Class syntax when every key is an identifier. A key such as ``@context`` is not, so the
    required keys then go into a functional-syntax base; optional keys always sit in a
    ``total=False`` class (no ``typing.NotRequired`` before Python 3.11)."""
    required = [f for f in fields if f[2]]
    optional = [f for f in fields if not f[2]]
    for prop, *_ in optional:
        if not _identifier(prop):
            raise SystemExit(f"{name}.{prop}: an optional key must be an identifier for class syntax")
    if all(_identifier(prop) for prop, *_ in required):
        if not optional:
            return "\n".join(_class_block(name, "TypedDict", True, description, required)) + "\n"
        if not required:
            return "\n".join(_class_block(name, "TypedDict", False, description, optional)) + "\n"
        base = f"_{name}Required"
        lines = _class_block(base, "TypedDict", True, "", required)
        lines += ["", "", *_class_block(name, base, False, description, optional)]
        return "\n".join(lines) + "\n"
    if not optional:
        return "\n".join(_functional_block(name, True, description, required)) + "\n"
    base = f"_{name}Required"
    lines = _functional_block(base, True, "", required)
    lines += ["", "", *_class_block(name, base, False, description, optional)]
    return "\n".join(lines) + "\n"


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML keeps the last of two equal keys without a word. Two schemas of one name would then
    silently give a type the other's shape, so a repeated key stops the generator instead."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark, f"found the key {key!r} twice", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load_contract(contract: Path = CONTRACT) -> Dict[str, Any]:
    with contract.open(encoding="utf-8") as handle:
        document: Dict[str, Any] = yaml.load(handle, Loader=_UniqueKeyLoader)
    return document


def render(contract: Path = CONTRACT) -> str:
    return Generator(load_contract(contract)).module()


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the generated file is stale")
    args = parser.parse_args(argv)
    source = render()
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != source:
            print(f"{OUTPUT.relative_to(REPO_ROOT)} is stale: run python scripts/generate_models.py", file=sys.stderr)
            return 1
        return generate_clients.main(["--check"])
    OUTPUT.write_text(source, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(REPO_ROOT)}")
    return generate_clients.main([])


if __name__ == "__main__":
    sys.exit(main())
