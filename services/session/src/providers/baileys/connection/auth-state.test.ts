import { randomBytes } from "node:crypto";
import { createLogger, StaleLeaseError } from "@gw/platform";
import {
  type AuthenticationCreds,
  addTransactionCapability,
  Curve,
  DEFAULT_CONNECTION_CONFIG,
  encodeSignedDeviceIdentity,
  generateSignalPubKey,
  getNextPreKeys,
  initAuthCreds,
  proto,
  type SignalDataSet,
  type SignalDataTypeMap,
  type SignalKeyStore,
} from "@whiskeysockets/baileys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonical, type RedisHarness, redisHarness } from "../test/testing.ts";
import { BoundedCache, useRedisAuthState } from "./auth-state.ts";

/**
 * The auth state in Redis (auth-state.ts) against a real Redis: creds and every v7 signal key
 * type round-trip byte-exact, Baileys' transactions over the store, the lease's fence, and the
 * bounded caches Baileys is given.
 */

const logger = createLogger("silent");
const tx = (keys: SignalKeyStore) =>
  addTransactionCapability(keys, logger, { maxCommitRetries: 2, delayBetweenTriesMs: 5 });

let h: RedisHarness;
beforeAll(async () => {
  h = await redisHarness();
});
afterAll(async () => {
  await h?.close();
});

/** One value of every v7 key type, shaped as Baileys stores them (reference §2.1 table). */
function sampleKeys() {
  const appStateKey = proto.Message.AppStateSyncKeyData.fromObject({
    keyData: randomBytes(32),
    fingerprint: { rawId: 7, currentIndex: 3, deviceIndexes: [0, 1, 12] },
    timestamp: 1_763_000_000_000,
  });
  const data = {
    "pre-key": { "1": Curve.generateKeyPair(), "2": Curve.generateKeyPair() },
    session: { "5511999999999.0": new Uint8Array(randomBytes(180)), "123456789_1.12": new Uint8Array(randomBytes(90)) },
    "sender-key": {
      "120363000000000000@g.us::5511999999999::0": new Uint8Array(Buffer.from(JSON.stringify([{ id: 1 }]))),
    },
    "sender-key-memory": { "120363000000000000@g.us": { "5511999999999:0@s.whatsapp.net": true, "1@lid": false } },
    "app-state-sync-key": { AAAAAHWk: appStateKey },
    "app-state-sync-version": {
      regular_high: {
        version: 42,
        hash: randomBytes(128),
        indexValueMap: { "3mACi0ZkP0Y=": { valueMac: randomBytes(32) }, "12345=": { valueMac: randomBytes(32) } },
      },
    },
    "lid-mapping": { "5511999999999": "123456789", "123456789_reverse": "5511999999999" },
    "device-list": { "5511999999999": ["0", "12", "27"] },
    tctoken: {
      "123456789@lid": { token: randomBytes(24), timestamp: "1763000000", senderTimestamp: 1_763_000_001 },
      __index: { token: Buffer.from(JSON.stringify(["123456789@lid"])) },
    },
    "identity-key": { "5511999999999.0": new Uint8Array(generateSignalPubKey(Curve.generateKeyPair().public)) },
  } satisfies { [T in keyof SignalDataTypeMap]: { [id: string]: SignalDataTypeMap[T] } };
  return data;
}

async function readAll(keys: SignalKeyStore, data: ReturnType<typeof sampleKeys>) {
  const out: Record<string, unknown> = {};
  for (const type of Object.keys(data) as (keyof SignalDataTypeMap)[]) {
    out[type] = await keys.get(type, [...Object.keys(data[type]), "missing-id"]);
  }
  return out;
}

