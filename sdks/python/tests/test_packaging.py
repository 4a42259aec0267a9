"""guard-sdk as a user receives it: the wheel's contents and metadata, an import from the installed
wheel (not from this source tree), and source that Python 3.9 accepts."""

from __future__ import annotations

import ast
import email
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import List

import pytest
from conftest import SDK_ROOT

import guard

SOURCES = sorted((SDK_ROOT / "guard").glob("*.py"))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import hatchling.build

    out = tmp_path_factory.mktemp("dist")
    cwd = os.getcwd()
    os.chdir(SDK_ROOT)  # the PEP 517 hooks build the project in the working directory
    try:
        name = hatchling.build.build_wheel(str(out))
    finally:
        os.chdir(cwd)
    return out / name


def test_the_wheel_ships_the_package_and_its_type_marker_only(wheel: Path) -> None:
    assert wheel.name == f"guard_sdk-{guard.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    package = sorted(name for name in names if name.startswith("guard/"))
    assert "guard/py.typed" in package
    assert sorted(f"guard/{path.name}" for path in SOURCES) == sorted(n for n in package if n.endswith(".py"))
    assert not [name for name in names if name.startswith(("tests/", "scripts/")) or "conformance" in name]


def test_the_wheel_metadata(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        [metadata_name] = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = email.message_from_bytes(archive.read(metadata_name))
    assert metadata["Name"] == "guard-sdk"
    assert metadata["Version"] == guard.__version__
    assert metadata["Requires-Python"] == ">=3.9"
    runtime = [req for req in metadata.get_all("Requires-Dist") or [] if "extra ==" not in req]
    assert [req.split(">")[0].split("<")[0].strip() for req in runtime] == ["httpx"], "httpx is the one dependency"
    assert metadata["License-Expression"] == "MIT" or metadata["License"] == "MIT"


def test_the_installed_wheel_imports_and_works(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(target), str(wheel)],
        check=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    program = (
        "import pathlib, guard\n"
        "location = pathlib.Path(guard.__file__).parent\n"
        "assert (location / 'py.typed').is_file()\n"
        "with guard.GuardClient('https://guard.example.com', api_key='k') as client:\n"
        "    pass\n"
        "assert client.is_closed\n"
        "print(location)\n"
    )
    # Run from an empty directory so this source tree is not on the path; the wheel comes first.
    result = subprocess.run(
        [sys.executable, "-c", program],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(target)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(result.stdout.strip()) == target / "guard"


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: path.name)
def test_source_is_python_3_9(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    # Rejects syntax newer than 3.9 (match, parenthesised context managers, except*, ...).
    tree = ast.parse(source, filename=str(path), feature_version=(3, 9))
    # Annotations stay strings at runtime, so `X | None` in one could not break 3.9; everything
    # evaluated at runtime (TypedDict(...) calls, defaults) uses typing.Optional and friends.
    future = [
        node
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and any(alias.name == "annotations" for alias in node.names)
    ]
    assert future, f"{path.name} lacks `from __future__ import annotations`"
    offenders: List[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "TypedDict":
            for value in ast.walk(node):
                if isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr):
                    offenders.append(ast.unparse(value) if hasattr(ast, "unparse") else "|")
    assert not offenders, f"PEP 604 unions evaluated at runtime: {offenders}"
