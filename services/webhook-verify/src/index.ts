/**
 * Webhook signatures of the messaging gateway (spec section 6.3).
 *
 *   X-Service-Signature: t=<unix_seconds>,v1=<hex>
 *   v1 = lowercase hex of HMAC-SHA256(key = webhook secret, message = `<t>.<raw body>`)
 *
 * The gateway signs deliveries with `sign`; receivers check them with `verify` / `verifyOrThrow`.
 * No dependency besides node:crypto, and only erasable TypeScript (no enums, namespaces or
 * parameter properties), so the file can be copied into a receiver as is.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** Header name, lowercase as Node exposes it in `req.headers` (HTTP header names are case-insensitive). */
export const SIGNATURE_HEADER = "x-service-signature";
/** Spec 6.3: reject when `t` differs from the current time by this many seconds or more. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The body exactly as received: a string is hashed as UTF-8, bytes (Buffer, Uint8Array) as they are. */
export type RawBody = string | Uint8Array;
/** One secret, or several during a rotation (any of them may match). */
export type WebhookSecret = string | readonly string[];

export type VerificationFailureReason = "missing_header" | "malformed_header" | "stale_timestamp" | "bad_signature";
export type VerifySuccess = { ok: true; timestamp: number };
export type VerifyFailure = { ok: false; reason: VerificationFailureReason };
export type VerifyResult = VerifySuccess | VerifyFailure;

export interface VerifyOptions {
  /** The X-Service-Signature value as the framework gives it: `req.headers[SIGNATURE_HEADER]`, `headers.get(...)`. */
  header: string | readonly string[] | null | undefined;
  /** The request body exactly as received, before any JSON parsing. */
  rawBody: RawBody;
  secret: WebhookSecret;
  /** Default 300 (spec 6.3). `|now - t| >= toleranceSeconds` is stale. */
  toleranceSeconds?: number;
  /** Current time in unix SECONDS (not milliseconds). Default: the system clock. */
  now?: number;
}

const MESSAGES: Record<VerificationFailureReason, string> = {
  missing_header: "missing X-Service-Signature header",
  malformed_header: "malformed X-Service-Signature header",
  stale_timestamp: "X-Service-Signature timestamp is outside the tolerance window",
  bad_signature: "X-Service-Signature does not match the body",
};

export class WebhookVerificationError extends Error {
  readonly reason: VerificationFailureReason;
  /** Picked up by Fastify and Express error handlers: the delivery is answered 401. */
  readonly statusCode = 401;

  constructor(reason: VerificationFailureReason) {
    super(MESSAGES[reason]);
    this.name = "WebhookVerificationError";
    this.reason = reason;
  }
}

/**
 * The X-Service-Signature value for `rawBody`: `t=<timestampSeconds>,v1=<hex>`.
 * With several secrets, one `v1=` per secret in the given order (`t=…,v1=…,v1=…`).
 */
export function sign(secret: WebhookSecret, rawBody: RawBody, timestampSeconds: number = nowSeconds()): string {
  const secrets = secretsOf(secret);
  const body = bodyOf(rawBody);
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`timestampSeconds must be a non-negative integer (unix seconds), got ${timestampSeconds}`);
  }
  const t = String(timestampSeconds);
  let header = `t=${t}`;
  for (const s of secrets) header += `,v1=${hmacHex(s, t, body)}`;
  return header;
}

/**
 * Checks an X-Service-Signature header against the raw body. Never throws for anything the sender
 * controls (header, body content); throws TypeError/RangeError only for programming errors
 * (empty secret, parsed body object, invalid tolerance or now).
 *
 * The signature is checked before the timestamp, so `stale_timestamp` always means "signed by the
 * gateway, but too old or too far in the future" (a replay, or a skewed clock).
 */
export function verify(options: VerifyOptions): VerifyResult {
  const secrets = secretsOf(options.secret);
  const body = bodyOf(options.rawBody);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== "number" || !Number.isFinite(tolerance) || tolerance <= 0) {
    throw new RangeError(`toleranceSeconds must be a positive number of seconds, got ${tolerance}`);
  }
  const now = options.now ?? nowSeconds();
  if (typeof now !== "number" || !Number.isFinite(now)) {
    throw new TypeError(`now must be unix seconds, got ${now}`);
  }

  const value = headerValue(options.header);
  if (value === undefined) return failure("missing_header");
  const parsed = parseHeader(value);
  if (parsed === undefined) return failure("malformed_header");

  let matched = false;
  for (const s of secrets) {
    const expected = Buffer.from(hmacHex(s, parsed.t, body), "latin1");
    for (const candidate of parsed.v1) {
      // no early exit: every candidate is compared against every secret
      if (equalBytes(expected, Buffer.from(candidate.toLowerCase(), "latin1"))) matched = true;
    }
  }
  if (!matched) return failure("bad_signature");

  const timestamp = Number(parsed.t);
  if (Math.abs(now - timestamp) >= tolerance) return failure("stale_timestamp");
  return { ok: true, timestamp };
}

