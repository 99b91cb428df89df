// PATCH /v1/instances/{id}/settings (spec 2.1, 8): only sent fields change; deviceName is up to
// 40 characters; the change is persisted and visible to every reader.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, expectJson, tokenHeaders } from "../support/e2e-helpers.ts";
import { startReplicaPair, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
let replica: TestGateway;
beforeAll(async () => {
  // A 10-minute instance cache: a replica sees a change only through the invalidation message,
  // never because its cached copy timed out (the default TTL is 5 s).
  ({ gw, replica } = await startReplicaPair({ INSTANCE_CACHE_MS: "600000" }));
});
afterAll(async () => {
  await Promise.all([gw?.close(), replica?.close()]);
});

type Settings = {
  client: { browserName: string; deviceName: string };
  ignore: Record<string, boolean>;
  storage: Record<string, boolean>;
};

async function setup() {
  const { id, token } = await gw.createInstance();
  const patch = (json: unknown, on = gw) =>
    on.request(`/v1/instances/${id}/settings`, { method: "PATCH", headers: tokenHeaders(token), json });
  const read = async (on = gw): Promise<Settings> =>
    (await expectJson(await on.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) }))).instance.settings;
  return { id, token, patch, read };
}

describe("PATCH /settings", () => {
  it("changes only the fields sent", async () => {
    const { patch, read } = await setup();
    const initial = await read();

    let body = await expectJson(await patch({ ignore: { groups: true } }));
    const expected: Settings = structuredClone(initial);
    expected.ignore.groups = true;
    expect(body.instance.settings).toEqual(expected);
    expect(await read()).toEqual(expected);

    body = await expectJson(await patch({ client: { browserName: "Firefox" } }));
    expected.client.browserName = "Firefox";
    expect(body.instance.settings).toEqual(expected);

    body = await expectJson(await patch({ client: { deviceName: "Balcão 3" }, storage: { messages: false } }));
    expected.client.deviceName = "Balcão 3";
    expected.storage.messages = false;
    expect(body.instance.settings).toEqual(expected);
    expect(await read()).toEqual(expected);

    // Empty groups and an empty object change nothing.
    body = await expectJson(await patch({ client: {}, ignore: {}, storage: {} }));
    expect(body.instance.settings).toEqual(expected);
    body = await expectJson(await patch({}));
    expect(body.instance.settings).toEqual(expected);

    // Flags can be set back.
    body = await expectJson(await patch({ ignore: { groups: false }, storage: { messages: true } }));
    expected.ignore.groups = false;
    expected.storage.messages = true;
    expect(body.instance.settings).toEqual(expected);
  });

  it("does not touch the other fields of the instance", async () => {
    const { id, token, patch } = await setup();
    const before = (await expectJson(await gw.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) })))
      .instance;
    const after = (await expectJson(await patch({ ignore: { status: true } }))).instance;
    const { settings: s1, ...rest1 } = before;
    const { settings: s2, ...rest2 } = after;
    expect(rest2).toEqual(rest1);
    expect(s2.ignore.status).toBe(true);
    expect(s1.ignore.status).toBe(false);
  });

  it("every field can be set in one request", async () => {
    const { patch, read } = await setup();
    const all: Settings = {
      client: { browserName: "Edge", deviceName: "Caixa" },
      ignore: { broadcast: true, channels: true, groups: true, status: true },
      storage: { chats: false, contacts: false, groups: false, labels: false, messageSecrets: false, messages: false },
    };
    expect((await expectJson(await patch(all))).instance.settings).toEqual(all);
    expect(await read()).toEqual(all);
  });

  it("concurrent patches of different fields all apply", async () => {
    const { patch, read } = await setup();
    const fields = ["broadcast", "channels", "groups", "status"];
    const storage = ["chats", "contacts", "groups", "labels", "messageSecrets", "messages"];
    const responses = await Promise.all([
      ...fields.map((f) => patch({ ignore: { [f]: true } })),
      ...storage.map((f) => patch({ storage: { [f]: false } })),
      patch({ client: { deviceName: "concurrent" } }),
    ]);
    expect(responses.map((r) => r.status)).toEqual(Array(responses.length).fill(200));
    const s = await read();
    for (const f of fields) expect(s.ignore[f], f).toBe(true);
    for (const f of storage) expect(s.storage[f], f).toBe(false);
    expect(s.client.deviceName).toBe("concurrent");
  });

  it("deviceName of exactly 40 characters is accepted, 41 → 422 and nothing changes", async () => {
    const { patch, read } = await setup();
    const forty = "D".repeat(40);
    expect((await expectJson(await patch({ client: { deviceName: forty } }))).instance.settings.client.deviceName).toBe(
      forty,
    );

    // 40 characters counted as characters, not bytes.
    const accented = "ç".repeat(40);
    expect(
      (await expectJson(await patch({ client: { deviceName: accented } }))).instance.settings.client.deviceName,
    ).toBe(accented);

    const body = await expectError(
      await patch({ client: { deviceName: "E".repeat(41), browserName: "Opera" }, ignore: { groups: true } }),
      422,
      "validation_error",
    );
    expect(body.error.details?.deviceName).toBeTruthy();
    const s = await read();
    expect(s.client.deviceName).toBe(accented);
    expect(s.client.browserName).not.toBe("Opera"); // a refused request applies nothing
    expect(s.ignore.groups).toBe(false);
  });

  it("the change is visible through another replica", async () => {
    const { patch, read } = await setup();
    expect((await read(replica)).client.deviceName).toBe("Messaging Gateway"); // cached there now
    await expectJson(await patch({ client: { deviceName: "from gw" } }, gw));
    // Replicas learn of the write by an invalidation message (the cache's TTL is far longer than
    // this wait, see beforeAll); give it time to arrive.
    await expect.poll(async () => (await read(replica)).client.deviceName, { timeout: 10_000 }).toBe("from gw");
  });
});
