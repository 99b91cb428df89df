// The operator's control plane under /v1/admin: accounts, instance creation (trial, provider
// defaults), the instance resource of spec 2.1, listing with filter and cursor, deletion.
import { setTimeout as sleep } from "node:timers/promises";
import { PAGE_OFFSET_MAX } from "@gw/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, expectJson, tokenHeaders } from "../support/e2e-helpers.ts";
import { startGateway, type TestGateway } from "../support/gateway.ts";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw?.close());

async function createAccount(name = "Acme", email?: string) {
  const body = await expectJson(
    await gw.admin("POST", "/v1/admin/accounts", { name, ...(email ? { email } : {}) }),
    201,
  );
  return body.account as { id: string; name: string; email: string | null; createdAt: string };
}

async function createInstance(json: Record<string, unknown>) {
  return expectJson(await gw.admin("POST", "/v1/admin/instances", { name: "inst", kind: "standard", ...json }), 201);
}

describe("accounts", () => {
  it("create with name and email, then read it", async () => {
    const before = Date.now();
    const account = await createAccount("Acme Ltda", "ops@acme.example");
    expect(account.id).toMatch(/^acc_[0-9a-z]{8,40}$/);
    expect(account.name).toBe("Acme Ltda");
    expect(account.email).toBe("ops@acme.example");
    expect(account.createdAt).toMatch(ISO);
    expect(Date.parse(account.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect((account as Record<string, unknown>).clientToken).toEqual({ enabled: false, requireOnAllCalls: false });

    const read = await expectJson(await gw.admin("GET", `/v1/admin/accounts/${account.id}`));
    expect(read.account).toEqual(account);
  });

  it("email is optional; name is required", async () => {
    const account = await createAccount("No mail");
    expect(account.email).toBeNull();
    const body = await expectError(
      await gw.admin("POST", "/v1/admin/accounts", { name: "  " }),
      422,
      "validation_error",
    );
    expect(body.error.details?.name).toBeTruthy();
  });

  it("list pages with limit and offset", async () => {
    const made = [await createAccount("L1"), await createAccount("L2"), await createAccount("L3")];
    const all = await expectJson(await gw.admin("GET", "/v1/admin/accounts?limit=500"));
    expect(all.total).toBe(all.data.length);
    const ids = all.data.map((a: { id: string }) => a.id);
    for (const a of made) expect(ids).toContain(a.id);
    const page = await expectJson(await gw.admin("GET", `/v1/admin/accounts?limit=1&offset=${all.total - 1}`));
    expect(page.data.map((a: { id: string }) => a.id)).toEqual([ids[ids.length - 1]]);
    expect(page.total).toBe(all.total);
  });
});

describe("instance creation", () => {
  it("the first instance of an account has a trial, the second is active", async () => {
    const account = await createAccount("Trial");
    const before = Date.now();
    const first = await createInstance({ accountId: account.id, name: "first" });
    expect(first.instance.accountId).toBe(account.id);
    expect(first.instance.billingStatus).toBe("trialing");
    expect(first.instance.trialEndsAt).toMatch(ISO);
    const days = (Date.parse(first.instance.trialEndsAt) - before) / 86_400_000;
    expect(days).toBeGreaterThan(gw.config.TRIAL_DAYS - 0.01);
    expect(days).toBeLessThan(gw.config.TRIAL_DAYS + 0.01);
    // A trialing instance is usable.
    const patch = await gw.request(`/v1/instances/${first.instance.id}/settings`, {
      method: "PATCH",
      headers: tokenHeaders(first.token),
      json: {},
    });
    expect(patch.status).toBe(200);

    const second = await createInstance({ accountId: account.id, name: "second" });
    expect(second.instance.billingStatus).toBe("active");
    expect(second.instance.trialEndsAt).toBeNull();
  });

  it("an account has one trial: deleting its first instance does not give the next one a trial", async () => {
    const account = await createAccount("One trial");
    const first = await createInstance({ accountId: account.id });
    expect(first.instance.billingStatus).toBe("trialing");
    await expectJson(await gw.admin("DELETE", `/v1/admin/instances/${first.instance.id}`));
    const next = await createInstance({ accountId: account.id });
    expect(next.instance.billingStatus).toBe("active");
    expect(next.instance.trialEndsAt).toBeNull();
  });

  it("concurrent creations in a new account give exactly one trial", async () => {
    const account = await createAccount("Race");
    const created = await Promise.all(
      Array.from({ length: 6 }, (_, i) => createInstance({ accountId: account.id, name: `c${i}` })),
    );
    const statuses = created.map((c) => c.instance.billingStatus).sort();
    expect(statuses).toEqual(["active", "active", "active", "active", "active", "trialing"]);
  });

  it("without accountId a new account is created for the instance, with the trial", async () => {
    const { instance } = await createInstance({ name: "standalone" });
    expect(instance.accountId).toMatch(/^acc_/);
    expect(instance.billingStatus).toBe("trialing");
    const account = await expectJson(await gw.admin("GET", `/v1/admin/accounts/${instance.accountId}`));
    expect(account.account.name).toBe("standalone");
  });

  it("an explicit billingStatus is kept", async () => {
    const account = await createAccount("Explicit");
    const { instance } = await createInstance({ accountId: account.id, billingStatus: "active" });
    expect(instance.billingStatus).toBe("active");
    expect(instance.trialEndsAt).toBeNull();
    const suspended = await createInstance({ accountId: account.id, billingStatus: "suspended" });
    expect(suspended.instance.billingStatus).toBe("suspended");
    expect(suspended.instance.suspendedAt).toMatch(ISO);
  });

  it("provider defaults by kind", async () => {
    const standard = await createInstance({ kind: "standard" });
    expect(standard.instance.kind).toBe("standard");
    expect(standard.instance.provider).toBe("baileys");
    const official = await createInstance({ kind: "official" });
    expect(official.instance.kind).toBe("official");
    expect(official.instance.provider).toBe("cloud");
    const sim = await createInstance({ kind: "standard", provider: "sim" });
    expect(sim.instance.provider).toBe("sim"); // ENABLE_SIM_PROVIDER is on in tests
  });

  it("a provider of the wrong kind → 422 details.provider", async () => {
    for (const [kind, provider] of [
      ["standard", "cloud"],
      ["official", "baileys"],
      ["official", "sim"],
    ]) {
      const res = await gw.admin("POST", "/v1/admin/instances", { name: "x", kind, provider });
      const body = await expectError(res, 422, "validation_error");
      expect(body.error.details?.provider, `${kind}/${provider}`).toBeTruthy();
    }
    const body = await expectError(
      await gw.admin("POST", "/v1/admin/instances", { name: "x", kind: "standard", provider: "whatsapp" }),
      422,
      "validation_error",
    );
    expect(body.error.details?.provider).toBeTruthy();
  });

  it("a refused creation does not use up the account's trial", async () => {
    const account = await createAccount("Refused");
    await expectError(
      await gw.admin("POST", "/v1/admin/instances", {
        name: "x",
        kind: "standard",
        provider: "cloud",
        accountId: account.id,
      }),
      422,
      "validation_error",
    );
    const { instance } = await createInstance({ accountId: account.id });
    expect(instance.billingStatus).toBe("trialing");
  });
});

describe("the instance resource (spec 2.1)", () => {
  it("has every field with its type, the same from the admin and the instance route", async () => {
    const created = await createInstance({ name: "Loja Centro" });
    const { token } = created;
    const id: string = created.instance.id;
    expect(id).toMatch(/^i[0-9a-z]{8,40}$/);

    const viaInstance = await expectJson(await gw.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) }));
    const viaAdmin = await expectJson(await gw.admin("GET", `/v1/admin/instances/${id}`));
    expect(viaAdmin).toEqual(viaInstance);
    expect(viaInstance.instance).toEqual(created.instance);

    const i = viaInstance.instance;
    expect(i.id).toBe(id);
    expect(i.name).toBe("Loja Centro");
    expect(i.phone).toBe("");
    expect(i.pushName).toBe("");
    expect(i.provider).toBe("baileys");
    expect(i.connectionStatus).toBe("STOPPED");
    expect(i.billingStatus).toBe("trialing");
    expect(i.cancelAtPeriodEnd).toBe(false);
    for (const f of ["currentPeriodEnd", "graceUntil", "suspendedAt"]) {
      expect(i).toHaveProperty(f);
      expect(i[f]).toBeNull();
    }
    for (const f of ["provisionedAt", "createdAt", "trialEndsAt"]) expect(i[f], f).toMatch(ISO);
    expect(i.settings).toEqual({
      client: { browserName: expect.any(String), deviceName: expect.any(String) },
      ignore: { broadcast: false, channels: false, groups: false, status: false },
      storage: { chats: true, contacts: true, groups: true, labels: true, messageSecrets: true, messages: true },
    });
    expect(i.settings.client.deviceName.length).toBeLessThanOrEqual(40);
  });

  it("billing fields set by the operator are returned as ISO 8601 UTC", async () => {
    const { instance } = await createInstance({});
    const res = await gw.admin("PUT", `/v1/admin/instances/${instance.id}/billing`, {
      billingStatus: "active",
      cancelAtPeriodEnd: true,
      currentPeriodEnd: "2031-05-01T12:00:00-03:00",
      graceUntil: null,
    });
    const body = await expectJson(res);
    expect(body.instance.billingStatus).toBe("active");
    expect(body.instance.cancelAtPeriodEnd).toBe(true);
    expect(body.instance.currentPeriodEnd).toBe("2031-05-01T15:00:00.000Z");
    expect(body.instance.graceUntil).toBeNull();
  });
});

