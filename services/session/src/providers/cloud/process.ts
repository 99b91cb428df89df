import type { EventKind, Instance } from "@gw/contracts";
import { type Logger, type Platform, stableEventId } from "@gw/platform";
import { recordAck, recordInbound } from "../../events/record.ts";
import { keepContactBook, namedByBook } from "./address-book.ts";
import type { CloudItem } from "./inbound.ts";
import { type CloudChangeItem, mapChange } from "./inbound-fields.ts";
import { arr, obj } from "./values.ts";

/** What the gateway keeps of one change of an operator webhook, for the processor. */
export interface CloudChange {
  field: string;
  value: unknown;
  /** `entry[].time` (unix s), when the operator gives it. */
  time?: number;
}

const SEEN_TTL_S = 7 * 86_400;

/** Every change of an operator webhook (`entry[].changes[]`), with its entry's `time`. */
export function changesOf(payload: unknown): CloudChange[] {
  const out: CloudChange[] = [];
  for (const e of arr(obj(payload).entry)) {
    const entry = obj(e);
    const time = typeof entry.time === "number" ? entry.time : undefined;
    for (const c of arr(entry.changes)) {
      const change = obj(c);
      out.push({ field: String(change.field ?? ""), value: change.value, ...(time ? { time } : {}) });
    }
  }
  return out;
}

export interface ProcessResult {
  items: number;
  duplicates: number;
}

/**
 * One stream entry of an instance's operator webhooks, processed: each item (a message, a
 * status, an event) is claimed by its operator id first — the operator retries for up to 7 days
 * and may send the same item twice, out of order: a claim made by another entry is a duplicate
 * and dropped; a claim of this very entry is a retry of it after a crash, done again. Events get
 * ids derived from the item ({@link stableEventId}), so a redone item reaches receivers as the
 * same event (spec 6.4: duplicates dropped by `id`).
 */
export async function processCloudChanges(
  platform: Platform,
  log: Logger,
  instanceId: string,
  changes: CloudChange[],
  entryId: string,
): Promise<ProcessResult> {
  const result: ProcessResult = { items: 0, duplicates: 0 };
  const instance = await platform.instanceCache.get(instanceId);
  if (!instance) {
    log.info({ instanceId }, "operator webhook for a deleted instance: dropped");
    return result;
  }
  for (const change of changes) {
    for (const item of mapChange(change.field, change.value, change.time)) {
      if (!(await claim(platform, instanceId, item.key, entryId))) {
        result.duplicates++;
        continue;
      }
      result.items++;
      await apply(platform, log, instance, item);
    }
  }
  return result;
}

async function claim(platform: Platform, instanceId: string, key: string, entryId: string): Promise<boolean> {
  const seen = platform.keys.cloudSeen(instanceId, key);
  if ((await platform.redis.set(seen, entryId, "EX", SEEN_TTL_S, "NX")) === "OK") return true;
  return (await platform.redis.get(seen)) === entryId;
}

const idOf = (instance: Instance, key: string, kind: string, atS: number) =>
  stableEventId(`${instance.id}|${key}|${kind}`, atS * 1000);

async function applyMessage(
  platform: Platform,
  log: Logger,
  instance: Instance,
  item: Extract<CloudItem, { kind: "message" }>,
  publish: boolean,
): Promise<void> {
  // Spec 1 rule 7: the name the business saved for the customer (coexistence), else the profile name.
  const m = await namedByBook(platform, instance.id, item.message);
  // Kept for downloads (the media id) and as the operator's form of the message.
  await platform.messages.saveRaw(instance.id, m.id, JSON.stringify(item.rawMessage));
  if (item.window && publish) await platform.windows.note(instance.id, m.chatId, m.timestamp, m.id);
  await recordInbound(platform, log, instance, m, {
    eventId: (kind) => idOf(instance, item.key, kind, m.timestamp),
    publish,
  });
}

async function apply(platform: Platform, log: Logger, instance: Instance, item: CloudChangeItem): Promise<void> {
  switch (item.kind) {
    case "message":
      return applyMessage(platform, log, instance, item, true);
    case "ack":
      return recordAck(platform, log, instance, item.ack, {
        eventId: idOf(instance, item.key, "message.ack", item.ack.timestamp),
      });
    case "event":
      if (item.warn) log.warn({ instanceId: instance.id, ...item.warn }, "the operator reported an error in a webhook");
      if (item.event === "contact.sync") await keepContactBook(platform, instance.id, item.payload);
      await platform.events.publish(
        instance,
        item.event,
        item.payload,
        idOf(instance, item.key, item.event, Number(item.payload.timestamp) || Math.floor(Date.now() / 1000)),
      );
      return;
    case "history": {
      for (const sub of item.items) {
        if (sub.kind === "message") await applyMessage(platform, log, instance, sub, false);
      }
      if (!item.payload) return; // media of earlier chunks: the read model only
      const kind: EventKind = "history.sync";
      await platform.events.publish(
        instance,
        kind,
        item.payload,
        idOf(instance, item.key, kind, Number(item.payload.timestamp)),
      );
      return;
    }
  }
}
