/**
 * The HTTP layer: one `fetch` call per attempt, JSON in and out, query
 * strings as the server reads them, and bounded retries of 429 and 503
 * after `Retry-After`. Only web-standard APIs (`fetch`, `Headers`,
 * `ReadableStream`, `TextDecoder`, `AbortSignal`), so the client runs on
 * Node >= 18, Deno, Bun and in browsers.
 */

import { errorFor } from "./errors.js";

/** Statuses retried (honouring `Retry-After`) before an error is thrown. */
export const RETRIED: readonly number[] = [429, 503];

/** How a client reaches a server. */
export interface ClientOptions {
  /** The server's address (default `http://127.0.0.1:7878`). */
  baseUrl?: string;
  /** An API key (`cairn keys create`), sent as `Authorization: Bearer …`. */
  apiKey?: string;
  /** The tenant to act on, for admin keys and `--no-auth` servers (`X-Cairn-Tenant`). */
  tenant?: string;
  /** Times a 429 or 503 is retried before its error is thrown (default 3). */
  retries?: number;
  /** The longest wait between retries, in milliseconds, whatever `Retry-After` says (default 30 000). */
  maxRetryDelayMs?: number;
  /** Abort a request (not a stream) after this many milliseconds (default 30 000; 0: never). */
  timeoutMs?: number;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
}

/** A query string's values: lists are joined by commas, `false` and `undefined` left out. */
export type Query = Record<string, string | number | boolean | readonly string[] | null | undefined>;

/** A request body streamed as it is read. */
export type StreamBody = string | Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

/** One request. */
export interface Call {
  method: string;
  path: string;
  query?: Query;
  /** A JSON body. */
  json?: unknown;
  /** A raw body (JSON Lines), with its content type. */
  body?: StreamBody;
  contentType?: string;
  /** Leave the answer unread (a stream); no timeout applies. */
  stream?: boolean;
  signal?: AbortSignal;
}

/** The query string of `query`, with its `?`, or "". */
export function queryString(query: Query | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === false) continue;
    if (Array.isArray(value)) {
      if (value.length > 0) params.set(name, value.join(","));
    } else {
      params.set(name, String(value));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** Milliseconds to wait before retry `attempt` (0-based), from `Retry-After` or a backoff. */
export function retryDelayMs(retryAfter: string | null, attempt: number, maxMs: number): number {
  const backoff = Math.min(250 * 2 ** attempt, 5000);
  let wait = backoff;
  if (retryAfter !== null && retryAfter.trim() !== "") {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) {
      wait = Math.max(seconds, 0) * 1000;
    } else {
      const at = Date.parse(retryAfter);
      if (!Number.isNaN(at)) wait = Math.max(at - Date.now(), 0);
    }
  }
  return Math.min(wait, maxMs);
}

const encoder = new TextEncoder();

function toBytes(chunk: string | Uint8Array): Uint8Array {
  return typeof chunk === "string" ? encoder.encode(chunk) : chunk;
}

/** A byte stream of `body` (a stream, or an iterable of text or bytes). */
export function toStream(body: StreamBody): ReadableStream<Uint8Array> | string | Uint8Array {
  if (typeof body === "string" || body instanceof Uint8Array || body instanceof ReadableStream) {
    return body;
  }
  const iterator =
    Symbol.asyncIterator in body
      ? (body as AsyncIterable<string | Uint8Array>)[Symbol.asyncIterator]()
      : (body as Iterable<string | Uint8Array>)[Symbol.iterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(toBytes(next.value));
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

async function readError(response: Response): Promise<never> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text in the error's details
  }
  const header = response.headers.get("retry-after");
  const retryAfter = header !== null && Number.isFinite(Number(header)) ? Number(header) : undefined;
  throw errorFor(response.status, body, retryAfter);
}

/** Sends requests to one server. */
export class Transport {
  readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly retries: number;
  private readonly maxRetryDelayMs: number;
  private readonly timeoutMs: number;
  private readonly fetcher: typeof fetch;

  constructor(options: ClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? "http://127.0.0.1:7878").replace(/\/+$/, "");
    this.headers = { Accept: "application/json", ...options.headers };
    if (options.apiKey) this.headers["Authorization"] = `Bearer ${options.apiKey}`;
    if (options.tenant) this.headers["X-Cairn-Tenant"] = options.tenant;
    this.retries = Math.max(0, options.retries ?? 3);
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    const fetcher = options.fetch ?? globalThis.fetch;
    if (typeof fetcher !== "function") {
      throw new TypeError("no fetch: pass options.fetch, or use Node >= 18, Deno, Bun or a browser");
    }
    this.fetcher = fetcher.bind(globalThis);
  }

  /** The answer of a successful call (else its error is thrown). */
  async send(call: Call): Promise<Response> {
    const url = this.baseUrl + call.path + queryString(call.query);
    const headers: Record<string, string> = { ...this.headers };
    let body: BodyInit | undefined;
    // A streamed body can be sent once: it is never retried.
    let replayable = true;
    if (call.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(call.json);
    } else if (call.body !== undefined) {
      headers["Content-Type"] = call.contentType ?? "application/octet-stream";
      const stream = toStream(call.body);
      replayable = !(stream instanceof ReadableStream);
      body = stream as BodyInit;
    }
    for (let attempt = 0; ; attempt++) {
      const signals: AbortSignal[] = [];
      if (call.signal) signals.push(call.signal);
      if (!call.stream && this.timeoutMs > 0 && typeof AbortSignal.timeout === "function") {
        signals.push(AbortSignal.timeout(this.timeoutMs));
      }
      const init: RequestInit & { duplex?: "half" } = {
        method: call.method,
        headers,
        body,
        signal: combine(signals),
      };
      if (body instanceof ReadableStream) init.duplex = "half";
      const response = await this.fetcher(url, init);
      if (response.ok) return response;
      if (RETRIED.includes(response.status) && attempt < this.retries && replayable) {
        const wait = retryDelayMs(response.headers.get("retry-after"), attempt, this.maxRetryDelayMs);
        await response.body?.cancel();
        await sleep(wait, call.signal);
        continue;
      }
      return readError(response);
    }
  }

  /** The parsed JSON answer of a call. */
  async json<T>(call: Call): Promise<T> {
    const response = await this.send(call);
    return (await response.json()) as T;
  }

  /** The text answer of a call. */
  async text(call: Call): Promise<string> {
    return (await this.send(call)).text();
  }
}

function combine(signals: AbortSignal[]): AbortSignal | undefined {
  if (signals.length <= 1) return signals[0];
  const any = (AbortSignal as { any?: (s: AbortSignal[]) => AbortSignal }).any;
  if (typeof any === "function") return any(signals);
  const controller = new AbortController();
  for (const s of signals) {
    if (s.aborted) controller.abort(s.reason);
    s.addEventListener("abort", () => controller.abort(s.reason), { once: true });
  }
  return controller.signal;
}

/** The lines of a byte stream, without their line ends; a last line without one too. */
export async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffered.indexOf("\n")) >= 0) {
        yield buffered.slice(0, end).replace(/\r$/, "");
        buffered = buffered.slice(end + 1);
      }
    }
    buffered += decoder.decode();
    if (buffered.replace(/\r$/, "") !== "") yield buffered.replace(/\r$/, "");
  } finally {
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
