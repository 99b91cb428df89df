// Shared assertions and utilities of the e2e suite (test/e2e). Real HTTP only: no mocks.
import { type ChildProcess, spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import { ADMIN_TOKEN, testEnv } from "./gateway.ts";

export const ROOT = new URL("../../", import.meta.url).pathname;
export const TSX = `${ROOT}node_modules/.bin/tsx`;

export type ErrorPayload = { error: { code: string; message: string; details?: Record<string, string> } };

/**
 * Asserts the spec section 7 error contract: the status, a JSON content type and a body that is
 * exactly `{"error":{"code","message","details?"}}` with a non-empty (Portuguese) message.
 */
export async function expectError(res: Response, status: number, code: string): Promise<ErrorPayload> {
  const text = await res.text();
  expect(res.status, `status of ${text}`).toBe(status);
  expect(res.headers.get("content-type") ?? "").toMatch(/^application\/json\b/);
  const body = JSON.parse(text) as ErrorPayload;
  expect(Object.keys(body)).toEqual(["error"]);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  expect(body.error.message.trim().length).toBeGreaterThan(0);
  for (const key of Object.keys(body.error)) expect(["code", "message", "details"]).toContain(key);
  if ("details" in body.error) {
    expect(body.error.details).toBeTypeOf("object");
    expect(body.error.details).not.toBeNull();
    expect(Array.isArray(body.error.details)).toBe(false);
    for (const v of Object.values(body.error.details ?? {})) expect(typeof v).toBe("string");
  }
  return body;
}

/** Reads a 2xx JSON body, failing with the body text when the status differs. */
export async function expectJson<T = Record<string, any>>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, `status of ${text}`).toBe(status);
  expect(res.headers.get("content-type") ?? "").toMatch(/^application\/json\b/);
  return JSON.parse(text) as T;
}

export const tokenHeaders = (token: string, extra: Record<string, string> = {}) => ({
  "x-instance-token": token,
  ...extra,
});

export const adminHeaders = (extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${ADMIN_TOKEN}`,
  ...extra,
});

/** A TCP port that was free a moment ago (listen on 0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      if (addr === null || typeof addr === "string") return reject(new Error("no port"));
      srv.close(() => resolve(addr.port));
    });
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request through node:http, for what fetch cannot express: chunked bodies written piece by
 * piece. Write errors after the server answered (it may stop reading) are ignored.
 */
export function rawRequest(
  url: string,
  opts: { method: string; headers?: Record<string, string>; chunks?: Buffer[] },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(url, { method: opts.method, headers: opts.headers ?? {} }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString("utf8") }),
      );
      res.on("error", reject);
    });
    req.on("error", (err) => {
      if (!answered) reject(err);
    });
    const chunks = opts.chunks ?? [];
    const writeNext = (i: number) => {
      if (answered || req.destroyed) return;
      if (i >= chunks.length) return void req.end();
      if (req.write(chunks[i]!)) setImmediate(() => writeNext(i + 1));
      else req.once("drain", () => writeNext(i + 1));
    };
    writeNext(0);
  });
}

export interface ChildGateway {
  url: string;
  internalUrl: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Polls `url` until it answers 200. */
export async function waitFor200(url: string, child: ChildProcess, output: () => string, timeoutMs = 90_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`gateway process exited (${child.exitCode}):\n${output()}`);
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms:\n${output()}`);
}

/** A real gateway process (`node --import tsx services/main/src/main.ts`) on fixed free ports. */
export async function spawnGatewayProcess(env: Record<string, string>): Promise<ChildGateway> {
  const [port, internalPort] = [await freePort(), await freePort()];
  const fullEnv = { ...testEnv(), ...env, PORT: String(port), INTERNAL_PORT: String(internalPort) };
  const child = spawn(process.execPath, ["--import", "tsx", "services/main/src/main.ts"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...fullEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    out += c.toString();
  });
  const output = () => out;
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitFor200(`${url}/healthz`, child, output);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, internalUrl: `http://127.0.0.1:${internalPort}`, child, output, stop };
}

/** Every header name of a response that starts with `access-control-`. */
export function corsHeaders(res: Response): string[] {
  return [...res.headers.keys()].filter((k) => k.toLowerCase().startsWith("access-control-"));
}

/**
 * Polls `fn` until it answers something truthy (a condition, never a sleep: these machines are
 * noisy), or fails naming `what` after `timeoutMs`.
 */
export async function until<T>(
  fn: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const got = await fn();
    if (got) return got;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Reads `read` until `done` holds of what it answered (polled every 250 ms), or fails naming
 * `what` and the last answer after `timeoutMs`.
 */
export async function waitUntil<T>(
  read: () => Promise<T>,
  done: (v: T) => boolean,
  what: string,
  timeoutMs: number,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 250));
    last = await read();
  }
  return last;
}

/** A client of one instance's routes on a gateway: `call("/queue", {method, json, headers})`. */
export function instanceCaller(gatewayUrl: () => string, instance: () => { id: string; token: string }) {
  return (path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}) => {
    const { id, token } = instance();
    return fetch(`${gatewayUrl()}/v1/instances/${id}${path}`, {
      method: init.method ?? "GET",
      headers: {
        "x-instance-token": token,
        ...(init.json !== undefined ? { "content-type": "application/json" } : {}),
        ...init.headers,
      },
      body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
    });
  };
}
