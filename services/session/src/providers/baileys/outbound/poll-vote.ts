import { createCipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import { ApiError, invalid } from "@gw/contracts";
import {
  jidNormalizedUser,
  normalizeMessageContent,
  proto,
  type WAMessage,
  type WAMessageKey,
} from "@whiskeysockets/baileys";

/**
 * A vote in a poll, as the network wants it: the chosen options' SHA-256 hashes in a
 * `PollVoteMessage`, AES-256-GCM encrypted with a key derived from the poll's `messageSecret`
 * (the exact inverse of Baileys' `decryptPollVote`, reference §4: rc14 does not build votes).
 * Needs the poll creation message as stored (its secret and options).
 */
export function buildPollVote(
  poll: WAMessage,
  votes: string[],
  me: { id?: string | null; lid?: string | null; lidAddressed?: boolean },
  now = Date.now(),
): proto.IMessage {
  const content = normalizeMessageContent(poll.message);
  const creation =
    content?.pollCreationMessage ?? content?.pollCreationMessageV2 ?? content?.pollCreationMessageV3 ?? null;
  const secret = poll.message?.messageContextInfo?.messageSecret;
  if (!creation || !secret || !poll.key?.id || !poll.key.remoteJid) {
    throw invalid("pollMessageId", "enquete desconhecida (só as enviadas ou recebidas nos últimos 7 dias)");
  }
  const names = (creation.options ?? []).map((o) => o.optionName ?? "");
  const unknown = votes.filter((v) => !names.includes(v));
  if (unknown.length) throw invalid("votes", `não são opções da enquete: ${unknown.join(", ")}`);
  if ((creation.selectableOptionsCount ?? 0) === 1 && votes.length > 1) {
    throw invalid("votes", "esta enquete aceita uma resposta");
  }
  // The vote is signed by the ids the network shows for it: the session says how the vote is
  // addressed (a group's addressing mode, the person's address); else the poll's own key tells.
  const lidAddressed =
    me.lidAddressed ?? (poll.key.remoteJid.endsWith("@lid") || Boolean(poll.key.participant?.endsWith("@lid")));
  const myJid = jidNormalizedUser((lidAddressed ? me.lid : me.id) ?? me.id ?? "");
  if (!myJid) throw new ApiError("instance_not_connected");
  const creator = poll.key.fromMe ? myJid : authorOf(poll.key, lidAddressed);
  const selectedOptions = votes.map((v) => createHash("sha256").update(v).digest());
  const plain = proto.Message.PollVoteMessage.encode({ selectedOptions }).finish();
  const sign = Buffer.concat([
    Buffer.from(poll.key.id),
    Buffer.from(creator),
    Buffer.from(myJid),
    Buffer.from("Poll Vote"),
    Buffer.from([1]),
  ]);
  const key0 = createHmac("sha256", Buffer.alloc(32)).update(Buffer.from(secret)).digest();
  const encKey = createHmac("sha256", key0).update(sign).digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", encKey, iv);
  cipher.setAAD(Buffer.from(`${poll.key.id}\u0000${myJid}`));
  const encPayload = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  return {
    pollUpdateMessage: {
      pollCreationMessageKey: {
        remoteJid: poll.key.remoteJid,
        fromMe: poll.key.fromMe ?? false,
        id: poll.key.id,
        ...(poll.key.participant ? { participant: poll.key.participant } : {}),
      },
      vote: { encPayload, encIv: iv },
      senderTimestampMs: now,
    },
  };
}

/**
 * The poll's author in the vote's addressing: of the key's id and its alternative (`participantAlt`
 * in groups, `remoteJidAlt` in chats: decode-wa-message.js), the LID or the number as the vote is.
 */
function authorOf(key: WAMessageKey, lidAddressed: boolean): string {
  const group = Boolean(key.participant);
  const ids = [group ? key.participant : key.remoteJid, group ? key.participantAlt : key.remoteJidAlt]
    .filter((j): j is string => Boolean(j))
    .map((j) => jidNormalizedUser(j));
  const wanted = ids.find((j) => j.endsWith("@lid") === lidAddressed);
  return wanted ?? ids[0] ?? "";
}
