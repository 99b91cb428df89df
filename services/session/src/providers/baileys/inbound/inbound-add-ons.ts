import { createHash } from "node:crypto";
import {
  decryptEventResponse,
  decryptPollVote,
  normalizeMessageContent,
  proto,
  type WAMessageKey,
} from "@whiskeysockets/baileys";
import { type IMessage, pollOf } from "./inbound-content.ts";
import { type InboundLookups, type Jids, meJids, resolveUser } from "./inbound-ids.ts";

// Poll votes and event responses: decrypted here with the stored original's secret (rc14 does not).

const sha256Hex = (v: string | Uint8Array) => createHash("sha256").update(v).digest("hex");

function bytesOf(v: unknown): Uint8Array | null {
  if (v instanceof Uint8Array) return v.length ? v : null;
  if (typeof v === "string" && v.length) return Buffer.from(v, "base64");
  return null;
}

function uniq(values: (string | null | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => Boolean(v)))];
}

/**
 * Decrypts an add-on (poll vote, event response) of a stored message. Both are AES-GCM under a
 * key derived from the original's `messageContextInfo.messageSecret`, its id, and the creator's
 * and the responder's JIDs as the responder's client wrote them — PN or LID (reference §4) — so
 * each combination is tried until the tag verifies. Null when the original is not stored, has no
 * secret, or nothing verifies (`onUndecrypted` says which).
 */
async function decryptAddOn<T>(
  originalId: string | null | undefined,
  enc: { encPayload?: Uint8Array | null; encIv?: Uint8Array | null } | null | undefined,
  responder: Jids,
  responderIsMe: boolean,
  lookups: InboundLookups,
  addOnKey: WAMessageKey,
  decrypt: (
    enc: { encPayload: Uint8Array; encIv: Uint8Array },
    ids: { msgId: string; creatorJid: string; responderJid: string; secret: Uint8Array },
    original: IMessage,
  ) => T,
): Promise<T | null> {
  const payload = bytesOf(enc?.encPayload);
  const iv = bytesOf(enc?.encIv);
  if (!originalId || !payload || !iv) {
    lookups.onUndecrypted?.("no original key or payload", addOnKey);
    return null;
  }
  const stored = lookups.loadMessage ? await lookups.loadMessage(originalId) : undefined;
  const content = normalizeMessageContent(stored?.message);
  const secret = bytesOf(
    stored?.message?.messageContextInfo?.messageSecret ?? content?.messageContextInfo?.messageSecret,
  );
  if (!stored || !content || !secret) {
    lookups.onUndecrypted?.(stored ? "original has no secret" : "original not stored", addOnKey);
    return null;
  }
  // The stored key is from our perspective (the add-on's copy of it is from the responder's).
  const me = meJids(lookups);
  const k = stored.key ?? {};
  const creator = k.fromMe
    ? me
    : await resolveUser(k.participant || k.remoteJid, k.participantAlt || k.remoteJidAlt, lookups);
  const respondent = responderIsMe ? me : responder;
  for (const creatorJid of uniq([creator.pn, creator.lid])) {
    for (const responderJid of uniq([respondent.pn, respondent.lid])) {
      try {
        return decrypt(
          { encPayload: payload, encIv: iv },
          { msgId: originalId, creatorJid, responderJid, secret },
          content,
        );
      } catch {
        // the tag did not verify with this pair: next
      }
    }
  }
  lookups.onUndecrypted?.("no creator/responder id pair decrypts it", addOnKey);
  return null;
}

/** The option names a vote selected; empty when it cannot be decrypted (or cleared the vote). */
export async function pollVoteOptions(
  vote: proto.Message.IPollUpdateMessage,
  voter: Jids,
  voterIsMe: boolean,
  lookups: InboundLookups,
  voteKey: WAMessageKey,
): Promise<string[]> {
  const names = await decryptAddOn(
    vote.pollCreationMessageKey?.id,
    vote.vote,
    voter,
    voterIsMe,
    lookups,
    voteKey,
    (enc, ids, original) => {
      const poll = pollOf(original);
      if (!poll) throw new Error("not a poll");
      const selected = decryptPollVote(enc, {
        pollCreatorJid: ids.creatorJid,
        pollMsgId: ids.msgId,
        pollEncKey: ids.secret,
        voterJid: ids.responderJid,
      }).selectedOptions;
      const byHash = new Map((poll.options ?? []).map((o) => [sha256Hex(o.optionName ?? ""), o.optionName ?? ""]));
      return selected
        .map((h) => byHash.get(Buffer.from(h).toString("hex")))
        .filter((n): n is string => n !== undefined);
    },
  );
  return names ?? [];
}

const EVENT_RESPONSE_NAMES: Record<number, string> = {
  [proto.Message.EventResponseMessage.EventResponseType.GOING]: "going",
  [proto.Message.EventResponseMessage.EventResponseType.NOT_GOING]: "not_going",
  [proto.Message.EventResponseMessage.EventResponseType.MAYBE]: "maybe",
};

/** `going` / `not_going` / `maybe`; "" when it cannot be decrypted. */
export async function eventResponseOf(
  enc: proto.Message.IEncEventResponseMessage,
  responder: Jids,
  responderIsMe: boolean,
  lookups: InboundLookups,
  key: WAMessageKey,
): Promise<string> {
  const response = await decryptAddOn(
    enc.eventCreationMessageKey?.id,
    enc,
    responder,
    responderIsMe,
    lookups,
    key,
    (e, ids, original) => {
      if (!original.eventMessage) throw new Error("not an event");
      return decryptEventResponse(e, {
        eventCreatorJid: ids.creatorJid,
        eventMsgId: ids.msgId,
        eventEncKey: ids.secret,
        responderJid: ids.responderJid,
      }).response;
    },
  );
  return (typeof response === "number" ? EVENT_RESPONSE_NAMES[response] : undefined) ?? "";
}
