"""docs/SDK.md's Python example runs as written, against a live server."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[3] / "docs" / "SDK.md"


def test_the_python_example_runs(server) -> None:
    block = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert block, "a ```python block"
    code = block.group(1).replace("http://127.0.0.1:7878", server.url)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {"KEY": server.key("docs", "write")})
    printed = out.getvalue()
    assert "Hetzner" in printed and "Fridays" in printed
    assert "not_found" in printed, "the error example ran"
