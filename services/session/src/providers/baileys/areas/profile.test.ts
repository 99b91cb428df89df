import { deflateSync } from "node:zlib";
import { getBinaryNodeChild, getBinaryNodeChildren, proto } from "@whiskeysockets/baileys";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type AreaHarness, areaHarness, isIq } from "../test/area-rig.ts";

/**
 * The profile operations at Baileys' boundary (the rig of area-rig.ts: a real socket whose stanzas
 * are decoded here, the network's answers handed back): the usync status query, the status and
 * picture iqs (the picture as the 640×640 JPEG Baileys makes with sharp), and the name as an
 * app-state patch whose own echo makes the instance's pushName follow.
 */

const ME = "5511999999999@s.whatsapp.net";

let h: AreaHarness;
beforeAll(async () => {
  h = await areaHarness();
});
afterEach(() => h.reset());
afterAll(() => h?.close());

const bytes = (v: unknown) => Buffer.from(v as Uint8Array);

/** A PNG of one colour (made here: no binary fixtures). */
function png(width: number, height: number): Buffer {
  const crc32 = (buf: Buffer) => {
    let c = ~0;
    for (const b of buf) {
      c ^= b;
      for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
    }
    return ~c >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x80)]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.concat(Array.from({ length: height }, () => row)))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** Width and height of a JPEG, from its start-of-frame segment. */
function jpegSize(buf: Buffer): { width: number; height: number } | null {
  if (buf[0] !== 0xff || buf[1] !== 0xd8) return null;
  for (let i = 2; i + 9 < buf.length; ) {
    if (buf[i] !== 0xff) return null;
    const marker = buf[i + 1]!;
    const len = buf.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xc2) return { height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
    i += 2 + len;
  }
  return null;
}

