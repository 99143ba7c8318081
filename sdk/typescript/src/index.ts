/**
 * cairn-memory: a TypeScript client of Cairn's REST API, a persistent
 * memory for AI agents. Built on `fetch` only (Node >= 18, Deno, Bun,
 * browsers).
 *
 * ```ts
 * import { Cairn } from "cairn-memory";
 * const cairn = new Cairn({ baseUrl: "http://127.0.0.1:7878", apiKey: KEY });
 * await cairn.remember("staging runs on a Hetzner box", { type: "fact", project: "atlas" });
 * const { results } = await cairn.recall("where does staging run?", { project: "atlas" });
 * ```
 */

export { Cairn, OPERATIONS, type ImportOptions, type TranscriptOptions } from "./client.js";
export {
  CairnError,
  BadRequest,
  Unauthenticated,
  Forbidden,
  NotFound,
  Conflict,
  TooLarge,
  RateLimited,
  Unavailable,
  errorFor,
} from "./errors.js";
export { Transport, RETRIED, retryDelayMs, type ClientOptions, type StreamBody, type Query } from "./http.js";
export type * from "./types.js";
export type { components, paths, operations } from "./schema.js";
