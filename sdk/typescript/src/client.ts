/**
 * `Cairn`: a client of every operation of Cairn's REST API (`cairn serve`).
 * Each method is one request (`listAll` and the streams read on as they
 * go); inputs and answers are the types of the server's OpenAPI document.
 */

import { errorFor, type CairnError } from "./errors.js";
import { lines, Transport, type ClientOptions, type Query, type StreamBody } from "./http.js";
import type * as T from "./types.js";

/** Options of a streamed import. */
export interface ImportOptions {
  /** Refuse the whole body, writing nothing, if any line is bad. */
  strict?: boolean;
  /** Called with each progress line the server sends (about once a second). */
  onProgress?: (progress: Record<string, unknown>) => void;
  signal?: AbortSignal;
}

/** Options of a transcript import. */
export interface TranscriptOptions extends ImportOptions {
  /** The project of the messages (default: global). */
  project?: string;
}

/** A memory id, slot name, session or conversation as a path segment. */
const seg = (s: string): string => encodeURIComponent(s);

/**
 * A client of one Cairn server:
 *
 * ```ts
 * const cairn = new Cairn({ baseUrl: "http://127.0.0.1:7878", apiKey: KEY });
 * ```
 *
 * Errors are thrown as {@link CairnError} subclasses; 429 and 503 are
 * retried after `Retry-After` (see {@link ClientOptions}).
 */
export class Cairn {
  /** The HTTP layer (base URL, key, retries). */
  readonly http: Transport;

  constructor(options: ClientOptions = {}) {
    this.http = new Transport(options);
  }

  // ---- memories -------------------------------------------------------

  /** Store a memory; `status` says `created` or `deduplicated`, `similar` lists possible contradictions. */
  remember(content: string, options: Omit<T.RememberInput, "content"> = {}): Promise<T.RememberOutput> {
    return this.http.json({ method: "POST", path: "/v1/memories", json: { ...options, content } });
  }

  /** One page of memories matching the filters (`next_cursor` for the next). */
  list(filters: T.ListInput = {}): Promise<T.ListOutput> {
    return this.http.json({ method: "GET", path: "/v1/memories", query: filters as Query });
  }

