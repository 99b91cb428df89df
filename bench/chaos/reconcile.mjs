// The chaos bench's reconciliation, from the outside only: what the contacts' virtual phones
// received (simnet), the queue items and the recent events (the public API), what the webhook
// receiver was answered 2xx for, and simnet's count of overlapping connections.
import { percentile, sleep } from "../lib.mjs";
import { instanceApi } from "./client.mjs";

const textOf = (m) => m?.message?.text ?? m?.text ?? m?.body ?? "";

async function json(res) {
  if (!res.ok) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** How many times each text reached each contact's phone: "contact text" → count. */
async function phoneCounts(sim, contacts) {
  const counts = new Map();
  for (const phone of contacts) {
    let since = 0;
    for (;;) {
      const r = await sim("GET", `/simnet/phones/${phone}/inbox?since=${since}&limit=1000`);
      const msgs = r.body?.messages ?? [];
      for (const m of msgs) {
        const k = `${phone} ${textOf(m)}`;
        counts.set(k, (counts.get(k) ?? 0) + 1);
        since = Math.max(since, m.seq);
      }
      if (msgs.length < 1000) break;
    }
  }
  return counts;
}

/** Every event the API lists for an instance (7 days, newest first): [{id, event, payload}]. */
export async function listEvents(entryUrl, inst) {
  const api = instanceApi(entryUrl, inst);
  const out = [];
  let cursor;
  for (;;) {
    const q = `?limit=500${cursor ? `&cursor=${cursor}` : ""}`;
    const page = await json(await api("GET", `/events${q}`));
    out.push(...page.data);
    if (!page.nextCursor) return out;
    cursor = page.nextCursor;
  }
}

const FINAL = new Set(["sent", "failed", "expired", "cancelled"]);

/** The queue's typing rule (workflows/src/queue-activities.ts typingRuleMs): 40 ms a character, 1–8 s. */
const typingMs = (text) => Math.min(8_000, Math.max(1_000, Math.round(text.length * 40)));
/** Per item, beyond its delay and typing: the steps, the child workflow, a loaded machine (p50 measured 0.5 s). */
export const QUEUE_ITEM_SLACK_MS = 2_000;
/** Once per drain: a worker's reconcile pass, a disconnected item's longest backoff (15 s), a workflow task timeout. */
export const QUEUE_DRAIN_BASE_MS = 60_000;

/**
 * The longest the queues may take to drain from now if nothing is lost: each instance sends one
 * item at a time (docs/sending.md "Timing"), so its bound is the sum over its pending items of
 * their delay and typing plus a slack each; the instances drain side by side (the largest wins).
 */
export function queueDrainBoundMs(pending) {
  const perInstance = new Map();
  for (const q of pending) {
    const ms = q.delayMessage * 1000 + typingMs(q.tag) + QUEUE_ITEM_SLACK_MS;
    perInstance.set(q.instanceId, (perInstance.get(q.instanceId) ?? 0) + ms);
  }
  return QUEUE_DRAIN_BASE_MS + Math.max(0, ...perInstance.values());
}

/**
 * Polls the queue items until each is final, or until the drain bound of the items pending when
 * it starts ({@link queueDrainBoundMs}): a queue under load is behind by design (one item at a
 * time, each after its delay and typing), so a fixed settle time would count a slow queue as a
 * loss; an item still pending past the bound is one its workflow does not serve.
 * Answers {items: id → item, pendingAtStart, boundMs, drainMs}.
 */
export async function queueFinals(entryUrl, world, queued) {
  const byId = new Map(world.instances.map((i) => [i.id, i]));
  const items = new Map();
  const start = Date.now();
  const read = async () => {
    for (const q of queued) {
      if (!q.queueId || FINAL.has(items.get(q.queueId)?.status)) continue;
      const res = await instanceApi(entryUrl, byId.get(q.instanceId))("GET", `/queue/${q.queueId}`).catch(() => null);
      if (res?.ok) items.set(q.queueId, await res.json());
    }
    return queued.filter((q) => q.queueId && !FINAL.has(items.get(q.queueId)?.status));
  };
  let pending = await read();
  const pendingAtStart = pending.length;
  const boundMs = queueDrainBoundMs(pending);
  while (pending.length > 0 && Date.now() - start < boundMs) {
    await sleep(1000);
    pending = await read();
  }
  return { items, pendingAtStart, boundMs, drainMs: Date.now() - start };
}

/** Waits until every listed event reached the receiver (or `timeoutMs`): the events per instance. */
export async function eventsSettled(entryUrl, world, receiver, timeoutMs) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const all = new Map();
    for (const inst of world.instances) all.set(inst.id, await listEvents(entryUrl, inst));
    const missing = [...all.values()].flat().filter((e) => !receiver.delivered.has(e.id));
    if (missing.length === 0 || Date.now() > until) return all;
    await sleep(2000);
  }
}

