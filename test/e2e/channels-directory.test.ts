// The channel directory (spec 4.6) end to end on simnet: the lookups, the searches by view and by
// text with their filters and cursors, every field of their bodies validated.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson } from "../support/e2e-helpers.ts";

let c: Cluster;
// Numbers of this file: 5531974440xxx.
const a = { id: "", token: "", phone: "5531974440001" }; // searches; runs a channel of its own
const OWNER = "5531974440010"; // virtual phones that own directory channels
const OWNER_PT = "351912345679";
const FANS = Array.from({ length: 6 }, (_, i) => `55319744401${String(i).padStart(2, "0")}`);

type Obj = Record<string, any>;
let asA: (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;

const sim = async (method: string, path: string, json?: unknown, status = 200) =>
  expectJson<Obj>(await c.sim(method, path, json), status);

beforeAll(async () => {
  c = await startCluster({ env: { RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "1000" } });
  Object.assign(a, await c.createInstance());
  await c.as(a.token)(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
  for (const phone of [OWNER, OWNER_PT, ...FANS]) await sim("POST", "/simnet/phones", { phone }, 201);
  asA = (path, init) => c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
  // The instance's own channel, without followers: the directory lists it too.
  await expectJson(await asA("/channels", { method: "POST", json: { name: "Ofertas da Loja" } }), 201);
}, 60_000);
afterAll(() => c?.close());

describe("the directory", () => {
  const made: Obj[] = [];

  beforeAll(async () => {
    const make = async (body: Obj) => made.push(await sim("POST", "/simnet/channels", body, 201));
    await make({
      owner: OWNER,
      name: "Futebol Brasil",
      description: "Tudo sobre o Brasileirão",
      category: "SPORTS",
      followers: FANS.slice(0, 5),
    });
    await make({
      owner: OWNER,
      name: "Notícias do Dia",
      description: "Jornalismo",
      category: "NEWS",
      verified: true,
      followers: FANS.slice(0, 2),
    });
    await make({
      owner: OWNER_PT,
      name: "Fado e Futebol",
      description: "Lisboa",
      category: "ENTERTAINMENT",
      followers: FANS.slice(0, 3),
    });
    await make({
      owner: OWNER,
      name: "Receitas",
      description: "Cozinha caseira",
      category: "LIFESTYLE",
      followers: FANS.slice(0, 1),
    });
  });

  it("the lookups", async () => {
    const views = await expectJson<Obj[]>(await asA("/channels/search/views"));
    expect(views.map((x) => x.value)).toEqual(["RECOMMENDED", "TRENDING", "POPULAR", "NEW"]);
    for (const x of views) expect(Object.keys(x).sort()).toEqual(["name", "value"]);
    const countries = await expectJson<Obj[]>(await asA("/channels/search/countries"));
    expect(countries).toContainEqual({ name: "Brasil", code: "BR" });
    expect(countries).toContainEqual({ name: "Portugal", code: "PT" });
    const categories = await expectJson<Obj[]>(await asA("/channels/search/categories"));
    expect(categories).toContainEqual({ name: "Esportes", value: "SPORTS" });
  });

  const byView = (json: Obj) => asA("/channels/search/by-view", { method: "POST", json });
  const byText = (json: Obj) => asA("/channels/search/by-text", { method: "POST", json });

  it("by view, paged with cursors; results carry no role", async () => {
    const first = await expectJson<Obj>(
      await byView({ view: "POPULAR", categories: [], countries: [], limit: 2, startCursor: "" }),
    );
    expect(first.channels.map((x: Obj) => x.name)).toEqual(["Futebol Brasil", "Fado e Futebol"]);
    expect(first.page).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    for (const x of first.channels) {
      expect(x).not.toHaveProperty("role");
      expect(x.invite).toMatch(/^https:\/\/whatsapp\.com\/channel\//);
    }
    const second = await expectJson<Obj>(
      await byView({ view: "POPULAR", categories: [], countries: [], limit: 2, startCursor: first.page.endCursor }),
    );
    expect(second.channels.map((x: Obj) => x.name)).toEqual(["Notícias do Dia", "Receitas"]);
    expect(second.page).toMatchObject({ startCursor: first.page.endCursor, hasPreviousPage: true });
    const third = await expectJson<Obj>(
      await byView({ view: "POPULAR", categories: [], countries: [], limit: 2, startCursor: second.page.endCursor }),
    );
    // The instance's own channel (no followers) closes the list.
    expect(third.channels.map((x: Obj) => x.name)).toEqual(["Ofertas da Loja"]);
    expect(third.page.hasNextPage).toBe(false);
  });

  it("by view: RECOMMENDED puts verified first; NEW the newest; categories and countries filter", async () => {
    const rec = await expectJson<Obj>(
      await byView({ view: "RECOMMENDED", categories: [], countries: [], limit: 1, startCursor: "" }),
    );
    expect(rec.channels[0]).toMatchObject({ name: "Notícias do Dia", verified: true });
    const fresh = await expectJson<Obj>(
      await byView({ view: "NEW", categories: [], countries: [], limit: 1, startCursor: "" }),
    );
    expect(fresh.channels[0].name).toBe("Receitas");
    const pt = await expectJson<Obj>(
      await byView({ view: "POPULAR", categories: [], countries: ["PT"], limit: 10, startCursor: "" }),
    );
    expect(pt.channels.map((x: Obj) => x.name)).toEqual(["Fado e Futebol"]);
    const sports = await expectJson<Obj>(
      await byView({ view: "POPULAR", categories: ["SPORTS", "NEWS"], countries: ["BR"], limit: 10, startCursor: "" }),
    );
    expect(sports.channels.map((x: Obj) => x.name)).toEqual(["Futebol Brasil", "Notícias do Dia"]);
  });

  it("by text: name or description, accents ignored", async () => {
    const found = await expectJson<Obj>(await byText({ text: "FUTEBOL", categories: [], limit: 10, startCursor: "" }));
    expect(found.channels.map((x: Obj) => x.name)).toEqual(["Futebol Brasil", "Fado e Futebol"]);
    const accents = await expectJson<Obj>(
      await byText({ text: "brasileirao", categories: [], limit: 10, startCursor: "" }),
    );
    expect(accents.channels.map((x: Obj) => x.name)).toEqual(["Futebol Brasil"]);
    const filtered = await expectJson<Obj>(
      await byText({ text: "futebol", categories: ["ENTERTAINMENT"], limit: 10, startCursor: "" }),
    );
    expect(filtered.channels.map((x: Obj) => x.name)).toEqual(["Fado e Futebol"]);
    const none = await expectJson<Obj>(await byText({ text: "xadrez", categories: [], limit: 10, startCursor: "" }));
    expect(none).toMatchObject({ channels: [], page: { hasNextPage: false, hasPreviousPage: false } });
  });

  it("every field of the searches is validated", async () => {
    const view = { view: "POPULAR", categories: [], countries: [], limit: 5, startCursor: "" };
    const text = { text: "a", categories: [], limit: 5, startCursor: "" };
    const cases: [(j: Obj) => Promise<Response>, Obj, string][] = [
      [byView, { ...view, view: undefined }, "view"],
      [byView, { ...view, view: "HOT" }, "view"],
      [byView, { ...view, categories: undefined }, "categories"],
      [byView, { ...view, categories: ["esportes!"] }, "categories"],
      [byView, { ...view, countries: undefined }, "countries"],
      [byView, { ...view, countries: ["Brasil"] }, "countries"],
      [byView, { ...view, limit: undefined }, "limit"],
      [byView, { ...view, limit: 0 }, "limit"],
      [byView, { ...view, limit: 101 }, "limit"],
      [byView, { ...view, startCursor: undefined }, "startCursor"],
      [byView, { ...view, startCursor: "não-é-cursor" }, "startCursor"],
      [byText, { ...text, text: undefined }, "text"],
      [byText, { ...text, text: " " }, "text"],
      [byText, { ...text, categories: undefined }, "categories"],
      [byText, { ...text, limit: "5" }, "limit"],
      [byText, { ...text, startCursor: undefined }, "startCursor"],
    ];
    for (const [call, json, field] of cases) {
      const err = await expectError(await call(json), 422, "validation_error");
      expect(Object.keys(err.error.details ?? {}), `${JSON.stringify(json)} → ${field}`).toContain(field);
    }
  });
});
