"""Python client for Cairn, a persistent memory for AI agents.

    from cairn_memory import Cairn
    c = Cairn("http://localhost:7878", api_key=KEY)
    c.remember("staging runs on a Hetzner box", type="fact", project="atlas")
    print(c.recall("where is staging?").results[0].content)
"""

from .client import AsyncCairn, Cairn
from .errors import (BadRequest, CairnError, Conflict, Forbidden, NotFound, RateLimited,
                     TooLarge, Unauthenticated, Unavailable)
from .models import (Activity, Chain, Consolidation, Context, Conversation, ConversationStats,
                     ConversationTree, CreatedKey, ForgetResult, History, ImportReport,
                     IngestResult, Key, LogResult, Memory, Page, RecallHit, RecallResult, Receipt,
                     RememberResult, Similar, SimilarResult, Slot, SlotPage, SlotSave, Stats,
                     TagResult, TranscriptReport, Version, Window)

__all__ = [
    "Cairn", "AsyncCairn",
    "CairnError", "BadRequest", "Unauthenticated", "Forbidden", "NotFound", "Conflict",
    "TooLarge", "RateLimited", "Unavailable",
    "Memory", "RecallHit", "RecallResult", "RememberResult", "Similar", "Page",
    "ForgetResult", "Stats", "Context", "ImportReport", "History", "Version", "Receipt",
    "TagResult", "Chain", "SimilarResult", "Activity", "IngestResult", "Window", "Conversation",
    "ConversationTree", "ConversationStats", "TranscriptReport", "LogResult", "Slot", "SlotPage",
    "SlotSave", "Consolidation", "CreatedKey", "Key",
]
