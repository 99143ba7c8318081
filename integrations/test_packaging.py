"""Each integration is a package pip can install: its pyproject names the
module it ships, and every requirement it declares is met by the versions
the tests ran with."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")
requirements = pytest.importorskip("packaging.requirements")

HERE = Path(__file__).resolve().parent
PACKAGES = ["langgraph", "langchain", "llamaindex", "openai-agents"]


@pytest.mark.parametrize("name", PACKAGES)
def test_pyproject(name: str) -> None:
    project = tomllib.loads((HERE / name / "pyproject.toml").read_text())
    (module,) = project["tool"]["setuptools"]["packages"]
    assert (HERE / name / module / "__init__.py").is_file()
    assert project["project"]["name"].startswith("cairn-")
    for spec in project["project"]["dependencies"]:
        req = requirements.Requirement(spec)
        if req.name == "cairn-memory":
            sdk = tomllib.loads((HERE.parent / "sdk" / "python" / "pyproject.toml").read_text())
            assert req.specifier.contains(sdk["project"]["version"]), spec
            continue
        installed = importlib.metadata.version(req.name)
        assert req.specifier.contains(installed), f"{name}: {spec}, but {installed} is installed"
