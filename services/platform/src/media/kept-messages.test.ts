// The kept messages (store/messages.ts) and the media store together, on real Redis and the run's
// directory store: a record never holds the bytes; a store that fails leaves a record without media.
import { randomBytes } from "node:crypto";
import type { OutboundContent } from "@gw/contracts";
import { testEnv } from "@gw/test/gateway";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../infra/config.ts";
import { ScriptBatch } from "../infra/script-batch.ts";
import { createPlatform, type Platform } from "../platform.ts";
import { contentHash, MessageStore, storedHash } from "../store/messages.ts";
import type { MediaStore } from "./store.ts";

let p: Platform;
beforeAll(async () => {
  p = await createPlatform(loadConfig(testEnv()));
});
afterAll(() => p?.close());

const image = (bytes: Buffer): OutboundContent => ({
  type: "image",
  media: { data: bytes.toString("base64"), mimetype: "image/png", filename: "a.png" },
  caption: "oi",
});

describe("kept messages with media", () => {
  it("the record keeps a reference, the store the bytes; a forward gets them back; the hash is the content's", async () => {
    const bytes = randomBytes(10_000);
    const content = image(bytes);
    await p.messages.save("inst_kept", { id: "MSG1", chatId: "1@c.us", fromMe: true, timestamp: 1, content });
    const raw = (await p.redis.get(p.keys.message("inst_kept", "MSG1")))!;
    expect(raw).not.toContain(bytes.toString("base64").slice(0, 100));
    const stored = (await p.messages.get("inst_kept", "MSG1"))!;
    expect(stored.media).toEqual({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), size: 10_000 });
    expect(stored.mediaKept).toBe(true);
    expect(storedHash(stored)).toBe(contentHash(content)); // a retry under the same id matches
    expect(await p.messages.contentWithMedia("inst_kept", stored)).toEqual(content);
    expect(await p.media.read("inst_kept", stored.media!.sha256)).toEqual(bytes);
  });

  it("a media store that fails: the record is kept without its media, and the error is thrown", async () => {
    const failing: MediaStore = {
      kind: "dir",
      retentionDays: 7,
      put: () => Promise.reject(new Error("bucket unreachable")),
      open: async () => null,
      read: async () => null,
      presign: async () => null,
      removeInstance: async () => 0,
      close: async () => {},
    };
    const batch = new ScriptBatch(p.redis);
    const messages = new MessageStore(p.redis, p.keys, batch, failing);
    batch.seal();
    const content = image(randomBytes(500));
    await expect(
      messages.save("inst_fail", { id: "MSG2", chatId: "1@c.us", fromMe: true, timestamp: 1, content }),
    ).rejects.toThrow(/media store/);
    const stored = (await messages.get("inst_fail", "MSG2"))!;
    expect(stored).toMatchObject({ mediaKept: false, contentHash: contentHash(content) });
    expect(stored.media).toBeUndefined();
    expect(await messages.contentWithMedia("inst_fail", stored)).toBeNull();
  });
});