describe("useRedisAuthState: creds", () => {
  it("starts from Baileys' initAuthCreds when nothing is stored", async () => {
    const store = await h.storeFor(h.newInstanceId());
    const { state } = await useRedisAuthState(store);
    expect(state.creds.registered).toBe(false);
    expect(Buffer.isBuffer(state.creds.noiseKey.private)).toBe(true);
    expect(await store.readCreds()).toBeNull();
  });

  it("round-trips creds byte-exact through the sealed store, also after the store restarts", async () => {
    const store = await h.storeFor(h.newInstanceId());
    const auth = await useRedisAuthState(store);
    const creds: AuthenticationCreds = auth.state.creds;
    // What pairing adds (configureSuccessfulPairing / edge_routing), binary fields included.
    creds.me = { id: "5511999999999:12@s.whatsapp.net", lid: "123456789:12@lid", name: "Ana" };
    creds.account = proto.ADVSignedDeviceIdentity.fromObject({
      details: randomBytes(40),
      accountSignatureKey: randomBytes(32),
      accountSignature: randomBytes(64),
      deviceSignature: randomBytes(64),
    });
    creds.signalIdentities = [
      {
        identifier: { name: "5511999999999:12@s.whatsapp.net", deviceId: 0 },
        identifierKey: generateSignalPubKey(randomBytes(32)),
      },
    ];
    creds.routingInfo = randomBytes(20);
    creds.platform = "android";
    creds.processedHistoryMessages = [
      { key: { remoteJid: "5511@s.whatsapp.net", id: "3EB0ABC", fromMe: false }, messageTimestamp: 1_763_000_000 },
    ];
    await auth.saveCreds();

    // sealed at rest: none of the key material is readable in Redis
    const raw = await h.platform.redis.get(h.platform.keys.authCreds(store.instanceId));
    expect(raw).toBeTruthy();
    expect(raw).not.toContain("noiseKey");
    expect(raw).not.toContain(Buffer.from(creds.noiseKey.private).toString("base64"));

    const again = await useRedisAuthState(h.reopen(store));
    const loaded = again.state.creds;
    expect(canonical(loaded)).toEqual(canonical(creds));
    expect(Buffer.isBuffer(loaded.noiseKey.private)).toBe(true);
    expect(Buffer.from(loaded.signedPreKey.signature).equals(Buffer.from(creds.signedPreKey.signature))).toBe(true);
    expect(Buffer.from(loaded.routingInfo!).equals(creds.routingInfo)).toBe(true);
    // the signed device identity comes back as the proto message pair-success made, and Baileys
    // encodes it to the same bytes it sends in pkmsg stanzas
    expect(loaded.account).toBeInstanceOf(proto.ADVSignedDeviceIdentity);
    expect(Buffer.from(loaded.account!.details!).equals(Buffer.from(creds.account.details!))).toBe(true);
    expect(
      Buffer.from(encodeSignedDeviceIdentity(loaded.account!, true)).equals(
        Buffer.from(encodeSignedDeviceIdentity(creds.account, true)),
      ),
    ).toBe(true);
    // a fresh initAuthCreds() value survives as well (the unpaired shape)
    const fresh = initAuthCreds();
    Object.assign(loaded, fresh);
    await again.saveCreds();
    const third = await useRedisAuthState(h.reopen(store));
    expect(canonical(third.state.creds)).toEqual(canonical({ ...loaded }));
  });
});

