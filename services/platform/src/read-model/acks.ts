// Acks (spec 2.8 `ack`/`ackName`, 2.9 `status`): WAHA's numbering, and how the read model keeps
// them: in the score of the message's ack set, not in its document.

export const ACK = { ERROR: -1, PENDING: 0, SERVER: 1, DEVICE: 2, READ: 3, PLAYED: 4 } as const;
export type AckName = keyof typeof ACK;
const ACK_NAME_OF: Record<number, AckName> = {
  [-1]: "ERROR",
  0: "PENDING",
  1: "SERVER",
  2: "DEVICE",
  3: "READ",
  4: "PLAYED",
};
/** Spec 2.9 ack statuses → ack numbers. */
export const ACK_OF_STATUS: Record<string, number> = {
  failed: ACK.ERROR,
  pending: ACK.PENDING,
  sent: ACK.SERVER,
  delivered: ACK.DEVICE,
  read: ACK.READ,
  played: ACK.PLAYED,
};

export const ackName = (ack: number): AckName => ACK_NAME_OF[ack] ?? "PENDING";

/** Every ack value, in order. */
export const ACKS: readonly number[] = Object.values(ACK).sort((a, b) => a - b);

/** An ack given as its name (`READ`), its spec status (`read`) or its number (`3`), or null. */
export function parseAck(value: string): number | null {
  const v = value.trim();
  if (/^-?\d$/.test(v) && ACK_NAME_OF[Number(v)]) return Number(v);
  const upper = v.toUpperCase();
  if (upper in ACK) return ACK[upper as AckName];
  return ACK_OF_STATUS[v.toLowerCase()] ?? null;
}

/**
 * The order in which acks replace each other: an ack only moves forward. `ERROR` (a send that
 * failed after the server took it) ranks after `SERVER` and before `DEVICE`: it replaces a pending
 * or sent message's ack, never a delivered one, and a later delivery replaces it.
 */
const ACK_BY_RANK = [ACK.PENDING, ACK.SERVER, ACK.ERROR, ACK.DEVICE, ACK.READ, ACK.PLAYED] as const;
const RANK_OF_ACK: Record<number, number> = Object.fromEntries(ACK_BY_RANK.map((a, r) => [a, r]));

/**
 * The score span of one rank in an ack set: a score is `rank × 2^42 + sortKey` (sortKey, ms since
 * 1970, stays below 2^42 until 2109; the largest score, 6 × 2^42, is far below 2^53: exact in a
 * double, in Node and in Redis's Lua). One ZSET per (chat, fromMe) then holds every message of it
 * with its ack: a filter by ack is a score range, in time order within it; an ack is `ZADD XX GT`
 * of the new score (forward only, without reading anything); no member ever moves between sets.
 */
export const RANK_SPAN = 2 ** 42;

export const ackRank = (ack: number): number => RANK_OF_ACK[ack] ?? 0;

/** The lowest score of an ack's band in an ack set. */
export const ackBase = (ack: number): number => ackRank(ack) * RANK_SPAN;

export const ackScore = (ack: number, sortKey: number): number => ackRank(ack) * RANK_SPAN + sortKey;

/** A score of an ack set → the ack and the message's sortKey. */
export function fromAckScore(score: number): { ack: number; sortKey: number } {
  const rank = Math.floor(score / RANK_SPAN);
  return { ack: ACK_BY_RANK[rank] ?? ACK.PENDING, sortKey: score - rank * RANK_SPAN };
}