describe("Baileys profile: operations", () => {
  it("get: the account from its creds and its about text from a usync `status` query", async () => {
    const r = await h.open();
    const got = r.ops["profile.get"]!({});
    const q = await h.answer(r.sock, isIq("usync"), (n) => [
      {
        tag: "usync",
        attrs: {},
        content: [
          {
            tag: "list",
            attrs: {},
            content: [
              {
                tag: "user",
                attrs: {
                  jid: getBinaryNodeChild(getBinaryNodeChild(getBinaryNodeChild(n, "usync"), "list"), "user")!.attrs
                    .jid!,
                },
                content: [{ tag: "status", attrs: { t: "1700000000" }, content: Buffer.from("Atendimento 8h-18h") }],
              },
            ],
          },
        ],
      },
    ]);
    const usync = getBinaryNodeChild(q, "usync")!;
    expect(getBinaryNodeChildren(getBinaryNodeChild(usync, "query"), "status")).toHaveLength(1);
    expect(getBinaryNodeChild(getBinaryNodeChild(usync, "list"), "user")!.attrs.jid).toBe(ME);
    expect(await got).toEqual({
      phone: "5511999999999",
      lid: "123456789@lid",
      name: "Ana",
      about: "Atendimento 8h-18h",
    });

    // No about visible (the network answers the status with an error code): null, not a failure.
    const none = r.ops["profile.get"]!({});
    await h.answer(r.sock, isIq("usync"), () => [
      {
        tag: "usync",
        attrs: {},
        content: [
          {
            tag: "list",
            attrs: {},
            content: [{ tag: "user", attrs: { jid: ME }, content: [{ tag: "status", attrs: { code: "401" } }] }],
          },
        ],
      },
    ]);
    expect((await none).about).toBeNull();
  });

  it("setStatus: <iq xmlns=status type=set><status>the text</status>", async () => {
    const r = await h.open();
    const done = r.ops["profile.setStatus"]!({ status: "Volto já ✨" });
    const q = await h.answer(r.sock, isIq("status"), () => []);
    expect(q.attrs).toMatchObject({ type: "set", to: "@s.whatsapp.net" });
    expect(bytes(getBinaryNodeChild(q, "status")!.content).toString("utf8")).toBe("Volto já ✨");
    expect(await done).toEqual({});
  });

  it("setPicture: Baileys turns the PNG into the 640×640 JPEG the network keeps, for the account itself", async () => {
    const r = await h.open();
    const done = r.ops["profile.setPicture"]!({ data: png(800, 600).toString("base64"), mimetype: "image/png" });
    const q = await h.answer(r.sock, isIq("w:profile:picture"), () => []);
    expect(q.attrs).toMatchObject({ type: "set", to: "@s.whatsapp.net" });
    expect(q.attrs).not.toHaveProperty("target"); // the account's own picture
    const picture = getBinaryNodeChild(q, "picture")!;
    expect(picture.attrs).toEqual({ type: "image" });
    expect(jpegSize(bytes(picture.content))).toEqual({ width: 640, height: 640 });
    expect(await done).toEqual({});

    // Bytes sharp cannot read are the request's fault.
    const broken = Buffer.concat([png(2, 2).subarray(0, 16), Buffer.from("not really a png")]);
    const err = await r.ops["profile.setPicture"]!({ data: broken.toString("base64"), mimetype: "image/png" }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: "validation_error", details: { file: expect.any(String) } });
  });

  it("removePicture: the picture iq without a picture", async () => {
    const r = await h.open();
    const done = r.ops["profile.removePicture"]!({});
    const q = await h.answer(r.sock, isIq("w:profile:picture"), () => []);
    expect(q.attrs).toMatchObject({ type: "set" });
    expect(q.attrs).not.toHaveProperty("target");
    expect(q.content ?? []).toEqual([]);
    expect(await done).toEqual({});
  });

  it("setName before the phone shared the app-state key: a transient network_error, nothing sent", async () => {
    const r = await h.open();
    const before = (await h.sentNodes()).length;
    const err = await r.ops["profile.setName"]!({ name: "Loja" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "network_error", retryAfter: 5 });
    expect((await h.sentNodes()).length).toBe(before);
  });

  it("setName: a critical_block patch (pushNameSetting); its own echo makes the account's pushName follow", async () => {
    const r = await h.open();
    // The key the phone shares after pairing (APP_STATE_SYNC_KEY_SHARE), as Baileys stores it.
    const keyId = Buffer.from("AAAAAQ==", "base64");
    await r.sock.authState.keys.set({
      "app-state-sync-key": {
        [keyId.toString("base64")]: proto.Message.AppStateSyncKeyData.fromObject({
          keyData: Buffer.alloc(32, 7),
          fingerprint: { rawId: 1, currentIndex: 1, deviceIndexes: [0] },
          timestamp: 1700000000,
        }),
      },
    });
    r.sock.authState.creds.myAppStateKeyId = keyId.toString("base64");
    const done = r.ops["profile.setName"]!({ name: "Loja da Ana" });
    // First Baileys brings the collection up to date (nothing new), then sends the patch.
    const sync = await h.answer(r.sock, isIq("w:sync:app:state"), () => [
      {
        tag: "sync",
        attrs: {},
        content: [{ tag: "collection", attrs: { name: "critical_block", version: "0" } }],
      },
    ]);
    expect(getBinaryNodeChild(getBinaryNodeChild(sync, "sync"), "collection")!.attrs).toMatchObject({
      name: "critical_block",
    });
    const patchIq = await h.answer(
      r.sock,
      (n) => isIq("w:sync:app:state")(n) && n !== sync,
      () => [],
    );
    const collection = getBinaryNodeChild(getBinaryNodeChild(patchIq, "sync"), "collection")!;
    expect(collection.attrs).toMatchObject({ name: "critical_block", return_snapshot: "false" });
    const patch = proto.SyncdPatch.decode(bytes(getBinaryNodeChild(collection, "patch")!.content));
    expect(Buffer.from(patch.keyId!.id!).equals(keyId)).toBe(true);
    expect(patch.mutations).toHaveLength(1);
    expect(patch.mutations[0]!.operation).toBe(proto.SyncdMutation.SyncdOperation.SET);
    expect(await done).toEqual({});
    // Baileys decodes its own patch (emitOwnEvents): the creds follow, and so does the instance.
    await vi.waitFor(() =>
      expect(r.events).toContainEqual({
        type: "account",
        account: { phone: "5511999999999", lid: "123456789@lid", pushName: "Loja da Ana" },
      }),
    );
    expect(r.sock.authState.creds.me?.name).toBe("Loja da Ana");
  });
});
