"""The SDK against the live server's `/openapi.json`: a method for every
operation, and every typed field of the answers' models a field of their
schema."""

from __future__ import annotations

import httpx

from cairn_memory import AsyncCairn, Cairn, models

#: The method of each `operationId` (the same in `Cairn` and `AsyncCairn`).
OPERATIONS = {
    "remember": "remember", "list": "list", "forget_matching": "forget", "tag": "tag",
    "get": "get", "update": "update", "forget": "forget", "history": "history",
    "chain": "chain", "similar": "similar", "activity": "activity", "revert": "revert",
    "ingest": "ingest", "recall": "recall", "context": "context", "prompt": "prompt",
    "stats": "stats", "import": "import_jsonl", "export": "export_jsonl",
    "list_conversations": "list_conversations", "import_transcript": "import_transcript",
    "show_conversation": "conversation", "conversation_stats": "conversation_stats",
    "log_messages": "log_messages", "window": "window", "working_memory": "working_memory",
    "list_slots": "list_slots", "set_slot": "set_slot", "search_slots": "search_slots",
    "read_slot": "read_slot", "save_to_slot": "save_to_slot", "export_slot": "export_slot",
    "archive_slot": "archive_slot", "restore_slot": "restore_slot", "zero_mode": "zero_mode",
    "settings": "settings", "set_settings": "set_settings",
    "consolidate": "consolidate", "providers": "providers", "create_key": "create_key",
    "list_keys": "list_keys", "revoke_key": "revoke_key",
    "healthz": "health", "readyz": "ready", "metrics": "metrics",
}

#: The model of each schema the answers use.
MODELS = {
    models.TagResult: "TagOutput", models.Chain: "ChainOutput",
    models.SimilarResult: "SimilarOutput", models.Activity: "ActivityOutput",
    models.IngestResult: "IngestOutput", models.Window: "Window",
    models.Conversation: "ConversationView", models.ConversationTree: "ConversationTree",
    models.ConversationStats: "ConversationStats",
    models.TranscriptReport: "ConversationImportReport", models.LogResult: "LogOutput",
    models.Slot: "SlotView", models.SlotPage: "SlotRead", models.SlotSave: "SaveOutput",
    models.Consolidation: "ConsolidateOutput", models.CreatedKey: "CreatedKey",
    models.Key: "KeyView",
}


def _document(server) -> dict:
    return httpx.get(server.url + "/openapi.json").json()


def test_every_operation_has_a_method_in_both_clients(server) -> None:
    ops = [op["operationId"] for path in _document(server)["paths"].values()
           for op in path.values()]
    assert len(ops) >= 40
    assert sorted(set(ops) - set(OPERATIONS)) == [], "operations without a method"
    assert sorted(set(OPERATIONS) - set(ops)) == [], "methods of operations now gone"
    for method in OPERATIONS.values():
        assert callable(getattr(Cairn, method)), method
        assert callable(getattr(AsyncCairn, method)), method


def test_new_models_name_fields_of_the_servers_schemas(server) -> None:
    schemas = _document(server)["components"]["schemas"]
    for model, name in MODELS.items():
        properties = set(schemas[name]["properties"])
        missing = set(model.wire_fields()) - properties
        assert not missing, f"{model.__name__} names {missing}, not in {name}"
        required = set(schemas[name].get("required", [])) - set(model.wire_fields())
        assert not required, f"{model.__name__} lacks {required}, required in {name}"
