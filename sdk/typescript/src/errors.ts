/**
 * Errors of Cairn's REST API, one class per kind. Every error the server
 * answers has one shape, `{"error": {"code", "message", "details"}}`;
 * {@link errorFor} turns it into the class of its HTTP status.
 */

/** An error answered by the server (or a body that was not Cairn's). */
export class CairnError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The stable, machine-readable code (`not_found`, `invalid_body`, ...). */
  readonly code: string;
  /** What the server said went wrong, for humans. */
  readonly details: unknown;
  /** Seconds the server asked to wait (`Retry-After`), if it said. */
  readonly retryAfter: number | undefined;

  constructor(status: number, code: string, message: string, details?: unknown, retryAfter?: number) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter;
  }
}

/** 400 or 422: the request is malformed or a value is out of range. */
export class BadRequest extends CairnError {}
/** 401: no API key, or an unknown, revoked or expired one. */
export class Unauthenticated extends CairnError {}
/** 403: the key's role may not do this. */
export class Forbidden extends CairnError {}
/** 404: no such memory (in this tenant), slot, conversation, key or route. */
export class NotFound extends CairnError {}
/** 409: an ambiguous id prefix (see `details.candidates`), or an id already stored. */
export class Conflict extends CairnError {}
/** 413: the body or the content is too large. */
export class TooLarge extends CairnError {}
/** 429: over the key's rate limit (after the client's retries). */
export class RateLimited extends CairnError {}
/** 503: the store is busy or not ready (after the client's retries). */
export class Unavailable extends CairnError {}

type ErrorClass = new (
  status: number,
  code: string,
  message: string,
  details?: unknown,
  retryAfter?: number,
) => CairnError;

const BY_STATUS: Record<number, ErrorClass> = {
  400: BadRequest,
  401: Unauthenticated,
  403: Forbidden,
  404: NotFound,
  409: Conflict,
  413: TooLarge,
  422: BadRequest,
  429: RateLimited,
  503: Unavailable,
};

/** The error for an answer of status `status` whose body was `body` (parsed JSON, or text). */
export function errorFor(status: number, body: unknown, retryAfter?: number): CairnError {
  const inner = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
  const Class = BY_STATUS[status] ?? CairnError;
  if (typeof inner === "object" && inner !== null) {
    const e = inner as { code?: unknown; message?: unknown; details?: unknown };
    return new Class(status, String(e.code ?? "http_error"), String(e.message ?? ""), e.details, retryAfter);
  }
  return new Class(status, "http_error", `HTTP ${status}`, body, retryAfter);
}
