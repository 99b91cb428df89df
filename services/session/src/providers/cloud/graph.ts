import { Agent, type FormData, request } from "undici";

/**
 * A minimal client of the operator's Graph API (reference cloud-api.md §0): Bearer token, JSON
 * bodies, every error answer `{error:{message, type, code, error_data?, error_subcode?}}`. The
 * base URL is the instance's `apiBaseUrl` (the Graph root with its version path).
 */

/** One keep-alive agent per pod: every official instance's calls share its connections. */
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256 });

export interface GraphErrorBody {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  error_data?: { details?: string; messaging_product?: string };
  fbtrace_id?: string;
}

/**
 * An error answer of the operator. `code` is the operator's error code, or null when the answer
 * carried none: a body that is not the operator's JSON (a proxy's or load balancer's page, an
 * empty 502) — then only the HTTP status says what happened. No answer at all: `transport` true.
 * (Code 0 is a real code of the operator, AuthException: never a stand-in for "none".)
 */
export class GraphError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | null,
    message: string,
    readonly details: string | null,
    readonly subcode: number | null,
    readonly transport = false,
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.name = "GraphError";
  }
}

export interface GraphTarget {
  apiBaseUrl: string;
  accessToken: string;
  timeoutMs: number;
}

type Query = Record<string, string | number | undefined>;

function urlOf(base: string, path: string, query?: Query): string {
  const url = new URL(`${base.replace(/\/$/, "")}/${path.replace(/^\//, "")}`);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

async function answer<T>(res: Awaited<ReturnType<typeof request>>): Promise<T> {
  const text = await res.body.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (res.statusCode >= 200 && res.statusCode < 300) return body as T;
  const err = ((body as { error?: GraphErrorBody } | null)?.error ?? {}) as GraphErrorBody;
  const retry = Number(res.headers["retry-after"]);
  const code = typeof err.code === "number" ? err.code : null;
  throw new GraphError(
    res.statusCode,
    code,
    err.message ?? (code === null ? `HTTP ${res.statusCode} sem corpo de erro do operador` : `HTTP ${res.statusCode}`),
    err.error_data?.details ?? null,
    typeof err.error_subcode === "number" ? err.error_subcode : null,
    false,
    Number.isFinite(retry) && retry > 0 ? retry : null,
  );
}

async function send<T>(
  target: GraphTarget,
  method: "GET" | "POST" | "DELETE",
  url: string,
  init: { body?: string | FormData | Buffer; headers?: Record<string, string> } = {},
): Promise<T> {
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, {
      method,
      dispatcher: agent,
      headers: { authorization: `Bearer ${target.accessToken}`, ...init.headers },
      ...(init.body !== undefined ? { body: init.body } : {}),
      headersTimeout: target.timeoutMs,
      bodyTimeout: target.timeoutMs,
    });
  } catch (err) {
    const timeout = (err as { code?: string }).code?.includes("TIMEOUT") ?? false;
    throw new GraphError(0, null, timeout ? "timeout" : String((err as Error).message), null, null, true);
  }
  return answer<T>(res);
}

export const graph = {
  get<T>(target: GraphTarget, path: string, query?: Query): Promise<T> {
    return send<T>(target, "GET", urlOf(target.apiBaseUrl, path, query));
  },
  /** A JSON body, or none (`undefined`: the parameters are in the query). */
  post<T>(target: GraphTarget, path: string, json: unknown, query?: Query): Promise<T> {
    const url = urlOf(target.apiBaseUrl, path, query);
    if (json === undefined) return send<T>(target, "POST", url);
    return send<T>(target, "POST", url, {
      body: JSON.stringify(json),
      headers: { "content-type": "application/json" },
    });
  },
  delete<T>(target: GraphTarget, path: string, query?: Query): Promise<T> {
    return send<T>(target, "DELETE", urlOf(target.apiBaseUrl, path, query));
  },
  /** multipart/form-data (media upload). */
  form<T>(target: GraphTarget, path: string, form: FormData): Promise<T> {
    return send<T>(target, "POST", urlOf(target.apiBaseUrl, path), { body: form });
  },
  /** Raw bytes with extra headers (the resumable upload's `file_offset`). */
  bytes<T>(target: GraphTarget, path: string, bytes: Buffer, headers: Record<string, string>): Promise<T> {
    return send<T>(target, "POST", urlOf(target.apiBaseUrl, path), { body: bytes, headers });
  },
  /** A media URL the operator gave (not under the base URL): the bytes, with the token. */
  async download(target: GraphTarget, url: string): Promise<{ data: Buffer; mimetype: string }> {
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(url, {
        method: "GET",
        dispatcher: agent,
        headers: { authorization: `Bearer ${target.accessToken}` },
        headersTimeout: target.timeoutMs,
        bodyTimeout: target.timeoutMs,
      });
    } catch (err) {
      throw new GraphError(0, null, String((err as Error).message), null, null, true);
    }
    if (res.statusCode !== 200) return answer(res);
    const data = Buffer.from(await res.body.arrayBuffer());
    return { data, mimetype: String(res.headers["content-type"] ?? "application/octet-stream") };
  },
};
