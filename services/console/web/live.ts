import type { EventEnvelope } from "@gw/contracts";
import { eventKinds as EVENT_KINDS } from "@gw/contracts/event-kinds";
import { ApiFailure, type Credential, call } from "./api.ts";

/** What the live log reads from: one instance (its token), or every instance (the admin token). */
export type LiveScope =
  | { kind: "instance"; instanceId: string; cred: Credential }
  | { kind: "admin"; cred: Credential };

export type LiveMode = "connecting" | "stream" | "polling" | "reconnecting";

export interface Live {
  /** `replay`: first the events already seen (up to the last 500), oldest first. */
  subscribe(fn: (e: EventEnvelope) => void, replay?: boolean): () => void;
  onMode(fn: (mode: LiveMode, why?: string) => void): void;
  close(): void;
}

const POLL_MS = 2000;
const RECONNECT_MS = 1500;
const SEEN_MAX = 2000;
const RECENT_MAX = 500;

/**
 * Events as they happen: the Server-Sent Events stream (issue 25 §1) opened with a short-lived
 * ticket, since EventSource cannot send the token in a header and the token never goes in a URL.
 * Where the gateway has no stream route (404: it predates it) it polls `GET /events` every 2 s
 * instead; for the admin scope that covers the instances whose tokens the tab holds (`polled`).
 * Events are handed on once each, oldest first, whichever way they came.
 */
export function openLive(scope: LiveScope, polled: () => { instanceId: string; cred: Credential }[] = () => []): Live {
  const listeners = new Set<(e: EventEnvelope) => void>();
  let modeListener: (mode: LiveMode, why?: string) => void = () => {};
  let current: [LiveMode, string | undefined] = ["connecting", undefined];
  const seen = new Set<string>();
  const recent: EventEnvelope[] = [];
  let lastId: string | undefined;
  let source: EventSource | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const emit = (e: EventEnvelope) => {
    if (seen.has(e.id)) return;
    seen.add(e.id);
    if (seen.size > SEEN_MAX) seen.delete(seen.values().next().value as string);
    lastId = e.id;
    recent.push(e);
    if (recent.length > RECENT_MAX) recent.shift();
    for (const fn of listeners) fn(e);
  };
  const mode = (m: LiveMode, why?: string) => {
    current = [m, why];
    modeListener(m, why);
  };

  const base = scope.kind === "instance" ? `/v1/instances/${scope.instanceId}` : "/v1/admin";

  /** An instance's recent events first (the log starts with them); the stream resumes after them. */
  async function history(): Promise<void> {
    if (scope.kind !== "instance") return;
    const page = await call<{ data: EventEnvelope[] }>(scope.cred, "GET", `${base}/events`, { query: { limit: 50 } });
    for (const e of page.data.reverse()) emit(e);
  }

  async function connect(): Promise<void> {
    if (closed) return;
    let ticket: string;
    try {
      ({ ticket } = await call<{ ticket: string }>(scope.cred, "POST", `${base}/stream-ticket`));
    } catch (err) {
      if (err instanceof ApiFailure && (err.status === 404 || err.status === 405)) return startPolling();
      mode("reconnecting", err instanceof ApiFailure ? `${err.code}: ${err.message}` : String(err));
      timer = setTimeout(connect, RECONNECT_MS * 2);
      return;
    }
    if (closed) return;
    const q = new URLSearchParams({ ticket });
    if (lastId) q.set("cursor", lastId);
    source = new EventSource(`${base}/events/stream?${q}`);
    source.onopen = () => mode("stream");
    const onEvent = (m: MessageEvent<string>) => {
      try {
        emit(JSON.parse(m.data) as EventEnvelope);
      } catch {
        // not an envelope: nothing to show
      }
    };
    // Each event comes named by its kind (`event: message.any`), which only a listener for that
    // name receives; unnamed ones too, should a gateway send them so.
    source.onmessage = onEvent;
    for (const kind of EVENT_KINDS) source.addEventListener(kind, onEvent);
    // The gateway closed a stream we read too slowly: resume from the id it names.
    source.addEventListener("overflow", (m: MessageEvent<string>) => {
      try {
        lastId = (JSON.parse(m.data) as { cursor: string | null }).cursor ?? lastId;
      } catch {}
    });
    // EventSource would reconnect by itself with the same URL, whose ticket has expired by then:
    // a new ticket, resuming after the last event seen.
    source.onerror = () => {
      source?.close();
      source = null;
      if (closed) return;
      mode("reconnecting");
      timer = setTimeout(connect, RECONNECT_MS);
    };
  }

  async function pollOnce(since: Map<string, number>): Promise<void> {
    const targets = scope.kind === "instance" ? [{ instanceId: scope.instanceId, cred: scope.cred }] : polled();
    const batches = await Promise.all(
      targets.map(async ({ instanceId, cred }) => {
        const from = since.get(instanceId);
        const page = await call<{ data: EventEnvelope[] }>(cred, "GET", `/v1/instances/${instanceId}/events`, {
          query: { limit: from === undefined ? 50 : 200, since: from },
        }).catch(() => ({ data: [] as EventEnvelope[] }));
        const newest = page.data[0];
        if (newest) since.set(instanceId, newest.timestamp);
        else if (from === undefined) since.set(instanceId, 0);
        return page.data;
      }),
    );
    for (const e of batches.flat().sort((a, b) => a.timestamp - b.timestamp)) emit(e);
  }

  function startPolling(): void {
    mode("polling", "this gateway has no event stream: polling every 2 s");
    const since = new Map<string, number>();
    const tick = async () => {
      if (closed) return;
      await pollOnce(since);
      if (!closed) timer = setTimeout(tick, POLL_MS);
    };
    void tick();
  }

  void history()
    .catch(() => {})
    .then(connect);
  return {
    subscribe(fn, replay = false) {
      if (replay) for (const e of recent) fn(e);
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    onMode(fn) {
      modeListener = fn;
      fn(...current);
    },
    close() {
      closed = true;
      clearTimeout(timer);
      source?.close();
    },
  };
}
