"""docs/INTEGRATIONS.md's Python examples run as written, against the live
server (its address put in place of the default one), each in a tenant of
its own; what each prints is checked."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest
from conftest import new_key

DOC = Path(__file__).resolve().parents[1] / "docs" / "INTEGRATIONS.md"

#: What each section's example must print.
EXPECTED = {
    "LangGraph": ["staging runs on a Hetzner box in Helsinki", "[('memories', 'ada')]"],
    "LangChain": ["We deploy atlas on Fridays after the standup", "['human', 'ai']"],
    "LlamaIndex": ["True Staging runs on a Hetzner box in Helsinki", "<cairn>",
                   "- Staging runs on a Hetzner box in Helsinki"],
    "OpenAI Agents SDK": ["(fact) Staging runs on a Hetzner box in Helsinki"],
}


def example(section: str) -> str:
    for part in re.split(r"^## ", DOC.read_text(), flags=re.M):
        if part.startswith(section + "\n"):
            block = re.search(r"```python\n(.*?)```", part, re.S)
            assert block, f"a ```python block under ## {section}"
            return block.group(1)
    raise AssertionError(f"no ## {section} in {DOC}")


@pytest.mark.parametrize("section", sorted(EXPECTED))
def test_the_example_runs(section: str, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CAIRN_API_KEY", new_key())
    code = example(section).replace("http://127.0.0.1:7878", url)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"INTEGRATIONS.md ({section})", "exec"), {"__name__": "example"})
    printed = out.getvalue()
    for want in EXPECTED[section]:
        assert want in printed, f"{section}: {want!r} not in {printed!r}"
    assert os.environ["CAIRN_API_KEY"]
