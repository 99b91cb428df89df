import type { Redis } from "ioredis";
import { eventIdTime, readHistoryEntry } from "./history-codec.ts";

export { eventIdOf, eventIdTime } from "./history-codec.ts";

/**
 * Reading the event streams entry by entry, for the live streams (docs/streams.md): the
 * 7-day stream of an instance (its entries as history-codec.ts keeps them, or as they were
 * before: `event`, kind, `envelope`, JSON), or the all-instances stream (all-events.ts: those
 * four fields and `instanceId`, id), as bus.ts writes them.
 */
export interface StoredEvent {
  /** The entry's stream id (Redis's clock): the order events are read in. */
  streamId: string;
  /** The envelope's `evt_` id (the producer's clock): what clients see and resume after. */
  id: string;
  kind: string;
  instanceId: string;
  /** The envelope's JSON, byte for byte as published. */
  envelope: string;
}

type Entry = [id: string, fields: string[]];

/** Orders two stream ids (`<ms>-<seq>`, unsigned integers): negative, zero or positive. */
export function compareStreamIds(a: string, b: string): number {
  if (a === b) return 0;
  const da = a.indexOf("-");
  const db = b.indexOf("-");
  // Parts of equal lengths on both sides (the usual case: ms of 13 digits): the text order is the order.
  if (da === db && a.length === b.length) return a < b ? -1 : 1;
  const ms = Number(a.slice(0, da)) - Number(b.slice(0, db));
  if (ms !== 0) return ms;
  const sa = a.slice(da + 1);
  const sb = b.slice(db + 1);
  // Integers without leading zeros: the longer is larger, else the text order is the number order.
  return sa.length !== sb.length ? sa.length - sb.length : sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** An entry of either stream; `instanceId` when the entry does not name it (an instance's own stream). */
export function storedEvent([streamId, fields]: Entry, instanceId = ""): StoredEvent {
  const e = readHistoryEntry(fields);
  return { streamId, id: e.id, kind: e.kind, instanceId: e.instanceId || instanceId, envelope: e.envelope };
}

/** Up to `count` entries after the stream id `after` (exclusive), oldest first. */
export async function entriesAfter(
  redis: Redis,
  key: string,
  after: string,
  count: number,
  instanceId?: string,
): Promise<StoredEvent[]> {
  const rows = (await redis.xrange(key, `(${after}`, "+", "COUNT", count)) as Entry[];
  return rows.map((row) => storedEvent(row, instanceId));
}

/** The stream's last entry id, "0-0" when it is empty or absent (everything added later is after it). */
export async function lastStreamId(redis: Redis, key: string): Promise<{ streamId: string; id: string | null }> {
  const [row] = (await redis.xrevrange(key, "+", "-", "COUNT", 1)) as Entry[];
  return row ? { streamId: row[0], id: storedEvent(row).id } : { streamId: "0-0", id: null };
}

/**
 * Entries from `start` (inclusive), `count` at most, scanned in Redis for the event whose id is
 * the needle: `"id":"evt_…"` near the start of an envelope (an entry of the layout before, or one
 * the history keeps whole after its `=`), or the id's ULID first in a history entry's value (its
 * field starts with \1, history-codec.ts). Answers {1, stream id} when found, else {0, the last
 * stream id scanned or '', entries scanned}. Only ids cross the wire, not envelopes.
 */
const SEEK = `
local rows = redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', ARGV[2])
for i = 1, #rows do
  local f = rows[i][2]
  if #f == 2 and string.byte(f[1], 1) == 1 then
    local v = f[2]
    if string.sub(v, 1, 26) == ARGV[4] or string.find(string.sub(v, 1, 49), ARGV[3], 1, true) then
      return {1, rows[i][1]}
    end
  else
    for j = 1, #f, 2 do
      if f[j] == 'envelope' then
        if string.find(string.sub(f[j + 1], 1, 48), ARGV[3], 1, true) then return {1, rows[i][1]} end
        break
      end
    end
  end
end
if #rows == 0 then return {0, '', 0} end
return {0, rows[#rows][1], #rows}
`;

/**
 * An id's place in the stream is near the time its ULID carries, but stream ids carry Redis's
 * clock: the producer's may differ a little, and a publish can wait in its turn's batch. A
 * derived id (bus.ts `stableEventId`) carries the time of what it describes, which can be earlier
 * than its publication: the scan goes on from there, this many entries at most.
 */
const SEEK_MARGIN_MS = 60_000;
const SEEK_PAGE = 2_000;
const SEEK_LIMIT = 200_000;

/**
 * Where to resume after the event `eventId`: `after`, the stream id to read after (exclusive).
 * `found: false` when the id is not in the stream (older than what it keeps, or none of ours):
 * then `after` is the end of the id's millisecond, so that what came later is read.
 */
export async function locateEvent(
  redis: Redis,
  key: string,
  eventId: string,
): Promise<{ after: string; found: boolean }> {
  const t = eventIdTime(eventId);
  if (!Number.isFinite(t)) return { after: "0-0", found: false };
  const needle = `"id":"${eventId}"`;
  // A history entry's value starts with the ULID (history-codec.ts); an id of another shape is no ULID.
  const ulid = /^evt_[0-9a-z]{26}$/.test(eventId) ? eventId.slice(4) : "-";
  let start = `${Math.max(0, t - SEEK_MARGIN_MS)}-0`;
  for (let scanned = 0; scanned < SEEK_LIMIT; scanned += SEEK_PAGE) {
    const [found, streamId, n] = (await redis.eval(SEEK, 1, key, start, SEEK_PAGE, needle, ulid)) as [
      number,
      string,
      number,
    ];
    if (found === 1) return { after: streamId, found: true };
    if (n < SEEK_PAGE) break;
    start = `(${streamId}`;
  }
  return { after: `${t}-18446744073709551615`, found: false };
}

/**
 * One blocking read of several streams after their positions (`XREAD BLOCK` on a connection of
 * its own): the entries that came, by stream; empty after `blockMs` without any, or when unblocked.
 */
export async function followStreams(
  conn: Redis,
  keys: string[],
  positions: string[],
  opts: { blockMs: number; count: number },
): Promise<[key: string, entries: Entry[]][]> {
  const res = (await conn.xread("COUNT", opts.count, "BLOCK", opts.blockMs, "STREAMS", ...keys, ...positions)) as
    | [string, Entry[]][]
    | null;
  return res ?? [];
}
