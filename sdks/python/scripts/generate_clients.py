"""Writes guard/_methods.py, the methods of both clients, from the operations table guard/_operations.py.

    python scripts/generate_clients.py           # rewrite guard/_methods.py
    python scripts/generate_clients.py --check   # exit 1 if guard/_methods.py is stale

``scripts/generate_models.py`` runs this too, after the models: a method's return type is the
contract's (``RESPONSE_TYPES`` in guard/_models.py). The generated file is committed, so type
checkers and IDEs see every method as written; tests/test_generated_code.py renders it again in
memory and fails when it differs.

Each operation becomes two explicit methods, one on ``SyncMethods`` (the base of ``GuardClient``)
and one on ``AsyncMethods`` (the base of ``AsyncGuardClient``), with the same signature and
docstring. A method only gathers its arguments by name and hands them to ``_call`` with the
operation's name; everything else (where each argument goes, credentials, headers, idempotency keys,
retries) is read from the table at run time by code the two clients share.

The layout is the one ``ruff format`` keeps: a statement on one line when it fits in 120 columns,
otherwise one item per line with a trailing comma.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, List, Optional, Set

SDK_ROOT = Path(__file__).resolve().parent.parent
REPO_ROOT = SDK_ROOT.parent.parent
OUTPUT = SDK_ROOT / "guard" / "_methods.py"
LINE_LENGTH = 120

TYPING_NAMES = ("Any", "AsyncIterator", "Dict", "Iterator", "List", "Optional", "Sequence", "Union")

# The credential groups, in the order the methods appear (and the README lists them).
SECTIONS = (
    ("none", "public (no credential)"),
    ("apiKey", "service API key"),
    ("accessToken", "principal access token"),
)

HEADER = '''"""The methods of GuardClient and AsyncGuardClient, generated from guard/_operations.py by
scripts/generate_clients.py. Do not edit: change the table and run the generator (a test fails while
this file is stale).

Each method gathers its arguments by name and hands them to ``_call`` with its operation's name; the
table says where each one goes. The two classes differ only in ``async``/``await``.
"""
'''


def load_module(name: str, path: Path) -> ModuleType:
    """A module of the package loaded from its file alone: the generator must run even when the
    package cannot be imported (say, because the file it is about to write is broken)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def _fits(line: str) -> bool:
    return len(line) <= LINE_LENGTH


def _joined(opening: str, items: List[str], closing: str, indent: str) -> List[str]:
    """``opening + items + closing`` on one line if it fits, else one item per line."""
    one_line = f"{indent}{opening}{', '.join(items)}{closing}"
    if _fits(one_line):
        return [one_line]
    inner = indent + "    "
    return [f"{indent}{opening}", *[f"{inner}{item}," for item in items], f"{indent}{closing}"]


def _docstring(text: str, indent: str) -> List[str]:
    lines = text.split("\n")
    out = [f'{indent}"""{lines[0]}']
    out += [f"{indent}{line}" if line else "" for line in lines[1:]]
    out[-1] += '"""'
    return out


def _method(operation: Any, return_type: str, is_async: bool) -> List[str]:
    indent = "    "
    body_indent = indent * 2
    parameters = ["self"]
    positional = [param for param in operation.params if param.positional]
    keyword = [param for param in operation.params if not param.positional]
    for param in positional:
        parameters.append(f"{param.name}: {param.annotation}")
    parameters.append("*")
    for param in keyword:
        if param.optional:
            parameters.append(f"{param.name}: Optional[{param.annotation}] = None")
        else:
            parameters.append(f"{param.name}: {param.annotation}")
    if operation.creates:
        parameters.append("idempotency_key: Optional[str] = None")
    parameters.append("request_options: Optional[RequestOptions] = None")

    define = "async def" if is_async else "def"
    lines = _joined(f"{define} {operation.python_name}(", parameters, f") -> {return_type}:", indent)
    lines += _docstring(operation.doc, body_indent)

    entries = [f'"{param.name}": {param.name}' for param in operation.params]
    options = ["request_options", "idempotency_key"] if operation.creates else ["request_options"]
    call = "return await self._call(" if is_async else "return self._call("
    name = f'"{operation.method_name}"'
    arguments = [name, "{" + ", ".join(entries) + "}", *options]
    one_line = f"{body_indent}{call}{', '.join(arguments)})"
    if _fits(one_line):
        return [*lines, one_line]
    # One item per line, the arguments' dict itself split when it does not fit on its line.
    inner = body_indent + "    "
    return [
        *lines,
        f"{body_indent}{call}",
        f"{inner}{name},",
        *_joined("{", entries, "},", inner),
        *[f"{inner}{option}," for option in options],
        f"{body_indent})",
    ]


