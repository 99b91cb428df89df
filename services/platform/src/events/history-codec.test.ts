// The 7-day history's stored form (history-codec.ts): every envelope read back byte for byte as
// published, whatever it holds; entries written before (and the all-instances stream's) read as
// they are. No Redis: bus-history.test.ts runs the same through Redis and every reader.
import { randomBytes } from "node:crypto";
import type { EventEnvelope, EventKind } from "@gw/contracts";
import { expect, it } from "vitest";
import { historyCases, OFFICIAL, STANDARD, UNPAIRED } from "../testing/event-history.ts";
import { eventEnvelope, newEventId, stableEventId } from "./bus.ts";
import { historyEntryKind, historyFields, isHistoryEntry, readHistoryEntry } from "./history-codec.ts";

/** Encodes and decodes `env`; answers the stored value. */
function roundTrip(env: EventEnvelope): string {
  const body = JSON.stringify(env);
  const fields = historyFields(env, body);
  expect(isHistoryEntry(fields)).toBe(true);
  const back = readHistoryEntry(fields);
  expect(back.envelope).toBe(body);
  expect(back).toEqual({ id: env.id, kind: env.event, instanceId: env.instanceId, envelope: body });
  expect(historyEntryKind(fields)).toBe(env.event);
  return fields[1];
}

it("gives back every kind of event of standard, official and unpaired instances byte for byte", () => {
  for (const env of historyCases()) {
    const value = roundTrip(env);
    // Kept compact, not whole: the cases are what producers publish.
    expect(value.startsWith("="), `${env.event} ${env.provider}`).toBe(false);
  }
});

it("keeps the instance's repeated parts in the field, and a text message and its acks small", () => {
  const cases = historyCases().filter((e) => e.instanceId === STANDARD.id);
  const any = cases.find((e) => e.event === "message.any")!;
  const [field, value] = historyFields(any, JSON.stringify(any));
  expect(field).toBe(
    `\x01${STANDARD.id}\x01baileys\x01{"id":"${STANDARD.phone}@c.us","phone":"${STANDARD.phone}","pushName":"Loja \\"Central\\" \\\\ 🛒"}`,
  );
  expect(value.length).toBeLessThan(JSON.stringify(any).length / 2);
  const ms = Date.now();
  const payload = { id: `true_5511900000001@c.us_3EB0AA`, chatId: "5511900000001@c.us", status: "delivered" };
  const ack = eventEnvelope(STANDARD, "message.ack", { ...payload, timestamp: Math.floor(ms / 1000) }, newEventId(ms));
  ack.timestamp = ms;
  const [, ackValue] = historyFields(ack, JSON.stringify(ack));
  // ULID, "K", status letter, message id: the chat is in the id, the seconds are the envelope's.
  expect(ackValue).toBe(`${ack.id.slice(4)}Kd${ack.payload.id}`);
});

it("an ack whose chat, seconds or id the compact form cannot derive keeps them, or falls back", () => {
  const ms = Date.UTC(2030, 0, 1, 12, 0, 0, 500);
  const ack = (payload: Record<string, unknown>, id?: string): EventEnvelope => ({
    ...eventEnvelope(STANDARD, "message.ack", payload, id),
    timestamp: ms,
  });
  const base = { id: "true_5511900000001@c.us_3EB0AA", chatId: "5511900000001@c.us", status: "read" };
  const values = [
    ack({ ...base, timestamp: 1_893_499_200 }), // the envelope's second
    ack({ ...base, timestamp: 1_893_499_100 }), // 100 s earlier: the offset kept
    ack({ ...base, chatId: "other@lid", timestamp: 1_893_499_200 }), // not the id's chat
    ack({ ...base, chatId: "", timestamp: 1_893_499_200 }), // empty chat: the generic form
    ack({ ...base, id: "no-chat-here", timestamp: 1_893_499_200 }),
    ack({ ...base, status: "unknown", timestamp: 1_893_499_200 }),
    ack({ ...base, timestamp: 1.5 }),
    ack({ ...base, timestamp: 1_893_499_200, extra: true }),
    ack({ timestamp: 1_893_499_200, ...base }), // another key order
    ack({ ...base, timestamp: 1_893_499_200 }, stableEventId("ack-1", ms - 86_400_000)), // derived id, earlier
    ack({ ...base, timestamp: 1_893_499_200 }, stableEventId("ack-2", ms + 3_000)), // a negative offset
    ack({ ...base, id: 'true_5511900000001@c.us_"quoted"\\', timestamp: 1_893_499_200 }),
  ].map(roundTrip);
  expect(values.map((v) => v[26])).toEqual(["K", "K", "K", "k", "K", "k", "k", "k", "k", "K", "K", "K"]);
  expect(values[1]!.endsWith("\x01\x01-100")).toBe(true);
  expect(values[2]!.endsWith("\x01other@lid")).toBe(true);
});

