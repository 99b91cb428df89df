import type { ErrorBody } from "@gw/contracts";

/** An API answer other than 2xx, with the error body's code and message (every error shows both). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, string> | undefined = undefined,
    readonly requestId: string | undefined = undefined,
  ) {
    super(message);
  }
}

/** Who calls: the admin token (Authorization: Bearer) or an instance's (X-Instance-Token). */
export type Credential = { kind: "admin"; token: string } | { kind: "instance"; token: string };

export interface CallOptions {
  json?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
}

function withQuery(path: string, query: CallOptions["query"]): string {
  if (!query) return path;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/**
 * One call to the gateway's REST API on this origin. The token goes in a header, never in the
 * URL (URLs end up in logs and the history).
 */
export async function call<T>(cred: Credential, method: string, path: string, opts: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { ...opts.headers };
  if (cred.kind === "admin") headers.authorization = `Bearer ${cred.token}`;
  else headers["x-instance-token"] = cred.token;
  if (opts.json !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(withQuery(path, opts.query), {
      method,
      headers,
      body: opts.json !== undefined ? JSON.stringify(opts.json) : undefined,
      credentials: "omit",
      cache: "no-store",
    });
  } catch (err) {
    throw new ApiFailure(0, "network", `the gateway did not answer: ${(err as Error).message}`);
  }
  const text = await res.text();
  const body = text ? parse(text) : undefined;
  if (res.ok) return body as T;
  const error = (body as Partial<ErrorBody> | undefined)?.error;
  throw new ApiFailure(
    res.status,
    error?.code ?? `http_${res.status}`,
    error?.message ?? (text.slice(0, 200) || res.statusText),
    error?.details,
    res.headers.get("x-request-id") ?? undefined,
  );
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
