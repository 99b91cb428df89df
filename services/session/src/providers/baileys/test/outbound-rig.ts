// Test support (imported only by *.test.ts): the outbound mapping run through Baileys' own
// message generation, with a local stand-in for the network's media server, for the
// outbound/*.test.ts files.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { OutboundContent, OutboundMedia, SendOptions } from "@gw/contracts";
import {
  aesDecryptWithIV,
  generateWAMessage,
  getMediaKeys,
  hmacSign,
  type MediaType,
  type WAMediaUploadFunction,
  type WAMessage,
  type WAMessageKey,
} from "@whiskeysockets/baileys";
import { expect } from "vitest";
import { type BaileysOutbound, type OutboundContext, toBaileysContent } from "../outbound/outbound.ts";
import { PAIRED_ME } from "./testing.ts";

/**
 * The mapping checked the only way that counts: what it produces goes through Baileys' own
 * `generateWAMessage` (the function `sendMessage` calls before relaying), with a local function
 * standing in for the network's media server, and the resulting `proto.Message` is inspected.
 * Media uploads are decrypted back with the media key Baileys put in the message.
 */

/** Our account (`creds.me`). */
export const ME = PAIRED_ME;
export const CONTACT = "5511988887777";
export const CHAT = `${CONTACT}@c.us`;
export const CHAT_JID = `${CONTACT}@s.whatsapp.net`;
export const GROUP = "120363012345678901@g.us";

// sharp is Baileys' (peer) dependency, not ours: load it from where Baileys resolves it.
export interface SharpImage {
  jpeg(): SharpImage;
  png(): SharpImage;
  webp(): SharpImage;
  toBuffer(): Promise<Buffer>;
}
export type SharpFactory = (input: {
  create: { width: number; height: number; channels: 3; background: { r: number; g: number; b: number } };
}) => SharpImage;
export const requireHere = createRequire(import.meta.url);
export const sharp = createRequire(requireHere.resolve("@whiskeysockets/baileys"))("sharp") as SharpFactory;
export const picture = () =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 30, b: 30 } } });

export const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest();
export const b64 = (b: Buffer) => b.toString("base64");
export const media = (bytes: Buffer, mimetype: string, filename?: string): OutboundMedia => ({
  data: b64(bytes),
  mimetype,
  ...(filename ? { filename } : {}),
});

/** The network's media server: keeps the encrypted upload, answers its url and direct path. */
export const uploads = new Map<string, Buffer>();
export const upload: WAMediaUploadFunction = async (encFilePath, { fileEncSha256B64, mediaType }) => {
  const enc = await readFile(encFilePath);
  expect(b64(sha256(enc))).toBe(fileEncSha256B64);
  const name = fileEncSha256B64.replace(/[^A-Za-z0-9]/g, "");
  uploads.set(name, enc);
  return { mediaUrl: `https://media.test/${mediaType}/${name}`, directPath: `/v/t62.${mediaType}/${name}` };
};

/** What a recipient does with the message: fetch by direct path, check the MAC, decrypt. */
export async function downloadBack(
  m: { directPath?: string | null; mediaKey?: Uint8Array | null },
  type: MediaType,
): Promise<Buffer> {
  const enc = uploads.get(m.directPath?.split("/").pop() ?? "");
  if (!enc) throw new Error("not uploaded");
  const { cipherKey, iv, macKey } = await getMediaKeys(m.mediaKey, type);
  const body = enc.subarray(0, -10);
  const mac = hmacSign(Buffer.concat([iv, body]), macKey!, "sha256").subarray(0, 10);
  expect(mac.equals(enc.subarray(-10))).toBe(true);
  return aesDecryptWithIV(body, cipherKey, iv);
}

export interface Lookups {
  stored?: WAMessage[];
  participants?: Record<string, string[]>;
}

export function context(l: Lookups = {}) {
  const asked: WAMessageKey[] = [];
  const groupsAsked: string[] = [];
  const ctx: OutboundContext = {
    me: ME,
    async loadMessage(key) {
      asked.push(key);
      return l.stored?.find((m) => m.key.id === key.id && m.key.remoteJid === key.remoteJid);
    },
    async groupParticipants(jid) {
      groupsAsked.push(jid);
      const p = l.participants?.[jid];
      if (!p) throw new Error(`unexpected group lookup ${jid}`);
      return p;
    },
  };
  return { ctx, asked, groupsAsked };
}

export async function map(chatId: string, content: OutboundContent, options: SendOptions = {}, l: Lookups = {}) {
  return toBaileysContent(chatId, content, options, context(l).ctx);
}

/** Baileys' own message generation, as `sendMessage` calls it (reference §5). */
export async function generate(out: BaileysOutbound): Promise<WAMessage> {
  return generateWAMessage(out.jid, out.content, { upload, userJid: ME.id, ...out.options });
}

export async function send(chatId: string, content: OutboundContent, options: SendOptions = {}, l: Lookups = {}) {
  const out = await map(chatId, content, options, l);
  const msg = await generate(out);
  return { out, msg, m: msg.message! };
}