/** `verify`, throwing `WebhookVerificationError` (with `reason`, `statusCode` 401) on failure; returns `t`. */
export function verifyOrThrow(options: VerifyOptions): number {
  const result = verify(options);
  if (!result.ok) throw new WebhookVerificationError(result.reason);
  return result.timestamp;
}

// ---------------------------------------------------------------------------------------------

const T_RE = /^(?:0|[1-9][0-9]*)$/;
const HEX_RE = /^[0-9a-fA-F]+$/;
const KEY_RE = /^[a-z][a-z0-9]*$/;
const WHITESPACE_RE = /\s/;

function failure(reason: VerificationFailureReason): VerifyFailure {
  return { ok: false, reason };
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function secretsOf(secret: WebhookSecret): readonly string[] {
  const secrets = typeof secret === "string" ? [secret] : secret;
  if (!Array.isArray(secrets) || secrets.length === 0) {
    throw new TypeError("secret must be a non-empty string or a non-empty array of them");
  }
  for (const s of secrets) {
    if (typeof s !== "string" || s.length === 0) {
      throw new TypeError("secret must be a non-empty string or a non-empty array of them");
    }
  }
  return secrets;
}

function bodyOf(rawBody: RawBody): RawBody {
  // ArrayBuffer.isView also accepts a Buffer/Uint8Array from another realm (vm, test environments)
  if (typeof rawBody === "string" || ArrayBuffer.isView(rawBody)) return rawBody;
  throw new TypeError(
    `rawBody must be the raw request body (string, Buffer or Uint8Array), got ${rawBody === null ? "null" : typeof rawBody}; ` +
      "a JSON body parser probably ran before verification (a re-serialized body never matches)",
  );
}

function hmacHex(secret: string, t: string, body: RawBody): string {
  const hmac = createHmac("sha256", secret).update(`${t}.`, "utf8");
  if (typeof body === "string") hmac.update(body, "utf8");
  else hmac.update(body);
  return hmac.digest("hex");
}

/** Constant time for equal lengths; a length mismatch is a plain `false` (timingSafeEqual would throw). */
function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function headerValue(header: VerifyOptions["header"]): string | undefined {
  if (header === undefined || header === null) return undefined;
  let value: string;
  if (typeof header === "string") value = header;
  else if (Array.isArray(header) && header.every((h) => typeof h === "string")) {
    if (header.length === 0) return undefined;
    // several headers: joined as Node joins them, which gives two `t=` and so malformed_header
    value = header.join(", ");
  } else return undefined;
  value = value.trim();
  return value === "" ? undefined : value;
}

/**
 * Strict parse of `t=<int>,v1=<hex>[,v1=<hex>…]`:
 * - elements are separated by `,`; spaces/tabs around an element are tolerated (`t=1, v1=…`),
 *   none inside it (`t = 1`, `v1= ab` are malformed); empty elements are malformed;
 * - keys are lowercase `[a-z][a-z0-9]*`; unknown keys (`v0`, a future `v2`) are ignored;
 * - exactly one `t`: decimal digits without sign, fraction or leading zero, a safe integer;
 * - at least one `v1`: hex digits (either case). Length is not checked here: a wrong length is
 *   `bad_signature`, like any other mismatch.
 */
function parseHeader(value: string): { t: string; v1: string[] } | undefined {
  let t: string | undefined;
  const v1: string[] = [];
  for (const raw of value.split(",")) {
    const element = raw.replace(/^[ \t]+|[ \t]+$/g, "");
    const eq = element.indexOf("=");
    if (eq <= 0) return undefined;
    const key = element.slice(0, eq);
    const val = element.slice(eq + 1);
    if (!KEY_RE.test(key) || val === "" || WHITESPACE_RE.test(val)) return undefined;
    if (key === "t") {
      if (t !== undefined || !T_RE.test(val) || !Number.isSafeInteger(Number(val))) return undefined;
      t = val;
    } else if (key === "v1") {
      if (!HEX_RE.test(val)) return undefined;
      v1.push(val);
    }
  }
  if (t === undefined || v1.length === 0) return undefined;
  return { t, v1 };
}