  /** Every matching memory, in id order, fetched `pageSize` at a time. */
  async *listAll(
    filters: Omit<T.ListInput, "cursor" | "sort" | "limit" | "offset"> = {},
    pageSize = 100,
  ): AsyncGenerator<T.MemoryView> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.list({ ...filters, sort: "id", limit: pageSize, cursor } as T.ListInput);
      yield* page.memories;
      if (!page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  /** One memory by id or unique prefix. */
  get(id: string): Promise<T.MemoryView> {
    return this.http.json({ method: "GET", path: `/v1/memories/${seg(id)}` });
  }

  /** Change a memory's content or fields; answers it as it now is. */
  update(id: string, changes: T.UpdateInput): Promise<T.UpdateOutput> {
    return this.http.json({ method: "PATCH", path: `/v1/memories/${seg(id)}`, json: changes });
  }

  /** Forget one memory. */
  forget(id: string): Promise<T.ForgetOutput> {
    return this.http.json({ method: "DELETE", path: `/v1/memories/${seg(id)}` });
  }

  /** Forget every memory of a selection: a dry run (`would_forget`) unless `confirm: true`. */
  forgetMatching(selection: T.ForgetInput): Promise<T.ForgetOutput> {
    return this.http.json({ method: "DELETE", path: "/v1/memories", query: selection as Query });
  }

  /** Add and remove tags on many memories at once (one transaction). */
  tag(input: T.TagInput): Promise<T.TagOutput> {
    return this.http.json({ method: "PATCH", path: "/v1/memories", json: input });
  }

  /** Every version of a memory (who, when, why), or a forgotten one's receipt (`deleted`). */
  history(id: string): Promise<T.HistoryOutput> {
    return this.http.json({ method: "GET", path: `/v1/memories/${seg(id)}/history` });
  }

  /** The chain of memories that superseded one another through this one. */
  chain(id: string): Promise<T.ChainOutput> {
    return this.http.json({ method: "GET", path: `/v1/memories/${seg(id)}/chain` });
  }

  /** The memories nearest to one. */
  similar(id: string, options: T.SimilarInput = {}): Promise<T.SimilarOutput> {
    return this.http.json({
      method: "GET",
      path: `/v1/memories/${seg(id)}/similar`,
      query: options as Query,
    });
  }

  /** Restore an earlier version as a new version. */
  revert(id: string, version: number): Promise<T.RevertOutput> {
    return this.http.json({ method: "POST", path: `/v1/memories/${seg(id)}/revert`, json: { version } });
  }

  /** The latest changes to the tenant's memories, newest first. */
  activity(options: T.ActivityInput = {}): Promise<T.ActivityOutput> {
    return this.http.json({ method: "GET", path: "/v1/activity", query: options as Query });
  }

  /** Cut raw text (plain, Markdown, HTML) into memories, keeping what is new and salient. */
  ingest(text: string, options: Omit<T.IngestInput, "text"> = {}): Promise<T.IngestOutput> {
    return this.http.json({ method: "POST", path: "/v1/ingest", json: { ...options, text } });
  }

  // ---- reading --------------------------------------------------------

  /** Memories for a query, best first (`budget` caps the answer's tokens). */
  recall(query: string, options: Omit<T.RecallInput, "query"> = {}): Promise<T.RecallOutput> {
    return this.http.json({ method: "POST", path: "/v1/recall", json: { ...options, query } });
  }

  /** The session-start context (`markdown`) within a token budget. */
  context(topic?: string, options: Omit<T.ContextInput, "topic"> = {}): Promise<T.ContextPack> {
    return this.http.json({ method: "POST", path: "/v1/context", json: { ...options, topic } });
  }

  /** A prompt's memory block about `query`, never over its budget. */
  prompt(query: string, options: Omit<T.PromptInput, "query"> = {}): Promise<T.Window> {
    return this.http.json({ method: "POST", path: "/v1/prompt", json: { ...options, query } });
  }

  /** Counts of the tenant's memories. */
  stats(): Promise<T.StatsOutput> {
    return this.http.json({ method: "GET", path: "/v1/stats" });
  }

  // ---- import and export ----------------------------------------------

  /**
   * Import memories from JSON Lines: a string, bytes, a `ReadableStream`,
   * or an (async) iterable of text or byte chunks, sent as it is read. A
   * streamed body is sent once (never retried).
   */
  importJsonl(body: StreamBody, options: ImportOptions = {}): Promise<T.ImportReport> {
    return this.upload<T.ImportReport>("/v1/import", body, { strict: options.strict }, options);
  }

  /** Every memory as JSON Lines, a line at a time, as the server sends them. */
  async *exportJsonl(options: T.ExportInput & { signal?: AbortSignal } = {}): AsyncGenerator<string> {
    const { signal, ...query } = options;
    const response = await this.http.send({
      method: "GET",
      path: "/v1/export",
      query: query as Query,
      stream: true,
      signal,
    });
    if (!response.body) return;
    for await (const line of lines(response.body)) {
      if (line !== "") yield line;
    }
  }

  // ---- conversations --------------------------------------------------

  /** The tenant's conversations, oldest first. */
  listConversations(): Promise<T.ConversationView[]> {
    return this.http.json({ method: "GET", path: "/v1/conversations" });
  }

  /**
   * Import a transcript: JSON Lines of one message each (`conversation`,
   * `speaker` or `role`, `text`, optional `session`, `at`, `id`), streamed.
   */
  importTranscript(body: StreamBody, options: TranscriptOptions = {}): Promise<T.ConversationImportReport> {
    const query = { project: options.project, strict: options.strict };
    return this.upload<T.ConversationImportReport>("/v1/conversations", body, query, options);
  }

  /** A conversation with its topics and their messages. */
  conversation(id: string): Promise<T.ConversationTree> {
    return this.http.json({ method: "GET", path: `/v1/conversations/${seg(id)}` });
  }

  /** Exact token totals of a conversation, its sessions and topics. */
  conversationStats(id: string, options: { tokenizer?: string } = {}): Promise<T.ConversationStats> {
    return this.http.json({ method: "GET", path: `/v1/conversations/${seg(id)}/stats`, query: options });
  }

  /** Log messages (an exchange) in order; `pending` lists those kept until the embedder answers. */
  logMessages(messages: T.LogInput["messages"], options: Omit<T.LogInput, "messages"> = {}): Promise<T.LogOutput> {
    return this.http.json({ method: "POST", path: "/v1/messages", json: { ...options, messages } });
  }

  /** The context an LLM call of a session should get for a new message, within a budget. */
  window(session: string, options: Omit<T.WindowInput, "session"> = {}): Promise<T.Window> {
    return this.http.json({ method: "POST", path: `/v1/sessions/${seg(session)}/window`, json: options });
  }

  /** A session's working memory: the rules to follow and its latest messages. */
  workingMemory(session: string): Promise<T.Window> {
    return this.http.json({ method: "GET", path: `/v1/sessions/${seg(session)}/working-memory` });
  }

  // ---- slots ----------------------------------------------------------

  /** The tenant's slots, by priority then name. */
  listSlots(filter: T.SlotListInput = {}): Promise<T.SlotView[]> {
    return this.http.json({ method: "GET", path: "/v1/slots", query: filter as Query });
  }

  /** Make a slot, or change one (description, tags, group, priority, name). */
  setSlot(name: string, changes: Omit<T.SlotInput, "name"> = {}): Promise<T.SlotView> {
    return this.http.json({ method: "POST", path: "/v1/slots", json: { ...changes, name } });
  }

  /** Search slots' entries; each result has the query's words it contains. */
  searchSlots(query: string, options: Omit<T.SlotSearchInput, "query"> = {}): Promise<T.RecallOutput> {
    return this.http.json({ method: "POST", path: "/v1/slot-search", json: { ...options, query } });
  }

  /** A slot and a page of its entries, oldest first. */
  readSlot(name: string, page: T.ReadInput = {}): Promise<T.SlotRead> {
    return this.http.json({ method: "GET", path: `/v1/slots/${seg(name)}`, query: page as Query });
  }

  /** Append an entry to a slot (made if new). */
  saveToSlot(name: string, text: string, options: Omit<T.EntryInput, "text"> = {}): Promise<T.SaveOutput> {
    return this.http.json({ method: "POST", path: `/v1/slots/${seg(name)}/entries`, json: { ...options, text } });
  }

  /** A slot as text: `md` (default), `txt` or `json`. */
  exportSlot(name: string, format?: "md" | "txt" | "json"): Promise<string> {
    return this.http.text({ method: "GET", path: `/v1/slots/${seg(name)}/export`, query: { format } });
  }

  /** Archive a slot: its entries leave default recall. */
  archiveSlot(name: string, reason?: string): Promise<T.SlotView> {
    return this.http.json({ method: "POST", path: `/v1/slots/${seg(name)}/archive`, json: { reason } });
  }

  /** Bring an archived slot back, unchanged. */
  restoreSlot(name: string): Promise<T.SlotView> {
    return this.http.json({ method: "POST", path: `/v1/slots/${seg(name)}/restore` });
  }

  /** Zero mode on or off, for every slot or `slot`: while on, saves are refused. */
  zeroMode(on: boolean, slot?: string): Promise<T.ZeroOutput> {
    return this.http.json({ method: "PUT", path: "/v1/zero-mode", json: { on, slot } });
  }

  /** The tenant's settings (`redact_personal`, `conflicts`). */
  settings(): Promise<T.SettingsView> {
    return this.http.json({ method: "GET", path: "/v1/settings" });
  }

  /** Change the tenant's settings (an admin key), e.g. `{ redact_personal: false }`. */
  setSettings(settings: T.SettingsInput): Promise<T.SettingsView> {
    return this.http.json({ method: "PATCH", path: "/v1/settings", json: settings });
  }

  // ---- administration (admin keys) ------------------------------------

  /** Fold the tenant's oldest episode groups into summaries (`dry_run` writes nothing). */
  consolidate(options: T.ConsolidateInput = {}): Promise<T.ConsolidateOutput> {
    return this.http.json({ method: "POST", path: "/v1/consolidate", json: options });
  }

  /** The chat model and embedder in use (`check`: see that each answers). */
  providers(options: { check?: boolean } = {}): Promise<T.ProvidersOutput> {
    return this.http.json({ method: "GET", path: "/v1/providers", query: options });
  }

  /** Make an API key; its secret is in the answer, once. */
  createKey(input: T.CreateKeyInput): Promise<T.CreatedKey> {
    return this.http.json({ method: "POST", path: "/v1/keys", json: input });
  }

  /** The keys, oldest first (never their secrets); `tenant`: only that tenant's. */
  listKeys(options: { tenant?: string } = {}): Promise<T.KeyView[]> {
    return this.http.json({ method: "GET", path: "/v1/keys", query: options });
  }

  /** Revoke a key: it stops working at once. */
  revokeKey(id: string): Promise<T.KeyView> {
    return this.http.json({ method: "DELETE", path: `/v1/keys/${seg(id)}` });
  }

  // ---- probes ---------------------------------------------------------

  /** Whether the process is up (`/healthz`). */
  async health(): Promise<boolean> {
    return this.probe("/healthz");
  }

  /** Whether the store answers and the model is loaded (`/readyz`). */
  async ready(): Promise<boolean> {
    return this.probe("/readyz");
  }

  /** Prometheus text (`/metrics`). */
  metrics(): Promise<string> {
    return this.http.text({ method: "GET", path: "/metrics" });
  }

  private async probe(path: string): Promise<boolean> {
    try {
      await (await this.http.send({ method: "GET", path })).body?.cancel();
      return true;
    } catch {
      return false;
    }
  }

  /** A JSON Lines upload; with `onProgress`, the answer is read as progress lines ending in a report. */
  private async upload<R>(
    path: string,
    body: StreamBody,
    query: Record<string, string | boolean | undefined>,
    options: ImportOptions,
  ): Promise<R> {
    const progress = options.onProgress !== undefined;
    const response = await this.http.send({
      method: "POST",
      path,
      query: { ...query, progress },
      body,
      contentType: "application/x-ndjson",
      stream: true,
      signal: options.signal,
    });
    if (!progress) return (await response.json()) as R;
    if (!response.body) throw errorFor(response.status, "an empty answer to an import");
    for await (const line of lines(response.body)) {
      if (line === "") continue;
      const item = JSON.parse(line) as { progress?: Record<string, unknown>; report?: R; error?: unknown };
      if (item.progress) options.onProgress?.(item.progress);
      else if (item.report) return item.report;
      else if (item.error) throw errorFor(response.status, item);
    }
    throw errorFor(response.status, "the import's answer ended without a report");
  }
}

/** The client method of each `operationId` of the OpenAPI document. */
export const OPERATIONS: Readonly<Record<string, keyof Cairn>> = {
  remember: "remember",
  list: "list",
  forget_matching: "forgetMatching",
  tag: "tag",
  get: "get",
  update: "update",
  forget: "forget",
  history: "history",
  chain: "chain",
  similar: "similar",
  activity: "activity",
  revert: "revert",
  ingest: "ingest",
  recall: "recall",
  context: "context",
  prompt: "prompt",
  stats: "stats",
  import: "importJsonl",
  export: "exportJsonl",
  list_conversations: "listConversations",
  import_transcript: "importTranscript",
  show_conversation: "conversation",
  conversation_stats: "conversationStats",
  log_messages: "logMessages",
  window: "window",
  working_memory: "workingMemory",
  list_slots: "listSlots",
  set_slot: "setSlot",
  search_slots: "searchSlots",
  read_slot: "readSlot",
  save_to_slot: "saveToSlot",
  export_slot: "exportSlot",
  archive_slot: "archiveSlot",
  restore_slot: "restoreSlot",
  zero_mode: "zeroMode",
  settings: "settings",
  set_settings: "setSettings",
  consolidate: "consolidate",
  providers: "providers",
  create_key: "createKey",
  list_keys: "listKeys",
  revoke_key: "revokeKey",
  healthz: "health",
  readyz: "ready",
  metrics: "metrics",
};