describe("useRedisAuthState: signal keys", () => {
  it("every v7 key type round-trips through get/set (cached and from Redis), deletes with null", async () => {
    const store = await h.storeFor(h.newInstanceId());
    const { state } = await useRedisAuthState(store);
    const data = sampleKeys();
    await state.keys.set(data);

    const expected: Record<string, unknown> = {};
    for (const [type, values] of Object.entries(data)) expected[type] = canonical(values);

    const cachedRead = await readAll(state.keys, data);
    const restarted = (await useRedisAuthState(h.reopen(store))).state.keys;
    const redisRead = await readAll(restarted, data);
    for (const read of [cachedRead, redisRead]) {
      for (const type of Object.keys(data)) expect(canonical(read[type]), type).toEqual(expected[type]);
    }
    // app-state-sync-key comes back as a proto instance (as Baileys' file store re-hydrates it)
    const ask = (await restarted.get("app-state-sync-key", ["AAAAAHWk"])).AAAAAHWk!;
    expect(ask).toBeInstanceOf(proto.Message.AppStateSyncKeyData);
    expect(Buffer.from(ask.keyData!).equals(Buffer.from(data["app-state-sync-key"].AAAAAHWk.keyData!))).toBe(true);
    expect(ask.fingerprint?.deviceIndexes).toEqual([0, 1, 12]);
    // binary values come back as Buffers
    const session = (await restarted.get("session", ["5511999999999.0"]))["5511999999999.0"]!;
    expect(Buffer.isBuffer(session)).toBe(true);

    // null deletes, in several types at once; missing ids are left out
    const deletes: SignalDataSet = {
      session: { "5511999999999.0": null },
      "lid-mapping": { "5511999999999": null, "123456789_reverse": null },
      tctoken: { "123456789@lid": null },
      "pre-key": { "1": null },
    };
    await state.keys.set(deletes);
    for (const keys of [state.keys, (await useRedisAuthState(h.reopen(store))).state.keys]) {
      expect(await keys.get("session", ["5511999999999.0", "123456789_1.12"])).toEqual({
        "123456789_1.12": expect.anything(),
      });
      expect(await keys.get("lid-mapping", ["5511999999999", "123456789_reverse"])).toEqual({});
      expect(Object.keys(await keys.get("tctoken", ["123456789@lid", "__index"]))).toEqual(["__index"]);
      expect(Object.keys(await keys.get("pre-key", ["1", "2"]))).toEqual(["2"]);
    }
  });

  it("real Signal sessions, pre-keys and identities made by Baileys' repository survive a restart", async () => {
    const aliceJid = "5511999999999@s.whatsapp.net";
    const bobJid = "5511888888888@s.whatsapp.net";
    const aliceStore = await h.storeFor(h.newInstanceId());
    const bobStore = await h.storeFor(h.newInstanceId());
    const alice = await useRedisAuthState(aliceStore);
    const bob = await useRedisAuthState(bobStore);
    const repo = (auth: typeof alice) =>
      DEFAULT_CONNECTION_CONFIG.makeSignalRepository(
        { creds: auth.state.creds, keys: tx(auth.state.keys) },
        logger,
        async () => [],
      );

    // Bob publishes a bundle: one pre-key written to his store by Baileys' own helper.
    const { preKeys, update } = await getNextPreKeys({ creds: bob.state.creds, keys: tx(bob.state.keys) }, 1);
    Object.assign(bob.state.creds, update);
    await bob.saveCreds();
    const [preKeyId, preKey] = Object.entries(preKeys)[0]!;
    await repo(alice).injectE2ESession({
      jid: bobJid,
      session: {
        registrationId: bob.state.creds.registrationId,
        identityKey: generateSignalPubKey(bob.state.creds.signedIdentityKey.public),
        signedPreKey: {
          keyId: bob.state.creds.signedPreKey.keyId,
          publicKey: generateSignalPubKey(bob.state.creds.signedPreKey.keyPair.public),
          signature: bob.state.creds.signedPreKey.signature,
        },
        preKey: { keyId: Number(preKeyId), publicKey: generateSignalPubKey(preKey.public) },
      },
    });
    await alice.saveCreds();
    const first = await repo(alice).encryptMessage({ jid: bobJid, data: Buffer.from("olá bob") });
    expect(first.type).toBe("pkmsg");

    // Both sides restart from Redis only.
    const bob2 = await useRedisAuthState(h.reopen(bobStore));
    const plain = await repo(bob2).decryptMessage({ jid: aliceJid, type: "pkmsg", ciphertext: first.ciphertext });
    expect(Buffer.from(plain).toString()).toBe("olá bob");
    const reply = await repo(bob2).encryptMessage({ jid: aliceJid, data: Buffer.from("oi alice") });

    const alice2 = await useRedisAuthState(h.reopen(aliceStore));
    expect((await repo(alice2).validateSession(bobJid)).exists).toBe(true);
    const back = await repo(alice2).decryptMessage({ jid: bobJid, type: reply.type, ciphertext: reply.ciphertext });
    expect(Buffer.from(back).toString()).toBe("oi alice");

    // The LID mapping store writes both directions in one transaction through our store.
    await repo(alice2).lidMapping.storeLIDPNMappings([{ lid: "123456789@lid", pn: bobJid }]);
    const alice3 = await useRedisAuthState(h.reopen(aliceStore));
    expect(await repo(alice3).lidMapping.getPNForLID("123456789@lid")).toMatch(/^5511888888888(:0)?@s\.whatsapp\.net$/);
    expect(await alice3.state.keys.get("lid-mapping", ["5511888888888", "123456789_reverse"])).toEqual({
      "5511888888888": "123456789",
      "123456789_reverse": "5511888888888",
    });
  });
});