describe("listing", () => {
  it("filters by accountId and pages with a cursor, oldest first", async () => {
    const account = await createAccount("Paged");
    const ids: string[] = [];
    for (let n = 0; n < 5; n++) {
      ids.push((await createInstance({ accountId: account.id, name: `p${n}` })).instance.id);
      await sleep(3); // distinct creation times: the order is by createdAt
    }
    await createInstance({ name: "someone else" });

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `accountId=${account.id}&limit=2${cursor ? `&cursor=${cursor}` : ""}`;
      const page = await expectJson(await gw.admin("GET", `/v1/admin/instances?${q}`));
      expect(page.data.length).toBeLessThanOrEqual(2);
      for (const inst of page.data) expect(inst.accountId).toBe(account.id);
      seen.push(...page.data.map((x: { id: string }) => x.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);

    const whole = await expectJson(await gw.admin("GET", `/v1/admin/instances?accountId=${account.id}&limit=5`));
    expect(whole.data.map((x: { id: string }) => x.id)).toEqual(ids);
    expect(whole.nextCursor).toBeNull();

    const unfiltered = await expectJson(await gw.admin("GET", "/v1/admin/instances?limit=500"));
    expect(unfiltered.data.length).toBeGreaterThan(ids.length);
  });

  it("an account without instances lists nothing", async () => {
    const account = await createAccount("Empty");
    const page = await expectJson(await gw.admin("GET", `/v1/admin/instances?accountId=${account.id}`));
    expect(page).toEqual({ data: [], nextCursor: null });
  });

  it("a cursor or offset past the search engine's limit is a 422, not its 500 (found by fuzzing on CI)", async () => {
    for (const path of [
      "/v1/admin/instances?cursor=5154215484739923",
      `/v1/admin/instances?cursor=${PAGE_OFFSET_MAX + 1}`,
      `/v1/admin/accounts?offset=${PAGE_OFFSET_MAX + 1}`,
    ]) {
      const res = await gw.admin("GET", path);
      expect(res.status, path).toBe(422);
      expect(((await res.json()) as { error: { code: string } }).error.code, path).toBe("validation_error");
    }
    const last = await gw.admin("GET", `/v1/admin/instances?cursor=${PAGE_OFFSET_MAX}`);
    expect(await expectJson(last)).toEqual({ data: [], nextCursor: null });
  });
});

describe("deletion", () => {
  it("deletes the instance: its token stops working, it leaves the list, a second delete is 404", async () => {
    const account = await createAccount("Delete");
    const { instance, token } = await createInstance({ accountId: account.id });
    expect((await gw.request(`/v1/instances/${instance.id}`, { headers: tokenHeaders(token) })).status).toBe(200);

    expect(await expectJson(await gw.admin("DELETE", `/v1/admin/instances/${instance.id}`))).toEqual({ success: true });

    await expectError(
      await gw.request(`/v1/instances/${instance.id}`, { headers: tokenHeaders(token) }),
      401,
      "invalid_token",
    );
    await expectError(
      await gw.request(`/v1/instances/${instance.id}/settings`, {
        method: "PATCH",
        headers: tokenHeaders(token),
        json: {},
      }),
      401,
      "invalid_token",
    );
    await expectError(await gw.admin("GET", `/v1/admin/instances/${instance.id}`), 404, "not_found");
    await expectError(await gw.admin("DELETE", `/v1/admin/instances/${instance.id}`), 404, "not_found");
    await expectError(await gw.admin("POST", `/v1/admin/instances/${instance.id}/token`), 404, "not_found");
    const page = await expectJson(await gw.admin("GET", `/v1/admin/instances?accountId=${account.id}`));
    expect(page.data).toEqual([]);
  });
});
