// Generated from cairn serve's /openapi.json by openapi-typescript: do not edit.
// Regenerate: npm run generate -- http://HOST:PORT/openapi.json

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process is up */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus text: requests, latency, rate-limit rejections; memories by tenant for an admin key */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The store answers and the embedding model is loaded */
        get: operations["readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/activity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The latest changes and deletions of the tenant's memories (who, when, what), newest first
         * @description Needs a key with the `read` role.
         */
        get: operations["activity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/consolidate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Summarise the tenant's oldest episode groups (past keep, default 10) into recallable summaries; their episodes leave default recall (dry_run writes nothing)
         * @description Needs a key with the `admin` role.
         */
        post: operations["consolidate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The session-start context within a token budget
         * @description Needs a key with the `read` role.
         */
        post: operations["context"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's conversations, oldest first
         * @description Needs a key with the `read` role.
         */
        get: operations["list_conversations"];
        put?: never;
        /**
         * Import a transcript (the body: JSON Lines, one message a line, streamed): counts, topics started and each bad line's problem
         * @description Needs a key with the `write` role.
         */
        post: operations["import_transcript"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/conversations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A conversation with its topics (title, summary, entities) and their messages
         * @description Needs a key with the `read` role.
         */
        get: operations["show_conversation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/conversations/{id}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Exact token totals of a conversation, its sessions and its topics
         * @description Needs a key with the `read` role.
         */
        get: operations["conversation_stats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every memory as JSON Lines (streamed), in id order
         * @description Needs a key with the `read` role.
         */
        get: operations["export"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import JSON Lines (the body, streamed): counts and each bad line's problem; with progress=true, JSON Lines of progress ending in the report
         * @description Needs a key with the `write` role.
         */
        post: operations["import"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Turn raw text into memories: cleaned, redacted, chunked, scored, typed, stored or skipped; a receipt of every chunk (dry_run writes nothing)
         * @description Needs a key with the `write` role.
         */
        post: operations["ingest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * API keys, oldest first (never their secrets)
         * @description Needs a key with the `admin` role.
         */
        get: operations["list_keys"];
        put?: never;
        /**
         * Make an API key (shown once)
         * @description Needs a key with the `admin` role.
         */
        post: operations["create_key"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description Needs a key with the `admin` role.
         */
        delete: operations["revoke_key"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A page of memories matching the filters, with next_cursor
         * @description Needs a key with the `read` role.
         */
        get: operations["list"];
        put?: never;
        /**
         * Remember a memory: 201 when created, 200 when merged into a near-duplicate
         * @description Needs a key with the `write` role.
         */
        post: operations["remember"];
        /**
         * Forget every memory of a selection (a dry run unless confirm=true)
         * @description Needs a key with the `write` role.
         */
        delete: operations["forget_matching"];
        options?: never;
        head?: never;
        /**
         * Add and remove tags on many memories at once (one transaction; one bad id changes nothing)
         * @description Needs a key with the `write` role.
         */
        patch: operations["tag"];
        trace?: never;
    };
    "/v1/memories/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One memory by id or unique prefix (counts as an access)
         * @description Needs a key with the `read` role.
         */
        get: operations["get"];
        put?: never;
        post?: never;
        /**
         * Forget one memory
         * @description Needs a key with the `write` role.
         */
        delete: operations["forget"];
        options?: never;
        head?: never;
        /**
         * Change a memory's content or fields
         * @description Needs a key with the `write` role.
         */
        patch: operations["update"];
        trace?: never;
    };
    "/v1/memories/{id}/chain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A memory's whole supersede chain, oldest first, at most 50 each way
         * @description Needs a key with the `read` role.
         */
        get: operations["chain"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every version of a memory (who, when, why), or a forgotten one's deletion receipt
         * @description Needs a key with the `read` role.
         */
        get: operations["history"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{id}/revert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Restore an earlier version of a memory as a new version
         * @description Needs a key with the `write` role.
         */
        post: operations["revert"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{id}/similar": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A memory's nearest memories by meaning, with their similarity and whether they may contradict it (not counted as an access)
         * @description Needs a key with the `read` role.
         */
        get: operations["similar"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log conversation messages in order: where each went and its importance (202 when some are kept pending for the embedding endpoint)
         * @description Needs a key with the `write` role.
         */
        post: operations["log_messages"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/prompt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The memory block of a prompt about a query: rules and procedures first, then by relevance, within a token budget
         * @description Needs a key with the `read` role.
         */
        post: operations["prompt"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The chat model and embedder in use; with check=true, whether each answers
         * @description Needs a key with the `admin` role.
         */
        get: operations["providers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/recall": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Memories for a query, best first, within a token budget
         * @description Needs a key with the `read` role.
         */
        post: operations["recall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/window": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The context an LLM call of the session should get for a new message, within a token budget
         * @description Needs a key with the `read` role.
         */
        post: operations["window"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/working-memory": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The rules to follow and the session's latest messages
         * @description Needs a key with the `read` role.
         */
        get: operations["working_memory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's settings (redact_personal: whether e-mail addresses and phone numbers are redacted; conflicts: the conflict policy of writes that name none)
         * @description Needs a key with the `read` role.
         */
        get: operations["settings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change some of the tenant's settings; answers them all
         * @description Needs a key with the `admin` role.
         */
        patch: operations["set_settings"];
        trace?: never;
    };
    "/v1/slot-search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Search slots' entries (hybrid recall restricted to slots by name, group and tags), each result with the query's words it contains marked in a snippet
         * @description Needs a key with the `read` role.
         */
        post: operations["search_slots"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/slots": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's slots (memcord), by priority then name, with their entries' counts
         * @description Needs a key with the `read` role.
         */
        get: operations["list_slots"];
        put?: never;
        /**
         * Make a slot, or change its description, tags, group, priority or name
         * @description Needs a key with the `write` role.
         */
        post: operations["set_slot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/slots/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A slot and a page of its entries, oldest first
         * @description Needs a key with the `read` role.
         */
        get: operations["read_slot"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/slots/{name}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Archive a slot: its entries leave default recall
         * @description Needs a key with the `write` role.
         */
        post: operations["archive_slot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/slots/{name}/entries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Append an entry (or, with progress, a summary: by the chat model when configured, else extractive) to a slot; refused in zero mode
         * @description Needs a key with the `write` role.
         */
        post: operations["save_to_slot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/slots/{name}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A slot as memcord's Markdown, plain text or JSON
         * @description Needs a key with the `read` role.
         */
        get: operations["export_slot"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/slots/{name}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Restore an archived slot into default recall, unchanged
         * @description Needs a key with the `write` role.
         */
        post: operations["restore_slot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Counts of the tenant's memories
         * @description Needs a key with the `read` role.
         */
        get: operations["stats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/zero-mode": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Zero mode on or off, for every slot or one: while on, every slot save is refused
         * @description Needs a key with the `write` role.
         */
        put: operations["zero_mode"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description One change to a memory, or its deletion. */
        ActivityEntry: {
            /** @description Who: an API key's id, `local` or `system`. */
            actor: string;
            /** @description When (RFC 3339). */
            at: string;
            /**
             * @description `created`, `imported`, `updated`, `deduplicated`, `superseded`,
             *     `reverted`, or `deleted`.
             */
            change: string;
            /** @description The memory's text after the change (none for a deletion). */
            content: string | null;
            /** @description The memory's full id. */
            id: string;
            /** @description Why, or which fields changed. */
            reason: string | null;
            /**
             * Format: uint32
             * @description The version the change made (none for a deletion).
             */
            version: number | null;
        };
        /** @description How much activity. */
        ActivityInput: {
            /**
             * Format: uint
             * @description Most entries, 1 to 100 (default 50).
             * @default null
             */
            limit?: number | null;
        };
        /** @description What happened to the caller's memories lately. */
        ActivityOutput: {
            /** @description Newest first. */
            entries: components["schemas"]["ActivityEntry"][];
        };
        /** @description Why a slot is archived. */
        ArchiveInput: {
            /**
             * @description Why.
             * @default null
             */
            reason?: string | null;
        };
        /**
         * @description A memory's supersede chain: what it replaced, and what replaced it,
         *     as far as each goes.
         */
        ChainOutput: {
            /** @description Oldest first: each memory is superseded by the next. */
            chain: components["schemas"]["MemoryView"][];
            /** @description Newer memories exist past the last shown. */
            more_after: boolean;
            /** @description Older memories exist past the first shown ([`MAX_CHAIN`] reached). */
            more_before: boolean;
            /**
             * Format: uint
             * @description The place of the memory asked for in `chain`.
             */
            position: number;
        };
        /** @description The chat model, if one is configured. */
        ChatStatus: {
            /** @description The protocol: `openai` (OpenAI-compatible) or `ollama`. */
            api: string;
            /** @description A title asked for, when checked. */
            check?: components["schemas"]["ProviderCheck"] | null;
            /** @description The model asked for. */
            model: string;
            /** @description The endpoint's base URL. */
            url: string;
        };
        /** @description One chunk of an ingest, and what became of it. */
        ChunkView: {
            /** @description `stored`, `merged`, `skipped` or `pending`. */
            decision: string;
            /**
             * Format: uint
             * @description End byte offset in the cleaned text.
             */
            end: number;
            /**
             * Format: uint
             * @description For a fact the chat model read from a chunk: that chunk's index.
             */
            fact_of?: number | null;
            /**
             * @description For a chunk whose facts were asked for: how they were made (`llm`,
             *     or `extractive` with the model's failure: no facts, the chunk kept).
             */
            facts?: components["schemas"]["Generated"] | null;
            /**
             * @description The memory it was stored as or merged into (none in a dry run or
             *     when skipped).
             */
            id: string | null;
            /**
             * Format: double
             * @description `0.6·novelty + 0.4·salience`.
             */
            importance: number;
            /**
             * Format: uint
             * @description Its place, from 0.
             */
            index: number;
            /** @description The most similar stored memory. */
            nearest: string | null;
            /**
             * Format: double
             * @description `1 −` its highest similarity to what is stored or came before it.
             */
            novelty: number;
            /** @description Why, in words. */
            reason: string;
            /** @description The routing rule that decided. */
            rule: string;
            /**
             * Format: double
             * @description How much it carries worth remembering.
             */
            salience: number;
            /**
             * @description The Markdown headings it sits under, outermost first (not part of
             *     its text).
             */
            section?: string[];
            /**
             * Format: float
             * @description Its similarity.
             */
            similarity: number | null;
            /**
             * Format: uint
             * @description Byte offsets in the cleaned text.
             */
            start: number;
            /** @description Its text (cleaned and redacted: what is stored). */
            text: string;
            /** @description The type's tier. */
            tier: components["schemas"]["Tier"];
            /**
             * Format: uint
             * @description Its exact tokens (cl100k_base).
             */
            tokens: number;
            /** @description The type it was routed to. */
            type: components["schemas"]["MemoryType"];
        };
        /** @description Which level of the hierarchy a record describes. */
        CollectionKind: "session" | "conversation" | "topic" | "slot" | "setting" | "pending";
        /** @description What archiving a slot compressed. */
        CompressionView: {
            /** @description What compressed the entries. */
            algorithm: string;
            /**
             * Format: uint
             * @description Entries kept compressed (those over 1 KiB that compress).
             */
            entries: number;
            /**
             * Format: uint64
             * @description Their texts' bytes.
             */
            original_bytes: number;
            /**
             * Format: double
             * @description Compressed over original (0.25: a quarter of the size).
             */
            ratio: number;
            /**
             * Format: uint64
             * @description Bytes saved.
             */
            saved_bytes: number;
            /**
             * Format: uint64
             * @description What they take compressed.
             */
            stored_bytes: number;
        };
        /** @description What was done to a conflicting memory. */
        ConflictAction: "flagged" | "contested" | "superseded";
        /** @description What a write does with an older memory it conflicts with. */
        ConflictPolicy: "flag" | "prefer-newer" | "supersede";
        /** @description An older memory a write conflicts with. */
        ConflictView: {
            /**
             * @description `flagged`, `contested` (its validity closed, ranked below the new
             *     one) or `superseded`.
             */
            action: components["schemas"]["ConflictAction"];
            /** @description Its text. */
            content: string;
            /** @description Full id. */
            id: string;
            /**
             * @description Why they conflict: the changed values, the correction cue, the
             *     shared subject.
             */
            reason: string;
            /** @description Short id. */
            short_id: string;
            /**
             * Format: float
             * @description Cosine similarity with the memory written.
             */
            similarity: number;
            /** @description Its type. */
            type: components["schemas"]["MemoryType"];
        };
        /** @description One group consolidated (or, dry, that would be). */
        ConsolidatedGroupView: {
            /** @description `session:ID` or `day:YYYY-MM-DD`. */
            group: string;
            /** @description The project (none: global). */
            project: string | null;
            /** @description Its episodes' ids, oldest first. */
            sources: string[];
            /**
             * @description How the summary was written: `llm` (with the model) or
             *     `extractive` (with the chat model's failure, if one was tried).
             */
            summarised_by: components["schemas"]["Generated"] | null;
            /** @description The summary's text (none in a dry run). */
            summary: string | null;
            /** @description The summary memory's id (none in a dry run). */
            summary_id: string | null;
        };
        /** @description What to consolidate, as front ends receive it. */
        ConsolidateInput: {
            /**
             * @description Say what would be consolidated without writing anything.
             * @default false
             */
            dry_run?: boolean;
            /**
             * @description Only global episodes.
             * @default false
             */
            global?: boolean;
            /**
             * Format: uint
             * @description Groups (sessions, else days) each project keeps (default 10).
             * @default null
             */
            keep?: number | null;
            /**
             * Format: uint
             * @description Most groups consolidated by this call (default 50; the rest wait
             *     for the next).
             * @default null
             */
            max_groups?: number | null;
            /**
             * @description Only this project's episodes (default: every project, each on its
             *     own).
             * @default null
             */
            project?: string | null;
        };
        /** @description What a consolidation did. */
        ConsolidateOutput: {
            /** @description Whether nothing was written. */
            dry_run: boolean;
            /**
             * Format: uint
             * @description Episodes consolidated (or that would be).
             */
            episodes: number;
            /** @description The groups, oldest first per project. */
            groups: components["schemas"]["ConsolidatedGroupView"][];
            /**
             * Format: uint
             * @description Groups over the limit left for the next run.
             */
            remaining: number;
            /** @description The tenant. */
            tenant: string;
        };
        /** @description What session-start context to assemble. */
        ContextInput: {
            /**
             * Format: uint
             * @description Token budget of the whole Markdown (default 2000, at least 50).
             * @default null
             */
            budget?: number | null;
            /**
             * @description The project (default: the caller's; global memories are always
             *     included).
             * @default null
             */
            project?: string | null;
            /**
             * @description What the work is about: memories matching it are included.
             * @default null
             */
            topic?: string | null;
        };
        /** @description One memory in a context. */
        ContextItem: {
            /**
             * Format: uint64
             * @description Times used.
             */
            access_count: number;
            /** @description Text (shortened past [`MAX_ITEM_CHARS`]). */
            content: string;
            /**
             * @description The current memory of a known conflict this one is the older side
             *     of (its value changed since: see [`crate::engine::ConflictPolicy`],
             *     whatever the policy); the line says it is outdated.
             */
            contested_by?: string | null;
            /** @description Id. */
            id: string;
            /** @description Project (`None` = global). */
            project: string | null;
            /** @description Why it is here. */
            reason: components["schemas"]["Reason"];
            /**
             * @description The older memories of known conflicts this one is the current side
             *     of; the line says it is current.
             */
            replaces?: string[];
            /** @description Shortest unique prefix of the id. */
            short_id: string;
            /** @description Tags. */
            tags: string[];
            /**
             * Format: uint
             * @description Tokens of its line in the Markdown output.
             */
            tokens: number;
            /** @description Type. */
            type: components["schemas"]["MemoryType"];
            /**
             * Format: int64
             * @description Last update.
             */
            updated_at: number;
        };
        /** @description An assembled context. */
        ContextPack: {
            /**
             * Format: uint
             * @description The budget.
             */
            budget: number;
            /** @description Included memories, in output order. */
            items: components["schemas"]["ContextItem"][];
            /** @description The rendered Markdown. */
            markdown: string;
            /**
             * Format: uint
             * @description Candidates left out for lack of budget.
             */
            omitted: number;
            /** @description The project asked for. */
            project: string | null;
            /**
             * Format: uint
             * @description Exact `cl100k_base` tokens of [`ContextPack::markdown`].
             */
            tokens: number;
            /** @description The topic asked for. */
            topic: string | null;
            /**
             * Format: uint
             * @description Memories visible from this scope.
             */
            visible: number;
        };
        /** @description What a transcript import did. */
        ConversationImportReport: {
            /**
             * @description The messages that change what an earlier message or memory said
             *     ("I moved to Denver"), each with the one it conflicts with.
             */
            conflicts?: components["schemas"]["MessageConflictView"][];
            /** @description Conversations the messages belong to. */
            conversations: string[];
            /** @description Bad lines: (line number, problem), skipped unless strict. */
            errors: [
                number,
                string
            ][];
            /**
             * Format: uint
             * @description Messages written.
             */
            imported: number;
            /**
             * Format: uint
             * @description Messages kept pending: the embedding endpoint failed (see
             *     `pending_reason`); they are logged when it answers.
             */
            pending: number;
            /** @description Why messages were kept pending, when some were. */
            pending_reason?: string | null;
            /** @description Secrets replaced before the messages were stored, by kind. */
            redacted?: {
                [key: string]: number;
            };
            /**
             * Format: uint
             * @description Messages whose id was already stored (left as they were).
             */
            skipped_existing: number;
            /**
             * Format: uint
             * @description Topics started.
             */
            topics_started: number;
        };
        /** @description Exact token totals of the caller's conversations. */
        ConversationStats: {
            /** @description How tokens were counted. */
            tokenizer: components["schemas"]["Tokenizer"];
            /** @description Every conversation, then every session, then every topic, each by id. */
            totals: components["schemas"]["ThreadTokens"][];
        };
        /** @description A conversation as a tree: its topics, each with its messages. */
        ConversationTree: {
            /** @description When it started (RFC 3339). */
            created_at: string;
            /** @description Its key entities: those of its topics, in topic order. */
            entities: string[];
            /** @description Its id. */
            id: string;
            /**
             * Format: uint
             * @description How many of its messages are stored (forgotten ones not counted).
             */
            messages: number;
            /** @description An outline: its topics' titles. */
            summary: string;
            /** @description Its title (its first topic's). */
            title: string;
            /** @description Its topics, oldest first. */
            topic_list: components["schemas"]["TopicView"][];
            /**
             * Format: uint
             * @description How many topics.
             */
            topics: number;
            /** @description Its latest message (RFC 3339). */
            updated_at: string;
        };
        /** @description A conversation as listed. */
        ConversationView: {
            /** @description When it started (RFC 3339). */
            created_at: string;
            /** @description Its id. */
            id: string;
            /**
             * Format: uint
             * @description How many of its messages are stored (forgotten ones not counted).
             */
            messages: number;
            /** @description An outline: its topics' titles. */
            summary: string;
            /** @description Its title (its first topic's). */
            title: string;
            /**
             * Format: uint
             * @description How many topics.
             */
            topics: number;
            /** @description Its latest message (RFC 3339). */
            updated_at: string;
        };
        /** @description A key just made: the only time its text is shown. */
        CreatedKey: {
            /** @description When it stops working (RFC 3339), if ever. */
            expires_at: string | null;
            /** @description The key's id. */
            id: string;
            /**
             * @description The key itself (`cairn_<id>_<secret>`): store it now, it is not
             *     kept.
             */
            key: string;
            /** @description The note for humans. */
            label: string | null;
            /** @description What it may do. */
            role: components["schemas"]["Role"];
            /** @description The tenant it acts for. */
            tenant: string;
        };
        /** @description A request for a new key. */
        CreateKeyInput: {
            /** @description How long the key works (`90d`, `12h`); forever when left out. */
            expires?: string | null;
            /** @description A note for humans. */
            label?: string | null;
            /** @description `read`, `write` or `admin`. */
            role: string;
            /**
             * @description The tenant the key acts for; when left out, the store's default
             *     tenant ([`DEFAULT_TENANT`](crate::DEFAULT_TENANT)), the one a local
             *     user (the CLI, `cairn mcp`, `serve --no-auth`) reads and writes.
             */
            tenant?: string | null;
        };
        /** @description How a memory merged into an existing one. */
        DedupView: {
            /**
             * Format: float
             * @description Cosine similarity with the memory merged into.
             */
            similarity: number;
            /**
             * Format: float
             * @description The threshold it met.
             */
            threshold: number;
        };
        /** @description The embedder in use. */
        EmbedderStatus: {
            /** @description One text embedded, when checked. */
            check?: components["schemas"]["ProviderCheck"] | null;
            /**
             * Format: uint
             * @description Its dimension.
             */
            dim: number;
            /**
             * @description Its model (`all-MiniLM-L6-v2` is the local one; `openai:…` or
             *     `ollama:…` an endpoint's).
             */
            model: string;
        };
        /** @description What to append to a slot. */
        EntryInput: {
            /**
             * @description Who wrote it.
             * @default null
             */
            author?: string | null;
            /**
             * @description Save an extractive summary of the text instead.
             * @default false
             */
            progress?: boolean;
            /**
             * Format: double
             * @description The share of the text a summary keeps, 0.05–0.5 (default 0.15).
             * @default null
             */
            ratio?: number | null;
            /**
             * @description The text.
             * @default
             */
            text?: string;
        };
        /** @description One entry of a slot as answered. */
        EntryView: {
            /** @description `manual_save` or `auto_summary`. */
            entry_type: string;
            /**
             * Format: uint
             * @description Its place in the slot, from 1 (oldest).
             */
            index: number;
            /** @description The memory. */
            memory: components["schemas"]["MemoryView"];
            /**
             * Format: uint
             * @description For a summary: characters of the text it summarises.
             */
            original_length?: number | null;
            /**
             * Format: uint
             * @description For a summary: its characters.
             */
            summary_length?: number | null;
        };
        Error: {
            error: {
                /** @description Stable and machine-readable: not_found, invalid_body, rate_limited, ... */
                code: string;
                /** @description More, where the error has it (the candidates of an ambiguous prefix, the sizes of a too-large content) */
                details: unknown;
                /** @description What is wrong, for humans */
                message: string;
            };
        };
        /** @description What to export. */
        ExportInput: {
            /**
             * @description Include each memory's embedding.
             * @default false
             */
            embeddings?: boolean;
        };
        /** @description What to forget: ids, or a selection (a dry run unless confirmed). */
        ForgetInput: {
            /**
             * @description Every project (and global memories).
             * @default false
             */
            all_projects?: boolean;
            /**
             * @description What was believed true at this time (RFC 3339 or YYYY-MM-DD): the
             *     memories written by then and valid then (`valid_to` after it),
             *     those superseded or contested since included.
             * @default null
             */
            as_of?: string | null;
            /**
             * @description With a selection: false (default) only counts what would be
             *     deleted; true deletes.
             * @default false
             */
            confirm?: boolean;
            /**
             * @description Only the messages of this conversation.
             * @default null
             */
            conversation?: string | null;
            /**
             * @description Global memories only.
             * @default false
             */
            global?: boolean;
            /**
             * @description Ids or unique prefixes. Give these, or a selection, not both.
             * @default []
             */
            ids?: string[];
            /**
             * @description Include the entries of archived slots (left out by default).
             * @default false
             */
            include_archived?: boolean;
            /**
             * @description Include episodes consolidated into summaries (each is superseded by
             *     its summary, so this includes superseded memories).
             * @default false
             */
            include_consolidated?: boolean;
            /**
             * @description Include memories whose TTL has passed.
             * @default false
             */
            include_expired?: boolean;
            /**
             * @description Include memories replaced by newer ones.
             * @default false
             */
            include_superseded?: boolean;
            /**
             * @description Only memories replaced by newer ones.
             * @default false
             */
            only_superseded?: boolean;
            /**
             * @description A project. Recall and list see its memories and global ones; forget
             *     deletes only its own.
             * @default null
             */
            project?: string | null;
            /**
             * @description Only the messages of this session.
             * @default null
             */
            session?: string | null;
            /**
             * @description Created at or after (RFC 3339 or YYYY-MM-DD).
             * @default null
             */
            since?: string | null;
            /**
             * @description Only the entries of these slots (archived ones included).
             * @default []
             */
            slots?: string[];
            /**
             * @description Any of these sources: where a memory came from (`manual`, `import`,
             *     `conversation`, `consolidation`, `import:mem0`…).
             * @default []
             */
            sources?: string[];
            /**
             * @description All of these tags.
             * @default []
             */
            tags?: string[];
            /**
             * @description Only the messages of this topic.
             * @default null
             */
            topic?: string | null;
            /**
             * @description Any of these types (empty: every type).
             * @default []
             */
            types?: string[];
            /**
             * @description Created before (RFC 3339 or YYYY-MM-DD).
             * @default null
             */
            until?: string | null;
            /**
             * @description Valid at this time (RFC 3339 or YYYY-MM-DD): what was true then
             *     (with `include_superseded`, what was true then and is not now).
             * @default null
             */
            valid_at?: string | null;
        };
        /** @description What a forget did (or, unconfirmed, would do). */
        ForgetOutput: {
            /**
             * Format: uint
             * @description How many were deleted.
             */
            forgotten: number;
            /** @description Their ids. */
            ids: string[];
            /** @description The scope a selection applied to: a project, `global` or `all`. */
            scope?: string | null;
            /**
             * Format: uint
             * @description Unconfirmed, with a selection: how many would be deleted.
             */
            would_forget?: number | null;
        };
        /** @description An export's format. */
        FormatInput: {
            /**
             * @description `md` (default), `txt` or `json`.
             * @default null
             */
            format?: string | null;
        };
        /**
         * @description How a generated text was made: by the chat model, or offline (with the
         *     reason the model was not used, when one was configured).
         */
        Generated: {
            /** @description `llm` or `extractive`. */
            by: string;
            /**
             * @description Why the configured chat model was not used (its last failure), when
             *     `by` is `extractive` although one is configured.
             */
            fallback?: string | null;
            /** @description The chat model, when `by` is `llm`. */
            model?: string | null;
        };
        /** @description The query's words found in a text. */
        Highlight: {
            /**
             * @description About `width` characters of the text around the first match, each
             *     match marked `**like this**`, `…` where the text was cut.
             */
            snippet: string;
            /**
             * @description Each matching word's byte range in the text, `[start, end)`, in
             *     order.
             */
            spans: number[][];
            /** @description The query terms the text contains, in the query's order. */
            terms: string[];
        };
        /** @description A memory's history. */
        HistoryOutput: {
            /** @description Once the memory is deleted: its receipt. */
            deleted: components["schemas"]["ReceiptRecord"] | null;
            /** @description The memory's full id. */
            id: string;
            /** @description Oldest first; empty once the memory is deleted. */
            versions: components["schemas"]["VersionView"][];
        };
        /** @description How an import goes. */
        ImportInput: {
            /**
             * @description Answer JSON Lines as the import goes: `{"progress": {"imported",
             *     "bytes", "bad_lines", "errors"}}` after the first transaction and
             *     then about once a second (`errors`: the bad lines met since the
             *     previous progress line, each `[line, problem]`), then `{"report":
             *     …}` or `{"error": …}` (default: one report when it is done).
             * @default false
             */
            progress?: boolean;
            /**
             * @description Refuse the whole body, writing nothing, if any line is bad
             *     (default: report bad lines and import the others).
             * @default false
             */
            strict?: boolean;
        };
        /** @description What an import did. */
        ImportReport: {
            /**
             * Format: uint
             * @description Records embedded during the import (the others carried embeddings).
             */
            embedded: number;
            /** @description Bad records: (line number, problem). Skipped unless strict. */
            errors: [
                number,
                string
            ][];
            /**
             * Format: uint
             * @description Memories written.
             */
            imported: number;
            /**
             * Format: uint
             * @description Records whose id was already in the store (left as they were).
             */
            skipped_existing: number;
        };
        /** @description What to ingest, as front ends receive it. */
        IngestInput: {
            /**
             * @description Answer the receipt without writing anything.
             * @default false
             */
            dry_run?: boolean;
            /**
             * @description Ask the configured chat model for each kept chunk's atomic facts
             *     and store them too (each its own receipt line, `fact_of` its
             *     chunk); without a model, or when it fails, the chunks alone are
             *     stored and their lines say why.
             * @default false
             */
            facts?: boolean;
            /**
             * @description Embed the text once, each chunk's vector pooled from its
             *     sentences': about 1.5× faster, slightly worse recall.
             * @default false
             */
            pooled_vectors?: boolean;
            /**
             * @description The project of the memories (default: the caller's, else global).
             * @default null
             */
            project?: string | null;
            /**
             * @description Redact secrets first (default true; false keeps the text as given).
             * @default null
             */
            redact?: boolean | null;
            /**
             * @description Where it came from (default `ingest`).
             * @default null
             */
            source?: string | null;
            /**
             * @description Tags of every memory stored.
             * @default []
             */
            tags?: string[];
            /**
             * @description The raw text: plain, Markdown or HTML (required).
             * @default
             */
            text?: string;
            /**
             * Format: double
             * @description Chunks of lower importance (0.6·novelty + 0.4·salience) are skipped
             *     (default 0.3).
             * @default null
             */
            threshold?: number | null;
        };
        /** @description What an ingest did (or, dry, would do). */
        IngestOutput: {
            /** @description Every chunk, in order. */
            chunks: components["schemas"]["ChunkView"][];
            /** @description Whether nothing was written. */
            dry_run: boolean;
            /**
             * Format: uint
             * @description Lines that are facts read from a chunk by the chat model.
             */
            facts: number;
            /**
             * Format: uint
             * @description Chunks merged into near-identical memories.
             */
            merged: number;
            /**
             * Format: uint
             * @description Chunks kept pending: the embedding endpoint failed (stored once it
             *     answers).
             */
            pending: number;
            /** @description Secrets replaced before chunking, by kind. */
            redacted: {
                [key: string]: number;
            };
            /**
             * Format: uint
             * @description Chunks skipped for low importance.
             */
            skipped: number;
            /**
             * Format: uint
             * @description Chunks stored as new memories.
             */
            stored: number;
            /**
             * @description The text's title (in each memory's `metadata.ingest.title`), when a
             *     chat model is configured.
             */
            title?: string | null;
            /**
             * @description How the title was made (`llm`, or `extractive` with the model's
             *     failure).
             */
            titled_by?: components["schemas"]["Generated"] | null;
        };
        /** @description Which keys to list. */
        KeyListInput: {
            /** @description Only this tenant's keys. */
            tenant?: string | null;
        };
        /** @description A stored key as listings show it (never its secret or hash). */
        KeyView: {
            /** @description When it was made (RFC 3339). */
            created_at: string;
            /** @description When it stops working, if ever. */
            expires_at: string | null;
            /** @description The key's id. */
            id: string;
            /** @description The note for humans. */
            label: string | null;
            /** @description When it was last used (to the minute), if ever. */
            last_used_at: string | null;
            /** @description When it was revoked. */
            revoked_at: string | null;
            /** @description What it may do. */
            role: components["schemas"]["Role"];
            /** @description `active`, `expired` or `revoked`. */
            status: string;
            /** @description The tenant it acts for. */
            tenant: string;
        };
        /** @description A candidate left out. */
        LeftOut: {
            /** @description Its id. */
            id: string;
            /** @description Its section. */
            section: components["schemas"]["Section"];
            /**
             * Format: uint
             * @description Tokens its piece would have taken (whole, or as admitted before
             *     being dropped).
             */
            tokens: number;
        };
        /** @description What to list. */
        ListInput: {
            /**
             * @description Every project (and global memories).
             * @default false
             */
            all_projects?: boolean;
            /**
             * @description What was believed true at this time (RFC 3339 or YYYY-MM-DD): the
             *     memories written by then and valid then (`valid_to` after it),
             *     those superseded or contested since included.
             * @default null
             */
            as_of?: string | null;
            /**
             * @description Only the messages of this conversation.
             * @default null
             */
            conversation?: string | null;
            /**
             * @description Continue after this page: the `next_cursor` of the previous one.
             * @default null
             */
            cursor?: string | null;
            /**
             * @description Global memories only.
             * @default false
             */
            global?: boolean;
            /**
             * @description Include the entries of archived slots (left out by default).
             * @default false
             */
            include_archived?: boolean;
            /**
             * @description Include episodes consolidated into summaries (each is superseded by
             *     its summary, so this includes superseded memories).
             * @default false
             */
            include_consolidated?: boolean;
            /**
             * @description Include memories whose TTL has passed.
             * @default false
             */
            include_expired?: boolean;
            /**
             * @description Include memories replaced by newer ones.
             * @default false
             */
            include_superseded?: boolean;
            /**
             * Format: uint
             * @description Page size, 1 to 1000 (default 20).
             * @default null
             */
            limit?: number | null;
            /**
             * Format: uint
             * @description Skip this many.
             * @default null
             */
            offset?: number | null;
            /**
             * @description Only memories replaced by newer ones.
             * @default false
             */
            only_superseded?: boolean;
            /**
             * @description A project. Recall and list see its memories and global ones; forget
             *     deletes only its own.
             * @default null
             */
            project?: string | null;
            /**
             * @description Only the messages of this session.
             * @default null
             */
            session?: string | null;
            /**
             * @description Created at or after (RFC 3339 or YYYY-MM-DD).
             * @default null
             */
            since?: string | null;
            /**
             * @description Only the entries of these slots (archived ones included).
             * @default []
             */
            slots?: string[];
            /**
             * @description The order (default newest first).
             * @default null
             */
            sort?: string | null;
            /**
             * @description Any of these sources: where a memory came from (`manual`, `import`,
             *     `conversation`, `consolidation`, `import:mem0`…).
             * @default []
             */
            sources?: string[];
            /**
             * @description All of these tags.
             * @default []
             */
            tags?: string[];
            /**
             * @description Only the messages of this topic.
             * @default null
             */
            topic?: string | null;
            /**
             * @description Any of these types (empty: every type).
             * @default []
             */
            types?: string[];
            /**
             * @description Created before (RFC 3339 or YYYY-MM-DD).
             * @default null
             */
            until?: string | null;
            /**
             * @description Valid at this time (RFC 3339 or YYYY-MM-DD): what was true then
             *     (with `include_superseded`, what was true then and is not now).
             * @default null
             */
            valid_at?: string | null;
        };
        /** @description A page of memories. */
        ListOutput: {
            /** @description The page. */
            memories: components["schemas"]["MemoryView"][];
            /**
             * @description Where the next page starts, if there is one: pass it as `cursor`.
             *     In id order it names the last id (pages stay right while memories
             *     are added, at a constant cost per page); in the other orders an
             *     offset.
             */
            next_cursor?: string | null;
            /**
             * Format: uint
             * @description Offset of the next page, if there is one.
             */
            next_offset?: number | null;
            /**
             * Format: uint
             * @description Offset of this page in the listing.
             */
            offset: number;
            /** @description The scope listed: a project name, `global` or `all`. */
            scope: string;
            /**
             * Format: uint
             * @description Memories matching the selection in all.
             */
            total: number;
        };
        /** @description One logged message, as answered. */
        LoggedView: {
            /**
             * @description The earlier memories it conflicts with (it changes what they said),
             *     why, and what the conflict policy did to each.
             */
            conflicts?: components["schemas"]["ConflictView"][];
            /** @description Its conversation. */
            conversation: string;
            /** @description Its memory's id. */
            id: string;
            /**
             * Format: double
             * @description Its importance, 0–1 (`0.6·novelty + 0.4·salience`).
             */
            importance: number;
            /** @description Whether it started that topic (the conversation changed subject). */
            new_topic: boolean;
            /** @description Its session. */
            session: string;
            /** @description Its topic. */
            topic: string;
        };
        /** @description Messages to log, as front ends receive them. */
        LogInput: {
            /**
             * @description The messages, in order (usually a user message and its reply), each
             *     as a line of a transcript import.
             */
            messages: components["schemas"]["MessageRecord"][];
            /**
             * @description The project of the messages (default: the caller's, else global).
             * @default null
             */
            project?: string | null;
        };
        /** @description What logging messages did. */
        LogOutput: {
            /** @description The messages logged, in order. */
            logged: components["schemas"]["LoggedView"][];
            /**
             * @description The messages kept pending, in order: the embedding endpoint failed,
             *     or earlier messages of their conversation wait for it. Each is
             *     logged in its conversation, with this id, when the endpoint answers
             *     (`cairn reindex --pending`, or `cairn serve` in the background);
             *     not recallable until then.
             */
            pending?: components["schemas"]["PendingView"][];
            /** @description Why messages were kept pending, when some were. */
            pending_reason?: string | null;
            /** @description Secrets replaced before the messages were stored, by kind. */
            redacted?: {
                [key: string]: number;
            };
        };
        /**
         * @description One memory as a JSON object: a line of `cairn export`, a line `cairn
         *     import` accepts (where only `content` is required), and the body of a
         *     recall result.
         */
        MemoryRecord: {
            /**
             * Format: uint64
             * @description Number of accesses.
             * @default null
             */
            access_count: number | null;
            /** @description The text (required). */
            content: string;
            /** @description The conversation of a message. */
            conversation?: string | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            created_at: string | null;
            /**
             * @description A precomputed embedding (import), or the stored one (export with
             *     embeddings).
             */
            embedding?: number[] | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            expires_at: string | null;
            /**
             * @description Full UUID; generated when absent on import.
             * @default null
             */
            id: string | null;
            /**
             * Format: double
             * @description 0–1.
             * @default null
             */
            importance: number | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            last_accessed_at: string | null;
            /**
             * @description A JSON object.
             * @default null
             */
            metadata: {
                [key: string]: unknown;
            } | null;
            /**
             * @description Project name; `null` = global.
             * @default null
             */
            project: string | null;
            /**
             * @description Text keyword search reads besides the content (a message's
             *     neighbours), never shown as what the memory says.
             */
            search_context?: string | null;
            /**
             * @description The session of a conversation message (given with `conversation`
             *     and `topic`, or not at all).
             */
            session?: string | null;
            /**
             * @description The slot (a named memory collection) the memory is an entry of:
             *     1–64 ASCII letters, digits, `-` or `_`. Absent: in no slot.
             */
            slot?: string | null;
            /**
             * @description Origin (`manual`, `import`, ...).
             * @default null
             */
            source: string | null;
            /**
             * @description Id of the memory that replaced this one.
             * @default null
             */
            superseded_by: string | null;
            /**
             * @description Id of the memory this one replaces.
             * @default null
             */
            supersedes: string | null;
            /**
             * @description Tags.
             * @default []
             */
            tags: string[];
            /** @description The topic of a message within its conversation. */
            topic?: string | null;
            /**
             * @description Memory type name (default `note`).
             * @default null
             */
            type: string | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            updated_at: string | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            valid_from: string | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            valid_to: string | null;
            /**
             * Format: double
             * @description Score multiplier.
             * @default null
             */
            weight: number | null;
        };
        /**
         * @description What kind of thing a memory is. Covers the vocabularies of the seed
         *     systems; each type belongs to one [`Tier`].
         */
        MemoryType: "fact" | "preference" | "rule" | "decision" | "feedback" | "context" | "episode" | "summary" | "procedure" | "note";
        /**
         * @description A memory as every front end returns it: the export record's fields
         *     (`project: null` = global; times RFC 3339) and the short id to pass back.
         */
        MemoryView: {
            /**
             * Format: uint64
             * @description Number of accesses.
             * @default null
             */
            access_count: number | null;
            /** @description The text (required). */
            content: string;
            /** @description The conversation of a message. */
            conversation?: string | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            created_at: string | null;
            /**
             * @description A precomputed embedding (import), or the stored one (export with
             *     embeddings).
             */
            embedding?: number[] | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            expires_at: string | null;
            /**
             * @description Full UUID; generated when absent on import.
             * @default null
             */
            id: string | null;
            /**
             * Format: double
             * @description 0–1.
             * @default null
             */
            importance: number | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            last_accessed_at: string | null;
            /**
             * @description A JSON object.
             * @default null
             */
            metadata: {
                [key: string]: unknown;
            } | null;
            /**
             * @description Project name; `null` = global.
             * @default null
             */
            project: string | null;
            /**
             * @description Text keyword search reads besides the content (a message's
             *     neighbours), never shown as what the memory says.
             */
            search_context?: string | null;
            /**
             * @description The session of a conversation message (given with `conversation`
             *     and `topic`, or not at all).
             */
            session?: string | null;
            /**
             * @description The shortest unique prefix of the id, at least 13 characters (the
             *     creation millisecond), so that it stays unique as memories are
             *     added: what to pass back.
             */
            short_id: string;
            /**
             * @description The slot (a named memory collection) the memory is an entry of:
             *     1–64 ASCII letters, digits, `-` or `_`. Absent: in no slot.
             */
            slot?: string | null;
            /**
             * @description Origin (`manual`, `import`, ...).
             * @default null
             */
            source: string | null;
            /**
             * @description Id of the memory that replaced this one.
             * @default null
             */
            superseded_by: string | null;
            /**
             * @description Id of the memory this one replaces.
             * @default null
             */
            supersedes: string | null;
            /**
             * @description Tags.
             * @default []
             */
            tags: string[];
            /** @description The topic of a message within its conversation. */
            topic?: string | null;
            /**
             * @description Memory type name (default `note`).
             * @default null
             */
            type: string | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            updated_at: string | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            valid_from: string | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            valid_to: string | null;
            /**
             * Format: double
             * @description Score multiplier.
             * @default null
             */
            weight: number | null;
        };
        /** @description A logged message that conflicts with an earlier memory. */
        MessageConflictView: {
            /**
             * @description `flagged`, `contested` (its validity closed, ranked below the new
             *     one) or `superseded`.
             */
            action: components["schemas"]["ConflictAction"];
            /** @description Its text. */
            content: string;
            /** @description Full id. */
            id: string;
            /** @description The message's memory id. */
            message: string;
            /**
             * @description Why they conflict: the changed values, the correction cue, the
             *     shared subject.
             */
            reason: string;
            /** @description Short id. */
            short_id: string;
            /**
             * Format: float
             * @description Cosine similarity with the memory written.
             */
            similarity: number;
            /** @description Its type. */
            type: components["schemas"]["MemoryType"];
        };
        /**
         * @description One message of a transcript: a line of `cairn conversation import`, the
         *     stable contract other tools write. Only `conversation`, `text` and one
         *     of `speaker` / `role` are required.
         */
        MessageRecord: {
            /**
             * @description When it was said (RFC 3339); default now.
             * @default null
             */
            at?: string | null;
            /** @description The conversation's id. */
            conversation: string;
            /**
             * @description The memory id to give it (a UUID): kept as given for the local user,
             *     the tenant's own id for that name for an API key (see SECURITY.md).
             * @default null
             */
            id?: string | null;
            /**
             * @description A JSON object of anything else.
             * @default null
             */
            metadata?: {
                [key: string]: unknown;
            } | null;
            /**
             * @description Or the role that said it (`user`, `assistant`, `system`).
             * @default null
             */
            role?: string | null;
            /**
             * @description The session's id; by default one per conversation per UTC day.
             * @default null
             */
            session?: string | null;
            /**
             * @description Who said it (a name).
             * @default null
             */
            speaker?: string | null;
            /** @description What was said. */
            text: string;
        };
        /** @description One message as shown in a conversation. */
        MessageView: {
            /** @description When (RFC 3339). */
            at: string;
            /** @description `Speaker: text`. */
            content: string;
            /** @description Its memory's id. */
            id: string;
            /**
             * Format: double
             * @description Importance, 0–1.
             */
            importance: number;
            /** @description Its session. */
            session: string;
        };
        /** @description One neighbour of a memory. */
        Neighbour: {
            /** @description Its text. */
            content: string;
            /** @description Full id. */
            id: string;
            /**
             * @description Related closely enough to contradict it (similarity in
             *     `[contradiction_threshold, duplicate_threshold)`): if one of the two
             *     is now wrong, supersede or forget it.
             */
            may_contradict: boolean;
            /** @description Short id (see [`MemoryView::short_id`]). */
            short_id: string;
            /**
             * Format: float
             * @description Cosine similarity with the memory written.
             */
            similarity: number;
            /** @description Its type. */
            type: components["schemas"]["MemoryType"];
        };
        /** @description A message kept pending, as answered. */
        PendingView: {
            /** @description Its conversation. */
            conversation: string;
            /** @description The memory id it will have. */
            id: string;
            /** @description Its session. */
            session: string;
        };
        /** @description What to build a prompt's memory block for, as front ends receive it. */
        PromptInput: {
            /**
             * Format: uint
             * @description Most tokens of the block (default 1,000).
             * @default null
             */
            budget?: number | null;
            /**
             * @description `vault` (default: the `<memory>` block, also called `memory`),
             *     `markdown` or `json`.
             * @default null
             */
            format?: string | null;
            /**
             * @description The project whose memories count, with global ones (default: the
             *     caller's, else global ones only).
             * @default null
             */
            project?: string | null;
            /**
             * @description What the prompt is about.
             * @default
             */
            query?: string;
            /**
             * @description The block in your own words: a header, a footer and a line per
             *     memory with `{text}`, `{tier}`, `{date}`, `{id}` (per tier if
             *     wanted); replaces `format`.
             * @default null
             */
            template?: components["schemas"]["PromptTemplate"] | null;
            /**
             * @description `cl100k_base` (default) or `o200k_base`.
             * @default null
             */
            tokenizer?: string | null;
        };
        /** @description A memory block's template (see the module doc). */
        PromptTemplate: {
            /**
             * @description After the lines (default `</memory>`; empty: none).
             * @default null
             */
            footer?: string | null;
            /**
             * @description Before the lines (default `<memory>`; empty: none).
             * @default null
             */
            header?: string | null;
            /**
             * @description A memory's line (default `[{tier}] {text}`, dated episodes
             *     `[{tier}] {date}: {text}`).
             * @default null
             */
            line?: string | null;
            /**
             * @description Lines for some tiers only, overriding `line`: `episodic`,
             *     `semantic`, `procedural`, `working`.
             * @default {}
             */
            lines?: {
                [key: string]: string;
            };
        };
        /** @description The outcome of a small request to a provider. */
        ProviderCheck: {
            /** @description Its failure, when not ok. */
            error?: string | null;
            /**
             * Format: uint64
             * @description How long it took, retries included, in milliseconds.
             */
            ms: number;
            /** @description Whether it answered usably. */
            ok: boolean;
        };
        /** @description Whether to check the providers. */
        ProvidersInput: {
            /**
             * @description Send each provider a small request to see that it answers.
             * @default false
             */
            check?: boolean;
        };
        /** @description The providers of an engine. */
        ProvidersOutput: {
            /** @description The chat model (none: summaries and titles are extractive). */
            chat: components["schemas"]["ChatStatus"] | null;
            /** @description The embedder. */
            embedder: components["schemas"]["EmbedderStatus"];
            /** @description The reranker of recall's best candidates (none: recall's own order). */
            reranker: string | null;
        };
        /** @description A page of a slot's entries. */
        ReadInput: {
            /**
             * Format: uint
             * @description At most this many.
             * @default null
             */
            limit?: number | null;
            /**
             * Format: uint
             * @description Skip this many entries (from the oldest).
             * @default 0
             */
            offset?: number;
            /**
             * @description Only the progress summaries.
             * @default false
             */
            summaries?: boolean;
        };
        /** @description Why a memory is in the context. */
        Reason: "match" | "rule" | "recent" | "frequent" | "stale";
        /** @description One recalled memory. */
        RecallHit: {
            /**
             * Format: uint64
             * @description Number of accesses.
             * @default null
             */
            access_count: number | null;
            /** @description The text (required). */
            content: string;
            /** @description The conversation of a message. */
            conversation?: string | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            created_at: string | null;
            /**
             * @description A precomputed embedding (import), or the stored one (export with
             *     embeddings).
             */
            embedding?: number[] | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            expires_at: string | null;
            /** @description Every factor of the score, when asked for. */
            explain?: components["schemas"]["ScoreBreakdown"] | null;
            /**
             * @description The query's words it contains, when asked for (none when it
             *     matched by meaning only).
             */
            highlight?: components["schemas"]["Highlight"] | null;
            /**
             * @description Full UUID; generated when absent on import.
             * @default null
             */
            id: string | null;
            /**
             * Format: double
             * @description 0–1.
             * @default null
             */
            importance: number | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            last_accessed_at: string | null;
            /**
             * @description How it matched: keyword, semantic, hybrid (both), temporal or
             *     importance.
             */
            match: components["schemas"]["SearchMode"];
            /**
             * @description A JSON object.
             * @default null
             */
            metadata: {
                [key: string]: unknown;
            } | null;
            /**
             * @description Project name; `null` = global.
             * @default null
             */
            project: string | null;
            /**
             * Format: double
             * @description How likely the memory is to answer the query, 0 to 1, from its own
             *     evidence (closeness of meaning, the query's words it contains and
             *     their rarity); absent when there was no query to judge it by.
             */
            relevance?: number | null;
            /**
             * Format: double
             * @description Final score, higher is better: orders the results, means nothing
             *     alone.
             */
            score: number;
            /**
             * @description Text keyword search reads besides the content (a message's
             *     neighbours), never shown as what the memory says.
             */
            search_context?: string | null;
            /**
             * @description The session of a conversation message (given with `conversation`
             *     and `topic`, or not at all).
             */
            session?: string | null;
            /**
             * @description The shortest unique prefix of the id, at least 13 characters (the
             *     creation millisecond), so that it stays unique as memories are
             *     added: what to pass back.
             */
            short_id: string;
            /**
             * @description The slot (a named memory collection) the memory is an entry of:
             *     1–64 ASCII letters, digits, `-` or `_`. Absent: in no slot.
             */
            slot?: string | null;
            /**
             * @description Origin (`manual`, `import`, ...).
             * @default null
             */
            source: string | null;
            /**
             * @description Id of the memory that replaced this one.
             * @default null
             */
            superseded_by: string | null;
            /**
             * @description Id of the memory this one replaces.
             * @default null
             */
            supersedes: string | null;
            /**
             * @description Tags.
             * @default []
             */
            tags: string[];
            /** @description The topic of a message within its conversation. */
            topic?: string | null;
            /**
             * @description Memory type name (default `note`).
             * @default null
             */
            type: string | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            updated_at: string | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            valid_from: string | null;
            /**
             * @description RFC 3339.
             * @default null
             */
            valid_to: string | null;
            /**
             * Format: double
             * @description Score multiplier.
             * @default null
             */
            weight: number | null;
        };
        /** @description What to recall. */
        RecallInput: {
            /**
             * @description Every project (and global memories).
             * @default false
             */
            all_projects?: boolean;
            /**
             * @description What was believed true at this time (RFC 3339 or YYYY-MM-DD): the
             *     memories written by then and valid then (`valid_to` after it),
             *     those superseded or contested since included.
             * @default null
             */
            as_of?: string | null;
            /**
             * Format: uint
             * @description Token budget (cl100k) for the answer's lines: results past it are
             *     left out and counted in `omitted`.
             * @default null
             */
            budget?: number | null;
            /**
             * @description Only the messages of this conversation.
             * @default null
             */
            conversation?: string | null;
            /**
             * @description Only memories naming this entity (a name, path, identifier…); also
             *     written in the query as `entity:Lisbon` or `entity:"New York"`.
             * @default null
             */
            entity?: string | null;
            /**
             * @description Include every factor of each score.
             * @default false
             */
            explain?: boolean;
            /**
             * @description Global memories only.
             * @default false
             */
            global?: boolean;
            /**
             * @description Include the query's words each result contains: the terms, their
             *     byte ranges and a snippet with each match marked `**so**`.
             * @default false
             */
            highlight?: boolean;
            /**
             * @description Include the entries of archived slots (left out by default).
             * @default false
             */
            include_archived?: boolean;
            /**
             * @description Include episodes consolidated into summaries (each is superseded by
             *     its summary, so this includes superseded memories).
             * @default false
             */
            include_consolidated?: boolean;
            /**
             * @description Include memories whose TTL has passed.
             * @default false
             */
            include_expired?: boolean;
            /**
             * @description Include memories replaced by newer ones.
             * @default false
             */
            include_superseded?: boolean;
            /**
             * Format: uint
             * @description Most results, 1 to 1000 (default 10).
             * @default null
             */
            limit?: number | null;
            /**
             * Format: double
             * @description Leave out results less relevant than this, 0 to 1 (the result's
             *     `relevance`); 0 returns every match. Default: the engine's floor
             *     ([`crate::rank::relevance::RELEVANCE_FLOOR`] unless configured).
             * @default null
             */
            min_relevance?: number | null;
            /**
             * @description How to match: `hybrid` (default), `keyword`, `semantic`,
             *     `temporal` (time words in the query become a time filter) or
             *     `importance` (most important first).
             * @default null
             */
            mode?: string | null;
            /**
             * @description Only memories replaced by newer ones.
             * @default false
             */
            only_superseded?: boolean;
            /**
             * @description How candidates are ranked: `cairn` (default: keyword and vector
             *     fused, then use, recency, scope and weight) or `vault` (Memory
             *     Vault AI's: the nearest by meaning of importance ≥ 0.2, scored
             *     0.8·similarity + 0.2·importance).
             * @default null
             */
            profile?: string | null;
            /**
             * @description A project. Recall and list see its memories and global ones; forget
             *     deletes only its own.
             * @default null
             */
            project?: string | null;
            /**
             * @description A question or keywords, in natural language.
             * @default
             */
            query?: string;
            /**
             * @description The time a temporal query's "yesterday" or "last week" is read
             *     against (RFC 3339 or YYYY-MM-DD; default now).
             * @default null
             */
            reference?: string | null;
            /**
             * @description Only the messages of this session.
             * @default null
             */
            session?: string | null;
            /**
             * @description Created at or after (RFC 3339 or YYYY-MM-DD).
             * @default null
             */
            since?: string | null;
            /**
             * @description Only the entries of these slots (archived ones included).
             * @default []
             */
            slots?: string[];
            /**
             * @description Any of these sources: where a memory came from (`manual`, `import`,
             *     `conversation`, `consolidation`, `import:mem0`…).
             * @default []
             */
            sources?: string[];
            /**
             * @description All of these tags.
             * @default []
             */
            tags?: string[];
            /**
             * @description Only the messages of this topic.
             * @default null
             */
            topic?: string | null;
            /**
             * @description Any of these types (empty: every type).
             * @default []
             */
            types?: string[];
            /**
             * @description Created before (RFC 3339 or YYYY-MM-DD).
             * @default null
             */
            until?: string | null;
            /**
             * @description Valid at this time (RFC 3339 or YYYY-MM-DD): what was true then
             *     (with `include_superseded`, what was true then and is not now).
             * @default null
             */
            valid_at?: string | null;
        };
        /** @description What a recall found. */
        RecallOutput: {
            /**
             * Format: uint
             * @description Matches left out to stay within the budget.
             */
            omitted: number;
            /**
             * @description How the reranking stage went, when a reranker is configured and
             *     was asked: `applied` false and the `failure` when it failed (the
             *     results then keep recall's own order).
             */
            rerank?: components["schemas"]["Reranking"] | null;
            /** @description Best first. */
            results: components["schemas"]["RecallHit"][];
            /** @description The scope searched: a project name, `global` or `all`. */
            scope: string;
            /**
             * Format: uint
             * @description Exact tokens (cl100k) of the results' lines.
             */
            tokens: number;
        };
        /**
         * @description What is left of a deleted memory, never its content: in history, and
         *     a line of an export (`{"deleted": {...}}`, after the memories), which
         *     an import skips.
         */
        ReceiptRecord: {
            /** @description Who deleted it: an API key's id, `local` or `system`. */
            actor: string;
            /** @description When it was deleted (RFC 3339). */
            deleted_at: string;
            /** @description The memory's id. */
            id: string;
            /** @description `forgotten`, or `expired` (its time to live ran out). */
            reason: string;
            /**
             * Format: uint
             * @description How many versions were erased with it.
             */
            versions: number;
        };
        /** @description What to remember. */
        RememberInput: {
            /**
             * @description What a conflict with an older memory does: `flag`, `prefer-newer`
             *     or `supersede` (default: the server's, `prefer-newer` unless
             *     configured).
             * @default null
             */
            conflicts?: string | null;
            /**
             * @description The text (at most 1 MiB).
             * @default
             */
            content?: string;
            /**
             * @description Merge into a near-identical memory instead of adding one (default
             *     true; a text that changes a number, version, date, amount, name,
             *     host, path, identifier or negation is never merged).
             * @default null
             */
            dedup?: boolean | null;
            /**
             * @description Store as a global memory (overrides every project default).
             * @default false
             */
            global?: boolean;
            /**
             * Format: double
             * @description 0–1 (default 0.5).
             * @default null
             */
            importance?: number | null;
            /**
             * @description Extra data; `null` values are dropped.
             * @default null
             */
            metadata?: {
                [key: string]: unknown;
            } | null;
            /**
             * @description Project (default: when superseding, the old memory's; else the
             *     caller's; else global).
             * @default null
             */
            project?: string | null;
            /**
             * @description Replace secrets and personal data (keys, tokens, passwords,
             *     emails, phone and card numbers, IBANs) with `[REDACTED:kind]`
             *     before anything is stored or embedded (default true, when the
             *     server redacts; false stores the text as given).
             * @default null
             */
            redact?: boolean | null;
            /**
             * @description Where it came from (default `manual`).
             * @default null
             */
            source?: string | null;
            /**
             * @description Id or unique prefix of the memory this one replaces.
             * @default null
             */
            supersedes?: string | null;
            /**
             * @description Tags (default: when superseding, the old memory's; else none).
             * @default null
             */
            tags?: string[] | null;
            /**
             * @description Time to live: `30m`, `24h`, `7d`, `2w`.
             * @default null
             */
            ttl?: string | null;
            /**
             * @description Type name (default `note`; when superseding, the old memory's).
             * @default null
             */
            type?: string | null;
        };
        /** @description What a remember did, and why. */
        RememberOutput: {
            /**
             * @description The older memories it conflicts with (the same subject with a
             *     changed value, or a correction), why, and what the conflict policy
             *     did to each.
             */
            conflicts: components["schemas"]["ConflictView"][];
            /** @description When deduplicated: how similar, against which threshold. */
            dedup?: components["schemas"]["DedupView"] | null;
            /** @description The memory written: new, or the near-identical one merged into. */
            id: string;
            /** @description The project it is stored in; `null` = global. */
            project: string | null;
            /** @description Secrets replaced before it was stored, by kind (`email`: 2, …). */
            redacted?: {
                [key: string]: number;
            };
            /** @description Its short id. */
            short_id: string;
            /**
             * @description Related memories (similarity 0.75–0.92) that may contradict it: if
             *     one is now wrong, supersede or forget it.
             */
            similar: components["schemas"]["SimilarView"][];
            /**
             * @description `created`, `deduplicated` (merged into an existing near-identical
             *     memory, whose id is kept: its text is replaced, tags and metadata
             *     merged), or `pending` (the embedding endpoint failed: the write is
             *     kept in the store and stored with this id once the endpoint
             *     answers; not recallable until then).
             */
            status: string;
            /** @description The memory it superseded (hidden from recall, kept for history). */
            superseded: string | null;
        };
        /**
         * @description How a recall's reranking stage went: which reranker was asked and, when
         *     it failed, why (the results then keep recall's own order). Answers carry
         *     it so that a failing reranker is seen, never silent.
         */
        Reranking: {
            /**
             * @description `true` when its order was taken; `false` when it failed and the
             *     results are in recall's own order.
             */
            applied: boolean;
            /** @description Its failure, when it failed. */
            failure?: string | null;
            /** @description The reranker ([`Reranker::name`]). */
            reranker: string;
        };
        /** @description Which version to restore. */
        RevertInput: {
            /**
             * Format: uint32
             * @description The version's number (see the memory's history).
             */
            version: number;
        };
        /** @description A memory after a revert. */
        RevertOutput: {
            /** @description The memory as it is now. */
            memory: components["schemas"]["MemoryView"];
            /**
             * Format: uint32
             * @description The version restored.
             */
            restored: number;
            /**
             * Format: uint32
             * @description The number of the new version the revert recorded.
             */
            version: number;
        };
        /** @description What a key may do. Each role includes the ones before it. */
        Role: "read" | "write" | "admin";
        /** @description What a save did. */
        SaveOutput: {
            /** @description The entry appended. */
            entry: components["schemas"]["EntryView"];
            /** @description The slot, after the save. */
            slot: components["schemas"]["SlotView"];
            /**
             * @description For a progress summary: whether the chat model or the extractive
             *     summariser wrote it, and why the model was not used if it failed.
             */
            summarised_by?: components["schemas"]["Generated"] | null;
        };
        /** @description Every factor of one result's final score, for `--explain`. */
        ScoreBreakdown: {
            /**
             * Format: uint
             * @description 1-based rank in the keyword (BM25) list, if the memory was in it.
             */
            bm25_rank: number | null;
            /**
             * Format: double
             * @description The raw BM25 score (higher is better), if in the keyword list.
             */
            bm25_score: number | null;
            /**
             * Format: double
             * @description [`access_boost`].
             */
            boost: number;
            /**
             * Format: double
             * @description Cosine similarity between query and memory, if in the vector list
             *     or judged for relevance with the query embedded.
             */
            cosine: number | null;
            /**
             * Format: double
             * @description [`recency_decay`] × [`staleness`] (the latter 1 unless configured).
             */
            decay: number;
            /**
             * Format: double
             * @description [`entity_boost`] (1 when off or nothing is shared).
             */
            entities: number;
            /**
             * Format: uint
             * @description 1-based rank in the feedback keyword list ([`feedback_terms`]), if
             *     the memory was in it.
             */
            feedback_rank: number | null;
            /** @description The query's terms the memory contains. */
            matched_terms?: string[];
            /**
             * Format: double
             * @description [`relevance::relevance`]: the probability (0–1) that the memory
             *     answers the query, from `cosine` and `term_share`; `None` when
             *     there was no query to judge it by (a listing).
             */
            relevance: number | null;
            /**
             * Format: double
             * @description [`relevance_factor`] (none when the score does not weigh
             *     relevance).
             */
            relevance_factor: number | null;
            /**
             * Format: double
             * @description The fused relevance score.
             */
            rrf: number;
            /**
             * Format: double
             * @description [`scope_weight`].
             */
            scope_weight: number;
            /**
             * Format: double
             * @description `rrf × boost × decay × scope_weight × weight × entities × time`.
             */
            score: number;
            /**
             * Format: double
             * @description [`relevance::term_share`]: the share of the query's information
             *     (its terms weighted by rarity) the memory's words cover.
             */
            term_share: number | null;
            /**
             * Format: double
             * @description [`time_match`] (1 when the query names no time).
             */
            time: number;
            /**
             * Format: double
             * @description [`relevance::weighted_unknown_share`]: the share of the query's
             *     information no memory in the store holds, weighed by the store's
             *     size (the same for every result of one query).
             */
            unknown_share?: number | null;
            /**
             * Format: uint
             * @description 1-based rank in the vector list, if the memory was in it.
             */
            vector_rank: number | null;
            /**
             * Format: double
             * @description The memory's own weight.
             */
            weight: number;
        };
        /** @description How recall finds and orders candidates (the match type). */
        SearchMode: "hybrid" | "keyword" | "semantic" | "temporal" | "importance";
        /** @description Where an item goes in the window, in output order. */
        Section: "procedural" | "working" | "history" | "long_term";
        /** @description Tokens spent on one section. */
        SectionTokens: {
            /**
             * Format: uint
             * @description Items in it.
             */
            items: number;
            /** @description The section. */
            section: components["schemas"]["Section"];
            /**
             * Format: uint
             * @description Tokens of its rendered block (heading and pieces) alone.
             */
            tokens: number;
        };
        /** @description The settings to change; a field left out keeps its value. */
        SettingsInput: {
            /**
             * @description The conflict policy of the tenant's writes that name none: `flag`,
             *     `prefer-newer`, `supersede`, or `default` to follow the server's
             *     again.
             * @default null
             */
            conflicts?: string | null;
            /**
             * @description Redact e-mail addresses and phone numbers from what is written
             *     from now on (what is stored stays as stored).
             * @default null
             */
            redact_personal?: boolean | null;
        };
        /** @description A tenant's settings, as every front end shows them. */
        SettingsView: {
            /**
             * @description The conflict policy the tenant's writes follow when they name none:
             *     the tenant's own, else the server's (`cairn.toml`, else `flag`).
             */
            conflicts: components["schemas"]["ConflictPolicy"];
            /** @description Whether `conflicts` is the tenant's own (false: the server's). */
            conflicts_set: boolean;
            /**
             * @description Whether e-mail addresses and phone numbers are redacted from what
             *     the tenant writes (default true). Keys, tokens, passwords, card
             *     numbers and IBANs are redacted whatever this says.
             */
            redact_personal: boolean;
            /** @description The tenant they belong to. */
            tenant: string;
        };
        /** @description How many neighbours. */
        SimilarInput: {
            /**
             * Format: uint
             * @description Most neighbours, 1 to 100 (default 10).
             * @default null
             */
            limit?: number | null;
        };
        /** @description A memory's nearest neighbours. */
        SimilarOutput: {
            /**
             * Format: float
             * @description The similarity from which two memories may contradict.
             */
            contradiction_threshold: number;
            /**
             * Format: float
             * @description The similarity from which a new memory merges into an old one.
             */
            duplicate_threshold: number;
            /** @description The memory's full id. */
            id: string;
            /** @description Most similar first; expired and superseded memories left out. */
            similar: components["schemas"]["Neighbour"][];
        };
        /** @description A stored memory similar to one just written. */
        SimilarView: {
            /** @description Its text. */
            content: string;
            /** @description Full id. */
            id: string;
            /** @description Short id (see [`MemoryView::short_id`]). */
            short_id: string;
            /**
             * Format: float
             * @description Cosine similarity with the memory written.
             */
            similarity: number;
            /** @description Its type. */
            type: components["schemas"]["MemoryType"];
        };
        /** @description What a slot is made with (or changed to). */
        SlotInput: {
            /**
             * @description Tags to add.
             * @default []
             */
            add_tags?: string[];
            /**
             * @description What it is for.
             * @default null
             */
            description?: string | null;
            /**
             * @description Its group path (`projects/alpha/dev`; empty: none).
             * @default null
             */
            group?: string | null;
            /**
             * @description Its name: letters, digits, `-` and `_`, 1–64 characters.
             * @default
             */
            name?: string;
            /**
             * Format: uint8
             * @description 1 (highest) to 5.
             * @default null
             */
            priority?: number | null;
            /**
             * @description Tags to remove.
             * @default []
             */
            remove_tags?: string[];
            /**
             * @description A new name: its entries follow, and their history records it.
             * @default null
             */
            rename?: string | null;
            /**
             * @description Tags (replace them all).
             * @default null
             */
            tags?: string[] | null;
        };
        /** @description Which slots to list. */
        SlotListInput: {
            /**
             * @description Only archived slots (the archive index).
             * @default false
             */
            archived_only?: boolean;
            /**
             * @description Only slots in this group or below it.
             * @default null
             */
            group?: string | null;
            /**
             * @description Archived slots too (only archived ones with `archived_only`).
             * @default false
             */
            include_archived?: boolean;
            /**
             * @description Only slots with all of these tags.
             * @default []
             */
            tags?: string[];
        };
        /** @description A slot with a page of its entries. */
        SlotRead: {
            /** @description The page of entries, oldest first. */
            entries: components["schemas"]["EntryView"][];
            /** @description The slot. */
            slot: components["schemas"]["SlotView"];
            /**
             * Format: uint
             * @description Entries in all.
             */
            total: number;
        };
        /** @description A search of slots' entries. */
        SlotSearchInput: {
            /**
             * @description Leave out slots with any of these tags.
             * @default []
             */
            exclude_tags?: string[];
            /**
             * @description Only slots in this group or below it.
             * @default null
             */
            group?: string | null;
            /**
             * @description Archived slots too.
             * @default false
             */
            include_archived?: boolean;
            /**
             * Format: uint
             * @description Most results, 1 to 1000 (default 10).
             * @default null
             */
            limit?: number | null;
            /**
             * @description The question or keywords.
             * @default
             */
            query?: string;
            /**
             * @description Only these slots (default: every slot the other filters admit).
             * @default []
             */
            slots?: string[];
            /**
             * @description Only slots with every one of these tags.
             * @default []
             */
            tags?: string[];
        };
        /** @description A slot as answered: its record and its entries' aggregates. */
        SlotView: {
            /** @description Why. */
            archive_reason: string | null;
            /** @description When it was archived (RFC 3339), if it is. */
            archived_at: string | null;
            /**
             * Format: uint
             * @description Characters of all entries.
             */
            characters: number;
            /** @description While archived: its long entries compressed at rest. */
            compression: components["schemas"]["CompressionView"] | null;
            /** @description Who wrote its entries. */
            contributors: string[];
            /** @description When it was created (RFC 3339). */
            created_at: string;
            /** @description What it is for. */
            description: string;
            /**
             * Format: uint
             * @description Entries.
             */
            entries: number;
            /** @description Its group path. */
            group: string | null;
            /**
             * @description Its search keywords: the words its entries use most (stop words
             *     aside), most used first.
             */
            keywords: string[];
            /** @description When it or an entry was last written or recalled (RFC 3339). */
            last_access: string;
            /** @description When a progress summary was last saved (RFC 3339). */
            last_summary_at: string | null;
            /** @description Its name. */
            name: string;
            /**
             * Format: uint8
             * @description 1 (highest) to 5.
             */
            priority: number;
            /** @description Tags. */
            tags: string[];
            /** @description When it last changed (RFC 3339). */
            updated_at: string;
            /** @description Whether saving to it is paused. */
            zero: boolean;
        };
        /** @description Counts of a tenant's memories. */
        StatsOutput: {
            /** @description Count per project (`(global)` for global memories). */
            by_project: {
                [key: string]: unknown;
            };
            /**
             * @description Count per tier (episodic, semantic, procedural, working), from the
             *     types'.
             */
            by_tier: {
                [key: string]: unknown;
            };
            /** @description Count per type. */
            by_type: {
                [key: string]: unknown;
            };
            /**
             * Format: uint
             * @description Expired, awaiting deletion.
             */
            expired: number;
            /** @description The store's embedding model (`name/dimension`). */
            model: string | null;
            /** @description Newest creation time. */
            newest: string | null;
            /** @description Oldest creation time. */
            oldest: string | null;
            /** @description The caller's default project, if it has one. */
            session_project: string | null;
            /**
             * Format: uint64
             * @description Bytes on disk, where the store knows.
             */
            size_bytes: number | null;
            /**
             * Format: uint
             * @description Replaced by newer memories.
             */
            superseded: number;
            /**
             * Format: uint
             * @description Every memory, expired and superseded included.
             */
            total: number;
        };
        /** @description Tags to add to and remove from many memories at once. */
        TagInput: {
            /**
             * @description Add these tags.
             * @default []
             */
            add_tags?: string[];
            /**
             * @description Ids or unique prefixes (at most 1000).
             * @default []
             */
            ids?: string[];
            /**
             * @description Remove these tags.
             * @default []
             */
            remove_tags?: string[];
        };
        /** @description What a bulk tagging changed. */
        TagOutput: {
            /** @description Their ids. */
            ids: string[];
            /**
             * Format: uint
             * @description How many memories' tags changed.
             */
            tagged: number;
            /**
             * Format: uint
             * @description How many already had the tags asked for (left unchanged).
             */
            unchanged: number;
        };
        /** @description Token totals of one session, conversation or topic. */
        ThreadTokens: {
            /** @description Its id. */
            id: string;
            /** @description `session`, `conversation` or `topic`. */
            level: components["schemas"]["CollectionKind"];
            /**
             * Format: uint
             * @description Its messages.
             */
            messages: number;
            /**
             * Format: uint
             * @description The exact tokens of its messages' text, with the tokenizer asked for.
             */
            tokens: number;
        };
        /** @description The four memory tiers of Memory Vault AI. */
        Tier: "episodic" | "semantic" | "procedural" | "working";
        /**
         * @description An encoding to count tokens with: `cl100k_base` (GPT-4, GPT-3.5; the
         *     default) or `o200k_base` (GPT-4o and later). Names parse and print as
         *     OpenAI spells them.
         */
        Tokenizer: "cl100k_base" | "o200k_base";
        /** @description How to count tokens. */
        TokenizerInput: {
            /**
             * @description `cl100k_base` (default) or `o200k_base`.
             * @default null
             */
            tokenizer?: string | null;
        };
        /** @description A topic with its messages. */
        TopicView: {
            /** @description Its key entities. */
            entities: string[];
            /** @description Its id. */
            id: string;
            /** @description Its messages, oldest first. */
            messages: components["schemas"]["MessageView"][];
            /** @description Its extractive summary. */
            summary: string;
            /** @description Its title. */
            title: string;
            /**
             * @description How the title was made, when a chat model is configured: `llm`
             *     (with the model), or `extractive` with the model's failure.
             */
            titled_by?: components["schemas"]["Generated"] | null;
        };
        /** @description How a transcript import goes. */
        TranscriptInput: {
            /**
             * @description Answer JSON Lines as the import goes: `{"progress": {"imported",
             *     "bytes"}}` about once a second, then `{"report": …}` or
             *     `{"error": …}` (default: one report when it is done).
             * @default false
             */
            progress?: boolean;
            /**
             * @description The project of the messages (default: global).
             * @default null
             */
            project?: string | null;
            /**
             * @description Refuse the whole body, writing nothing, if any line is bad
             *     (default: report bad lines and import the others).
             * @default false
             */
            strict?: boolean;
        };
        /** @description Changes to a memory; what is left out stays as it is. */
        UpdateInput: {
            /**
             * @description Add these tags.
             * @default []
             */
            add_tags?: string[];
            /**
             * @description Remove the time to live.
             * @default false
             */
            clear_ttl?: boolean;
            /**
             * @description New text (re-embeds the memory).
             * @default null
             */
            content?: string | null;
            /**
             * @description Make it global.
             * @default false
             */
            global?: boolean;
            /**
             * Format: double
             * @description New importance (0–1).
             * @default null
             */
            importance?: number | null;
            /**
             * @description Merge into the metadata; a `null` value removes its key.
             * @default null
             */
            metadata?: {
                [key: string]: unknown;
            } | null;
            /**
             * @description Move to this project.
             * @default null
             */
            project?: string | null;
            /**
             * @description Remove these tags.
             * @default []
             */
            remove_tags?: string[];
            /**
             * @description Replace every tag.
             * @default null
             */
            tags?: string[] | null;
            /**
             * @description New time to live from now (`30m`, `7d`, ...).
             * @default null
             */
            ttl?: string | null;
            /**
             * @description New type.
             * @default null
             */
            type?: string | null;
            /**
             * Format: double
             * @description New weight (0–100; superseded memories have 0.1).
             * @default null
             */
            weight?: number | null;
        };
        /** @description A memory after an update. */
        UpdateOutput: {
            /** @description The memory as it is now. */
            memory: components["schemas"]["MemoryView"];
        };
        /** @description One version of a memory. */
        VersionView: {
            /** @description Who: an API key's id, `local` (the CLI, MCP on stdio) or `system`. */
            actor: string;
            /** @description When (RFC 3339). */
            at: string;
            /**
             * @description `created`, `imported`, `updated`, `deduplicated`, `superseded` or
             *     `reverted`.
             */
            change: string;
            /** @description The memory as this change left it. */
            memory: components["schemas"]["MemoryRecord"];
            /** @description Why, or which fields changed. */
            reason: string | null;
            /**
             * Format: uint32
             * @description 1 for the first, counting up.
             */
            version: number;
        };
        /** @description An assembled window. */
        Window: {
            /**
             * Format: uint
             * @description The budget.
             */
            budget: number;
            /**
             * Format: double
             * @description `total_tokens / budget` (0 for a zero budget).
             */
            budget_used: number;
            /** @description Its format. */
            format: components["schemas"]["WindowFormat"];
            /** @description The items in output order. */
            items: components["schemas"]["WindowEntry"][];
            /** @description The candidates left out, in admission order. */
            left_out: components["schemas"]["LeftOut"][];
            /** @description Tokens per section, in output order (sections with items only). */
            sections: components["schemas"]["SectionTokens"][];
            /** @description The rendered output. */
            text: string;
            /** @description The encoding counted with. */
            tokenizer: components["schemas"]["Tokenizer"];
            /**
             * Format: uint
             * @description Exact tokens of [`Window::text`]; never above the budget.
             */
            total_tokens: number;
        };
        /** @description An item in the window. */
        WindowEntry: {
            /** @description When it happened (`YYYY-MM-DD`, UTC). */
            date?: string | null;
            /** @description Its id. */
            id: string;
            /**
             * @description The note shown after its text (which side of a known conflict it
             *     is).
             */
            note?: string | null;
            /** @description Its section. */
            section: components["schemas"]["Section"];
            /** @description Whether the text is shortened. */
            summarised: boolean;
            /** @description Its text in the window: whole, or whole sentences of it. */
            text: string;
            /** @description Its tier. */
            tier: components["schemas"]["Tier"];
            /**
             * Format: uint
             * @description Tokens of [`WindowEntry::text`].
             */
            tokens: number;
        };
        /** @description How the window is rendered. */
        WindowFormat: "markdown" | "json" | "memory";
        /** @description What to assemble a context window for, as front ends receive it. */
        WindowInput: {
            /**
             * Format: uint
             * @description Most tokens of the window (default 2,000).
             * @default null
             */
            budget?: number | null;
            /**
             * @description `markdown` (default), `json` or `memory` (a `<memory>` block).
             * @default null
             */
            format?: string | null;
            /**
             * @description The new user message (optional).
             * @default
             */
            message?: string;
            /**
             * @description The project whose memories count (default: the caller's, else
             *     global ones).
             * @default null
             */
            project?: string | null;
            /**
             * @description The session of the call (required).
             * @default
             */
            session?: string;
            /**
             * @description `cl100k_base` (default) or `o200k_base`.
             * @default null
             */
            tokenizer?: string | null;
            /**
             * Format: uint
             * @description Most tokens of the working memory, the latest exchanges (default
             *     4,096).
             * @default null
             */
            working_tokens?: number | null;
        };
        /**
         * @description Zero mode turned on or off: for one slot, or (no slot) for every slot
         *     of the tenant. Stored, so every front end and session sees it.
         */
        ZeroInput: {
            /**
             * @description On: every save is refused; off: saves are taken again.
             * @default false
             */
            on?: boolean;
            /**
             * @description This slot only (default: every slot).
             * @default null
             */
            slot?: string | null;
        };
        /** @description Zero mode after the change. */
        ZeroOutput: {
            /** @description The slot it is about (`None`: every slot). */
            slot: string | null;
            /** @description Whether it is on. */
            zero: boolean;
        };
    };
    responses: {
        /** @description An error, in the one shape of every error */
        Error: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    healthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Yes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description No */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
        };
    };
    readyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Yes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description No */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
        };
    };
    activity: {
        parameters: {
            query?: {
                /** @description Most entries, 1 to 100 (default 50). */
                limit?: number | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ActivityOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    consolidate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ConsolidateInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsolidateOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    context: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ContextInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContextPack"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_conversations: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationView"][];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    import_transcript: {
        parameters: {
            query?: {
                /**
                 * @description Answer JSON Lines as the import goes: `{"progress": {"imported",
                 *     "bytes"}}` about once a second, then `{"report": …}` or
                 *     `{"error": …}` (default: one report when it is done).
                 */
                progress?: boolean;
                /** @description The project of the messages (default: global). */
                project?: string | null;
                /**
                 * @description Refuse the whole body, writing nothing, if any line is bad
                 *     (default: report bad lines and import the others).
                 */
                strict?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/x-ndjson": string;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationImportReport"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    show_conversation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An id (of a memory: or a unique prefix of one, 4+ characters; of a conversation or session: as logged) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationTree"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    conversation_stats: {
        parameters: {
            query?: {
                /** @description `cl100k_base` (default) or `o200k_base`. */
                tokenizer?: string | null;
            };
            header?: never;
            path: {
                /** @description An id (of a memory: or a unique prefix of one, 4+ characters; of a conversation or session: as logged) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationStats"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    export: {
        parameters: {
            query?: {
                /** @description Include each memory's embedding. */
                embeddings?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": string;
                };
            };
            default: components["responses"]["Error"];
        };
    };
    import: {
        parameters: {
            query?: {
                /**
                 * @description Answer JSON Lines as the import goes: `{"progress": {"imported",
                 *     "bytes", "bad_lines", "errors"}}` after the first transaction and
                 *     then about once a second (`errors`: the bad lines met since the
                 *     previous progress line, each `[line, problem]`), then `{"report":
                 *     …}` or `{"error": …}` (default: one report when it is done).
                 */
                progress?: boolean;
                /**
                 * @description Refuse the whole body, writing nothing, if any line is bad
                 *     (default: report bad lines and import the others).
                 */
                strict?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/x-ndjson": string;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImportReport"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    ingest: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["IngestInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_keys: {
        parameters: {
            query?: {
                /** @description Only this tenant's keys. */
                tenant?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyView"][];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_key: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CreateKeyInput"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedKey"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    revoke_key: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An id (of a memory: or a unique prefix of one, 4+ characters; of a conversation or session: as logged) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyView"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list: {
        parameters: {
            query?: {
                /** @description Every project (and global memories). */
                all_projects?: boolean;
                /**
                 * @description What was believed true at this time (RFC 3339 or YYYY-MM-DD): the
                 *     memories written by then and valid then (`valid_to` after it),
                 *     those superseded or contested since included.
                 */
                as_of?: string | null;
                /** @description Only the messages of this conversation. */
                conversation?: string | null;
                /** @description Continue after this page: the `next_cursor` of the previous one. */
                cursor?: string | null;
                /** @description Global memories only. */
                global?: boolean;
                /** @description Include the entries of archived slots (left out by default). */
                include_archived?: boolean;
                /**
                 * @description Include episodes consolidated into summaries (each is superseded by
                 *     its summary, so this includes superseded memories).
                 */
                include_consolidated?: boolean;
                /** @description Include memories whose TTL has passed. */
                include_expired?: boolean;
                /** @description Include memories replaced by newer ones. */
                include_superseded?: boolean;
                /** @description Page size, 1 to 1000 (default 20). */
                limit?: number | null;
                /** @description Skip this many. */
                offset?: number | null;
                /** @description Only memories replaced by newer ones. */
                only_superseded?: boolean;
                /**
                 * @description A project. Recall and list see its memories and global ones; forget
                 *     deletes only its own.
                 */
                project?: string | null;
                /** @description Only the messages of this session. */
                session?: string | null;
                /** @description Created at or after (RFC 3339 or YYYY-MM-DD). */
                since?: string | null;
                /** @description Only the entries of these slots (archived ones included). */
                slots?: string[];
                /** @description The order (default newest first). */
                sort?: string | null;
                /**
                 * @description Any of these sources: where a memory came from (`manual`, `import`,
                 *     `conversation`, `consolidation`, `import:mem0`…).
                 */
                sources?: string[];
                /** @description All of these tags. */
                tags?: string[];
                /** @description Only the messages of this topic. */
                topic?: string | null;
                /** @description Any of these types (empty: every type). */
                types?: string[];
                /** @description Created before (RFC 3339 or YYYY-MM-DD). */
                until?: string | null;
                /**
                 * @description Valid at this time (RFC 3339 or YYYY-MM-DD): what was true then
                 *     (with `include_superseded`, what was true then and is not now).
                 */
                valid_at?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    remember: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["RememberInput"];
            };
        };
        responses: {
            /** @description Merged into a near-identical memory */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RememberOutput"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RememberOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    forget_matching: {
        parameters: {
            query?: {
                /** @description Every project (and global memories). */
                all_projects?: boolean;
                /**
                 * @description What was believed true at this time (RFC 3339 or YYYY-MM-DD): the
                 *     memories written by then and valid then (`valid_to` after it),
                 *     those superseded or contested since included.
                 */
                as_of?: string | null;
                /**
                 * @description With a selection: false (default) only counts what would be
                 *     deleted; true deletes.
                 */
                confirm?: boolean;
                /** @description Only the messages of this conversation. */
                conversation?: string | null;
                /** @description Global memories only. */
                global?: boolean;
                /** @description Ids or unique prefixes. Give these, or a selection, not both. */
                ids?: string[];
                /** @description Include the entries of archived slots (left out by default). */
                include_archived?: boolean;
                /**
                 * @description Include episodes consolidated into summaries (each is superseded by
                 *     its summary, so this includes superseded memories).
                 */
                include_consolidated?: boolean;
                /** @description Include memories whose TTL has passed. */
                include_expired?: boolean;
                /** @description Include memories replaced by newer ones. */
                include_superseded?: boolean;
                /** @description Only memories replaced by newer ones. */
                only_superseded?: boolean;
                /**
                 * @description A project. Recall and list see its memories and global ones; forget
                 *     deletes only its own.
                 */
                project?: string | null;
                /** @description Only the messages of this session. */
                session?: string | null;
                /** @description Created at or after (RFC 3339 or YYYY-MM-DD). */
                since?: string | null;
                /** @description Only the entries of these slots (archived ones included). */
                slots?: string[];
                /**
                 * @description Any of these sources: where a memory came from (`manual`, `import`,
                 *     `conversation`, `consolidation`, `import:mem0`…).
                 */
                sources?: string[];
                /** @description All of these tags. */
                tags?: string[];
                /** @description Only the messages of this topic. */
                topic?: string | null;
                /** @description Any of these types (empty: every type). */
                types?: string[];
                /** @description Created before (RFC 3339 or YYYY-MM-DD). */
                until?: string | null;
                /**
                 * @description Valid at this time (RFC 3339 or YYYY-MM-DD): what was true then
                 *     (with `include_superseded`, what was true then and is not now).
                 */
                valid_at?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForgetOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    tag: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["TagInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TagOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An id (of a memory: or a unique prefix of one, 4+ characters; of a conversation or session: as logged) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryView"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    forget: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An id (of a memory: or a unique prefix of one, 4+ characters; of a conversation or session: as logged) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForgetOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An id (of a memory: or a unique prefix of one, 4+ characters; of a conversation or session: as logged) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["UpdateInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpdateOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    chain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An id (of a memory: or a unique prefix of one, 4+ characters; of a conversation or session: as logged) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChainOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    history: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An id (of a memory: or a unique prefix of one, 4+ characters; of a conversation or session: as logged) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HistoryOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    revert: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An id (of a memory: or a unique prefix of one, 4+ characters; of a conversation or session: as logged) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["RevertInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevertOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    similar: {
        parameters: {
            query?: {
                /** @description Most neighbours, 1 to 100 (default 10). */
                limit?: number | null;
            };
            header?: never;
            path: {
                /** @description An id (of a memory: or a unique prefix of one, 4+ characters; of a conversation or session: as logged) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SimilarOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    log_messages: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["LogInput"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LogOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    prompt: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["PromptInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Window"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    providers: {
        parameters: {
            query?: {
                /** @description Send each provider a small request to see that it answers. */
                check?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProvidersOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    recall: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["RecallInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecallOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    window: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An id (of a memory: or a unique prefix of one, 4+ characters; of a conversation or session: as logged) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["WindowInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Window"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    working_memory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An id (of a memory: or a unique prefix of one, 4+ characters; of a conversation or session: as logged) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Window"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    settings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SettingsView"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    set_settings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["SettingsInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SettingsView"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    search_slots: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["SlotSearchInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecallOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_slots: {
        parameters: {
            query?: {
                /** @description Only archived slots (the archive index). */
                archived_only?: boolean;
                /** @description Only slots in this group or below it. */
                group?: string | null;
                /** @description Archived slots too (only archived ones with `archived_only`). */
                include_archived?: boolean;
                /** @description Only slots with all of these tags. */
                tags?: string[];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SlotView"][];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    set_slot: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["SlotInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SlotView"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    read_slot: {
        parameters: {
            query?: {
                /** @description At most this many. */
                limit?: number | null;
                /** @description Skip this many entries (from the oldest). */
                offset?: number;
                /** @description Only the progress summaries. */
                summaries?: boolean;
            };
            header?: never;
            path: {
                /** @description A slot's name: letters, digits, `-` and `_`, 1–64 characters */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SlotRead"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    archive_slot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A slot's name: letters, digits, `-` and `_`, 1–64 characters */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ArchiveInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SlotView"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    save_to_slot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A slot's name: letters, digits, `-` and `_`, 1–64 characters */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EntryInput"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SaveOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    export_slot: {
        parameters: {
            query?: {
                /** @description `md` (default), `txt` or `json`. */
                format?: string | null;
            };
            header?: never;
            path: {
                /** @description A slot's name: letters, digits, `-` and `_`, 1–64 characters */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                    "text/markdown": string;
                    "text/plain": string;
                };
            };
            default: components["responses"]["Error"];
        };
    };
    restore_slot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A slot's name: letters, digits, `-` and `_`, 1–64 characters */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SlotView"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    stats: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatsOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    zero_mode: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ZeroInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ZeroOutput"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
}