describe("useRedisAuthState: transactions and the lease", () => {
  it("a keys.transaction commits all its types in one write", async () => {
    const store = await h.storeFor(h.newInstanceId());
    const { state } = await useRedisAuthState(store);
    const keys = tx(state.keys);
    await keys.transaction(async () => {
      await keys.set({ session: { "1.0": new Uint8Array([1, 2, 3]) } });
      await keys.set({ "device-list": { "1": ["0"] }, "lid-mapping": { "1": "2", "2_reverse": "1" } });
      // read-your-writes inside the transaction, nothing in Redis yet
      expect(await keys.get("device-list", ["1"])).toEqual({ "1": ["0"] });
      expect(await h.reopen(store).getKeys("device-list", ["1"])).toEqual({});
    }, "t1");
    const fresh = (await useRedisAuthState(h.reopen(store))).state.keys;
    expect(await fresh.get("device-list", ["1"])).toEqual({ "1": ["0"] });
    expect(await fresh.get("lid-mapping", ["1", "2_reverse"])).toEqual({ "1": "2", "2_reverse": "1" });
  });

  it("with a stale epoch nothing is written, StaleLeaseError surfaces, the session hears of it once", async () => {
    const id = h.newInstanceId();
    const store = await h.storeFor(id, "pod-a");
    const staleSeen: StaleLeaseError[] = [];
    const auth = await useRedisAuthState(store, { onStaleLease: (e) => staleSeen.push(e) });
    await auth.state.keys.set({ session: { "1.0": new Uint8Array([9]) } });

    // Another pod takes the instance over: a new epoch.
    await h.platform.leases.release(id, "pod-a", store.epoch);
    const takeover = await h.storeFor(id, "pod-b");
    expect(takeover.epoch).toBeGreaterThan(store.epoch);

    const keys = tx(auth.state.keys);
    const err = await keys
      .transaction(async () => {
        await keys.set({
          session: { "1.0": new Uint8Array([7, 7]), "2.0": new Uint8Array([8]) },
          "pre-key": { "5": Curve.generateKeyPair() },
          "device-list": { "1": ["0", "3"] },
          "lid-mapping": { "1": "99", "99_reverse": "1" },
        });
      }, "t-stale")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StaleLeaseError);
    expect(staleSeen).toHaveLength(1);

    // Nothing of the commit landed (read with the new owner's store), the old value is intact.
    for (const [type, ids] of [
      ["device-list", ["1"]],
      ["lid-mapping", ["1", "99_reverse"]],
      ["pre-key", ["5"]],
      ["session", ["2.0"]],
    ] as const) {
      expect(await takeover.getKeys(type, [...ids]), type).toEqual({});
    }
    const fromNewOwner = (await useRedisAuthState(takeover)).state.keys;
    expect(canonical(await fromNewOwner.get("session", ["1.0"]))).toEqual({ "1.0": "bin:09" });
    // and the failed write did not linger in the old owner's cache either
    expect(canonical(await auth.state.keys.get("session", ["1.0", "2.0"]))).toEqual({ "1.0": "bin:09" });

    // creds and clear are fenced the same way
    await expect(auth.saveCreds()).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(auth.clear()).rejects.toBeInstanceOf(StaleLeaseError);
    expect(await takeover.getKeys("session", ["1.0"])).not.toEqual({});
  });

  it("clear() forgets creds and every key type", async () => {
    const store = await h.storeFor(h.newInstanceId());
    const auth = await useRedisAuthState(store);
    auth.state.creds.me = { id: "5511999999999:1@s.whatsapp.net" };
    await auth.saveCreds();
    await auth.state.keys.set(sampleKeys());
    await auth.clear();
    expect(await store.readCreds()).toBeNull();
    const fresh = (await useRedisAuthState(h.reopen(store))).state.keys;
    expect(await fresh.get("session", ["5511999999999.0"])).toEqual({});
    expect(await auth.state.keys.get("tctoken", ["__index"])).toEqual({});
    const left = await h.platform.redis.keys(`${h.platform.keys.authKeys(store.instanceId, "")}*`);
    expect(left).toEqual([]);
  });
});

describe("BoundedCache", () => {
  it("holds at most maxEntries (least recently used go first), expires, and treats null as delete", () => {
    let now = 0;
    const c = new BoundedCache(3, 1000, () => now);
    c.set("a", 1);
    c.set("b", 2);
    c.set("c", 3);
    expect(c.get("a")).toBe(1); // a is now the most recent
    c.set("d", 4);
    expect(c.size).toBe(3);
    expect(c.get("b")).toBeUndefined();
    expect(c.get("a")).toBe(1);
    c.set("a", null);
    expect(c.get("a")).toBeUndefined();
    now = 2000;
    expect(c.get("c")).toBeUndefined();
    c.set("e", 5);
    c.flushAll();
    expect(c.size).toBe(0);
  });
});
