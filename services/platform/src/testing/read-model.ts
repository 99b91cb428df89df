// What the read model's tests on a real Redis Stack share (services/platform/src/read-model/*.test.ts):
// an instance, a contact known by number and by lid, and message payloads as the session manager
// publishes them.
import type { Instance } from "@gw/contracts";
import { testEnv } from "@gw/test/gateway";
import { workingInstance } from "@gw/test/instance";
import { afterAll, beforeAll } from "vitest";
import { loadConfig } from "../infra/config.ts";
import { createPlatform, type Platform } from "../platform.ts";
import type { MessageQuery, ReadModel } from "../read-model/index.ts";

export const instance = (storage: Partial<Instance["settings"]["storage"]> = {}): Instance =>
  workingInstance("irm", {}, storage);

export const CONTACT = "5511911112222";
export const CHAT = `${CONTACT}@c.us`;
export const LID = "98765432101234@lid";
let nid = 0;
const netId = () => `3EB0${(++nid).toString(16).padStart(8, "0").toUpperCase()}`;

/** A spec 2.11 message payload as the session manager publishes it. */
export function inbound(opts: {
  chatId?: string;
  chatLid?: string | null;
  text?: string;
  timestamp: number;
  fromMe?: boolean;
  type?: string;
  media?: { url: string | null; mimetype: string; filename?: string | null };
  quotedId?: string | null;
  id?: string;
}) {
  const id = opts.id ?? netId();
  const chatId = opts.chatId ?? CHAT;
  const fromMe = opts.fromMe ?? false;
  return {
    networkId: id,
    payload: {
      id: `${fromMe}_${chatId}_${id}`,
      chatId,
      chatLid: opts.chatLid === undefined ? LID : opts.chatLid,
      isGroup: false,
      chatName: fromMe ? null : "Ana",
      fromMe,
      from: fromMe
        ? { id: "5511900000000@c.us", phone: "5511900000000", lid: null, pushName: "Me" }
        : { id: chatId, phone: chatId.endsWith("@c.us") ? CONTACT : "", lid: LID, pushName: "Ana" },
      timestamp: opts.timestamp,
      ...(fromMe ? { source: "api", status: "sent" } : {}),
      type: opts.type ?? "text",
      text: opts.text ?? null,
      ...(opts.media ? { media: opts.media } : {}),
      quotedId: opts.quotedId ?? null,
      raw: { hello: "world", message: { media: { data: "x".repeat(2000) } } },
    },
  };
}

export const q = (over: Partial<MessageQuery> = {}): MessageQuery => ({
  limit: 100,
  offset: 0,
  sortOrder: "desc",
  merge: true,
  downloadMedia: false,
  ...over,
});

/** A platform on the test Redis Stack (30 days of retention) for the file's tests, and its read model. */
export function useReadModel(): { platform: Platform; rm: ReadModel } {
  const world = {} as { platform: Platform; rm: ReadModel };
  beforeAll(async () => {
    world.platform = await createPlatform(loadConfig(testEnv({ MESSAGE_RETENTION_DAYS: "30" })));
    world.rm = world.platform.readModel;
  });
  afterAll(() => world.platform?.close());
  return world;
}