export async function reconcile({ cluster, world, record, receiver, events, queueItems, owners }) {
  const problems = [];
  const fig = { lost: 0, duplicated: 0 };
  const counts = await phoneCounts(world.sim, world.contacts);
  const onPhone = (contact, tag) => counts.get(`${contact} ${tag}`) ?? 0;

  // Immediate sends: a 2xx is on the phone exactly once. A final 4xx is a refusal (the spec's
  // retry rules: do not repeat): never on the phone, else a client that believed it would send
  // again; counted apart here, not a loss (whether a kill should have answered it with a 4xx at
  // all is answers.mjs's check). No final answer (the client gave up, a 5xx): at most once.
  const sends = { total: record.sends.length, ok: 0, notOk: 0, retried: 0, refused: {}, unanswered: 0 };
  for (const s of record.sends) {
    const n = onPhone(s.contact, s.tag);
    if (s.tries.length > 1) sends.retried++;
    if (s.status >= 200 && s.status < 300) {
      sends.ok++;
      if (n === 0) {
        fig.lost++;
        problems.push(`send ${s.tag} answered ${s.status} but not on ${s.contact}'s phone (tries ${s.tries})`);
      }
    } else {
      sends.notOk++;
      if (s.status >= 400 && s.status < 500) {
        const k = `${s.status} ${s.code ?? "?"}`;
        sends.refused[k] = (sends.refused[k] ?? 0) + 1;
        if (n > 0) problems.push(`send ${s.tag} refused ${k} but on ${s.contact}'s phone (tries ${s.tries})`);
      } else sends.unanswered++;
    }
    if (n > 1) {
      fig.duplicated++;
      problems.push(`send ${s.tag} on ${s.contact}'s phone ${n} times (tries ${s.tries})`);
    }
  }

  // Queued sends: final, and `sent` exactly once on the phone, or failed/expired with its event.
  const allEvents = [...events.values()].flat();
  const queueFailedIds = new Set(
    allEvents.filter((e) => e.event === "queue.failed").map((e) => e.payload?.id ?? e.payload?.queueId),
  );
  const queue = { total: record.queued.length, accepted: 0, sent: 0, failed: 0, stuck: 0, refused: {} };
  for (const q of record.queued) {
    const n = onPhone(q.contact, q.tag);
    if (n > 1) {
      fig.duplicated++;
      problems.push(`queued ${q.tag} on ${q.contact}'s phone ${n} times`);
    }
    if (q.status !== 202) {
      const k = `${q.status || "unanswered"} ${q.code ?? ""}`.trim();
      queue.refused[k] = (queue.refused[k] ?? 0) + 1;
      if (n > 0 && q.status >= 400 && q.status < 500) problems.push(`queued ${q.tag} refused ${k} but sent`);
      continue;
    }
    queue.accepted++;
    const item = queueItems.items.get(q.queueId);
    if (item?.status === "sent") {
      queue.sent++;
      if (n !== 1) {
        fig.lost++;
        problems.push(`queue item ${q.queueId} (${q.tag}) sent but on the phone ${n} times`);
      }
    } else if (item?.status === "failed" || item?.status === "expired") {
      queue.failed++;
      if (!queueFailedIds.has(q.queueId)) problems.push(`queue item ${q.queueId} ${item.status} without queue.failed`);
    } else {
      queue.stuck++;
      fig.lost++;
      problems.push(
        `queue item ${q.queueId} (${q.tag}) still ${item?.status ?? "unreadable"} after ${(queueItems.drainMs / 1000).toFixed(0)} s of draining (bound ${(queueItems.boundMs / 1000).toFixed(0)} s)`,
      );
    }
  }

  // Inbound: delivered to the receiver at least once, and once in the chat's messages.
  const inboundByText = new Map();
  for (const d of receiver.delivered.values()) {
    if (d.event === "message" && d.payload?.fromMe === false) inboundByText.set(d.payload.text, d);
  }
  const inbound = { total: record.inbound.length, delivered: 0 };
  const byId = new Map(world.instances.map((i) => [i.id, i]));
  for (const m of record.inbound) {
    if (m.status !== 201) {
      problems.push(`inbound ${m.tag}: simnet answered ${m.status}`);
      continue;
    }
    if (inboundByText.has(m.tag)) inbound.delivered++;
    else {
      fig.lost++;
      problems.push(`inbound ${m.tag} to ${m.instanceId} never reached the webhook receiver`);
    }
    const api = instanceApi(cluster.entryUrl, byId.get(m.instanceId));
    const res = await api("GET", `/chats/${m.contact}@c.us/messages?limit=1000`);
    const list = res.ok ? await res.json() : [];
    const n = list.filter((x) => x.body === m.tag).length;
    if (n !== 1) {
      if (n === 0) fig.lost++;
      else fig.duplicated++;
      problems.push(`inbound ${m.tag} appears ${n} times in /chats/${m.contact}@c.us/messages (${res.status})`);
    }
  }

  // Events: every listed event id reached the receiver; duplicates counted apart.
  const ev = { listed: allEvents.length, reached: 0, deliveries: 0, duplicateDeliveries: 0 };
  for (const e of allEvents) {
    const d = receiver.delivered.get(e.id);
    if (d) {
      ev.reached++;
      ev.duplicateDeliveries += d.deliveries - 1;
    } else {
      fig.lost++;
      problems.push(`event ${e.id} (${e.event}) never reached the receiver`);
    }
  }
  for (const d of receiver.delivered.values()) ev.deliveries += d.deliveries;

  // Owners: nobody left without one; no two connections of one instance at once.
  const stats = (await world.sim("GET", "/simnet/stats")).body ?? {};
  const own = {
    ownerlessP95: percentile(
      [...owners.gaps].sort((a, b) => a - b),
      95,
    ),
    ownerlessMax: Math.max(0, ...owners.gaps),
    stretches: owners.gaps.length,
    open: owners.open.length,
    overlaps: stats.instanceOverlaps ?? "n/a",
    conflicts: stats.conflicts ?? "n/a",
  };
  for (const o of owners.open) problems.push(`instance ${o.id} without an owner at the end (${o.seconds} s)`);
  if (stats.instanceOverlaps > 0 || stats.conflicts > 0) {
    problems.push(
      `two connections of one instance at once: overlaps ${stats.instanceOverlaps}, conflicts ${stats.conflicts}`,
    );
  }
  return { sends, queue, inbound, events: ev, owners: own, ...fig, problems };
}