def _iterator(operation: Any, is_async: bool) -> List[str]:
    """``iter_*`` for a paged list: the list method's arguments (``limit`` is each page's size,
    ``cursor`` where to start), yielding every item of every page. Each page is an ordinary call of
    the list method, so retries and timeouts apply per page."""
    indent = "    "
    body_indent = indent * 2
    parameters = ["self"]
    for param in operation.params:
        if param.positional:
            parameters.append(f"{param.name}: {param.annotation}")
    parameters.append("*")
    for param in operation.params:
        if not param.positional:
            parameters.append(f"{param.name}: Optional[{param.annotation}] = None")
    parameters.append("request_options: Optional[RequestOptions] = None")
    item = operation.item_type
    returns = f"AsyncIterator[{item}]" if is_async else f"Iterator[{item}]"
    define = "async def" if is_async else "def"
    lines = _joined(f"{define} {operation.iterator_name}(", parameters, f") -> {returns}:", indent)
    doc = (
        f"Every item of :meth:`{operation.python_name}`, page after page (``limit`` is the page size,\n"
        "``cursor`` a ``nextCursor`` to start from). Each page is one request, retried on its own."
    )
    lines += _docstring(doc, body_indent)
    arguments = [f"{param.name}={param.name}" if not param.positional else param.name for param in operation.params]
    arguments = [argument.replace("cursor=cursor", "cursor=page_cursor") for argument in arguments]
    arguments.append("request_options=request_options")
    wait = "await " if is_async else ""
    inner = body_indent + "    "
    lines += [f"{body_indent}page_cursor = cursor", f"{body_indent}while True:"]
    lines += _joined(f"page = {wait}self.{operation.python_name}(", arguments, ")", inner)
    if is_async:  # an async generator has no `yield from`
        lines += [f'{inner}for item in page["{operation.pages}"]:', f"{inner}    yield item"]
    else:
        lines += [f'{inner}yield from page["{operation.pages}"]']
    lines += [
        f'{inner}page_cursor = page.get("nextCursor")',
        f"{inner}if page_cursor is None:",
        f"{inner}    return",
    ]
    return lines


def _class(name: str, client: str, operations: List[Any], response_types: Dict[str, str], is_async: bool) -> List[str]:
    define = "async def" if is_async else "def"
    wait = "await " if is_async else ""
    lines = [
        f"class {name}(ClientCore):",
        f'    """The operations of :class:`guard.{client}`, one method each."""',
        "",
        f"    {define} _send(self, call: PreparedCall) -> Any:",
        f'        """Send ``call``, with retries. {client} implements it."""',
        "        raise NotImplementedError",
        "",
        f"    {define} _call(",
        "        self,",
        "        method_name: str,",
        "        arguments: Dict[str, Any],",
        "        request_options: Optional[RequestOptions],",
        "        idempotency_key: Optional[str] = None,",
        "    ) -> Any:",
        f"        return {wait}self._send(self._prepare(method_name, arguments, request_options, idempotency_key))",
    ]
    for credential, title in SECTIONS:
        group = [operation for operation in operations if operation.credential == credential]
        if not group:
            continue
        lines += ["", f"    # ----- {title} ".ljust(100, "-")]
        for operation in group:
            lines += ["", *_method(operation, response_types[operation.operation_id], is_async)]
            if operation.pages:
                lines += ["", *_iterator(operation, is_async)]
    return lines


def _names(annotations: List[str]) -> Set[str]:
    return {name for text in annotations for name in re.findall(r"[A-Za-z_]\w*", text)}


def render() -> str:
    operations = list(load_module("_guard_operations", SDK_ROOT / "guard" / "_operations.py").OPERATIONS.values())
    models = load_module("_guard_models", SDK_ROOT / "guard" / "_models.py")
    response_types: Dict[str, str] = models.RESPONSE_TYPES
    missing = [operation.operation_id for operation in operations if operation.operation_id not in response_types]
    if missing:
        raise SystemExit(f"no response type for {', '.join(missing)}: run python scripts/generate_models.py")
    covered = {credential for credential, _ in SECTIONS}
    stray = [operation.method_name for operation in operations if operation.credential not in covered]
    if stray:
        raise SystemExit(f"unknown credential on {', '.join(stray)}")

    annotations = [response_types[operation.operation_id] for operation in operations]
    annotations += [param.annotation for operation in operations for param in operation.params]
    annotations += [operation.item_type for operation in operations if operation.pages]
    used = _names(annotations)
    model_names = sorted(used & set(models.__all__))
    iterators = {"AsyncIterator", "Iterator"} if any(operation.pages for operation in operations) else set()
    typing_names = sorted({"Any", "Dict", "Optional"} | iterators | (used & set(TYPING_NAMES)))

    lines = [
        HEADER,
        "from __future__ import annotations",
        "",
        f"from typing import {', '.join(typing_names)}",
        "",
        "from ._base import ClientCore, PreparedCall",
        # One name per line, which ruff format keeps because of the trailing comma.
        "from ._models import (",
        *[f"    {name}," for name in model_names],
        ")",
        "from ._options import RequestOptions",
        "",
        '__all__ = ["AsyncMethods", "SyncMethods"]',
        "",
        "",
        *_class("SyncMethods", "GuardClient", operations, response_types, is_async=False),
        "",
        "",
        *_class("AsyncMethods", "AsyncGuardClient", operations, response_types, is_async=True),
    ]
    return "\n".join(lines) + "\n"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the generated file is stale")
    args = parser.parse_args(argv)
    source = render()
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != source:
            print(f"{OUTPUT.relative_to(REPO_ROOT)} is stale: run python scripts/generate_clients.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(source, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
