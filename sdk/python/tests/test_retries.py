"""Retries of 429 are bounded: in number, and in how long each waits."""

from __future__ import annotations

import time

import httpx
import pytest

from cairn_memory import Cairn, RateLimited

from conftest import Server


def test_a_long_retry_after_is_capped_and_retries_are_counted() -> None:
    # One write a minute: the second write is refused with Retry-After ≈ 60 s.
    s = Server("--rate-writes", "1")
    key = s.key("alice", "write")
    s.start()
    try:
        calls = []
        http = httpx.Client(base_url=s.url, headers={"Authorization": f"Bearer {key}"},
                            event_hooks={"request": [calls.append]})
        with Cairn(s.url, retries=2, max_retry_delay=0.1, http=http) as c:
            c.remember("the one write of this minute")
            start = time.monotonic()
            with pytest.raises(RateLimited) as e:
                c.remember("over the limit")
            assert len(calls) == 1 + 3, "the first write, then a try and two retries"
            assert time.monotonic() - start < 5, "60 s of Retry-After were capped"
            assert e.value.retry_after >= 1
    finally:
        s.stop()
