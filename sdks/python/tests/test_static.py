"""Lint, format and type-check as part of the test run, so style never becomes a review topic.
Configuration: ``[tool.ruff]`` and ``[tool.mypy]`` in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys

from conftest import SDK_ROOT

PATHS = ["guard", "tests", "scripts", "conformance_adapter.py"]


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *command], cwd=SDK_ROOT, capture_output=True, text=True)


def test_ruff_lint() -> None:
    result = run("ruff", "check", "--no-cache", *PATHS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = run("ruff", "format", "--check", "--no-cache", *PATHS)
    assert result.returncode == 0, f"run `ruff format` in sdks/python\n{result.stdout}{result.stderr}"


def test_mypy_strict() -> None:
    result = run("mypy", "--no-incremental", "--cache-dir", "/dev/null")
    assert result.returncode == 0, result.stdout + result.stderr