it("keeps whole what the compact forms cannot give back", () => {
  const weird = [
    { ...eventEnvelope(STANDARD, "message", { text: "x" }), id: "evt_NOT-A-ULID" },
    { ...eventEnvelope(STANDARD, "message", { text: "x" }), timestamp: 1.25 },
    { ...eventEnvelope(STANDARD, "message", { text: "x" }), event: "Weird:Kind" as EventKind },
  ];
  for (const env of weird) expect(roundTrip(env).startsWith("=")).toBe(true);
  // A body that is not the envelope's JSON (another provider): kept as given, and read back as given.
  const env = eventEnvelope(OFFICIAL, "message", { text: "x" });
  const other = JSON.stringify({ ...env, provider: "sim" });
  const fields = historyFields(env, other);
  expect(fields[1]).toBe(`=${other}`);
  expect(readHistoryEntry(fields).envelope).toBe(other);
});

it("random payloads: strings with quotes, escapes, control characters, the table's fragments, unicode", () => {
  const pieces = [
    "null",
    "true",
    "false",
    "@c.us",
    ',"chatId":"',
    '{"id":"',
    "/v1/avatars/",
    ".jpg?exp=",
    "&sig=",
    STANDARD.id,
    STANDARD.phone,
    "Loja",
    '"',
    "\\",
    "\x01",
    "\x1f",
    "\n",
    "\u2028",
    "é",
    "🛒",
    "\ud800",
    "~-12",
    ":",
    "=",
    "K",
  ];
  const pick = () => pieces[randomBytes(1)[0]! % pieces.length]!;
  const str = () => Array.from({ length: randomBytes(1)[0]! % 12 }, pick).join("");
  const value = (depth: number): unknown => {
    const r = randomBytes(1)[0]! % (depth > 2 ? 5 : 8);
    if (r === 0) return null;
    if (r === 1) return randomBytes(1)[0]! % 2 === 0;
    if (r === 2) return randomBytes(4).readInt32LE() / (randomBytes(1)[0]! % 3 === 0 ? 7 : 1);
    if (r <= 4) return str();
    if (r === 5) return Array.from({ length: randomBytes(1)[0]! % 4 }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: randomBytes(1)[0]! % 5 }, () => [str(), value(depth + 1)]));
  };
  const kinds: EventKind[] = ["message", "message.any", "message.ack", "group.update", "call.received"];
  const sources = [STANDARD, OFFICIAL, UNPAIRED, { ...STANDARD, pushName: "null" }, { ...OFFICIAL, phone: "12" }];
  for (let i = 0; i < 1_000; i++) {
    const payload = Object.fromEntries(Array.from({ length: 1 + (i % 6) }, () => [str(), value(0)]));
    const env = eventEnvelope(sources[i % sources.length]!, kinds[i % kinds.length]!, payload, newEventId());
    roundTrip(env);
  }
});

it("reads the entries written before (the instance's stream) and the all-instances stream's", () => {
  const env = eventEnvelope(STANDARD, "message.any", { id: "x", chatId: "1@c.us" });
  const body = JSON.stringify(env);
  const before = ["event", "message.any", "envelope", body];
  expect(isHistoryEntry(before)).toBe(false);
  expect(readHistoryEntry(before)).toEqual({ id: env.id, kind: "message.any", instanceId: "", envelope: body });
  expect(historyEntryKind(before)).toBe("message.any");
  const all = [...before, "instanceId", STANDARD.id];
  expect(readHistoryEntry(all)).toEqual({ id: env.id, kind: "message.any", instanceId: STANDARD.id, envelope: body });
});
