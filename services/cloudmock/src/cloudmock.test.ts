// The mock's own contract, over real HTTP: the operator's shapes the gateway's tests rely on.
import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CloudMock, createCloudMock, operatorJson, signature } from "./index.ts";
import { parseMultipart } from "./multipart.ts";

const ADMIN = "mock-admin-token";
let mock: CloudMock;
let url: string;
let hooks: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
let receiver: Server;
let status = 200;

const ctl = (method: string, path: string, json?: unknown) =>
  fetch(url + path, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(json !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: json !== undefined ? JSON.stringify(json) : undefined,
  });
const graph = (method: string, path: string, token: string, json?: unknown) =>
  fetch(`${url}/v25.0/${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(json !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: json !== undefined ? JSON.stringify(json) : undefined,
  });

const N = {
  phoneNumberId: "1001",
  wabaId: "2001",
  displayPhoneNumber: "5511999990000",
  accessToken: "tok-1",
  appSecret: "sec-1",
};

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      hooks.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  mock = createCloudMock({
    port: 0,
    adminToken: ADMIN,
    ackDelayMs: 20,
    templateApprovalMs: 0,
    webhookRetryMs: [50, 50],
    webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
  });
  url = await mock.listen();
  expect((await ctl("POST", "/mock/numbers", { ...N, verifiedName: "Loja" })).status).toBe(201);
});
afterAll(async () => {
  await mock?.close();
  await new Promise((r) => receiver.close(r));
});

const until = async (check: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe("webhooks", () => {
  it("escape non-ASCII as the operator does and are signed over the raw body; retried until 2xx", async () => {
    expect(operatorJson({ t: "olá 😀" })).toBe('{"t":"ol\\u00e1 \\ud83d\\ude00"}');
    hooks = [];
    status = 500;
    await ctl("POST", `/mock/numbers/${N.phoneNumberId}/inbound`, {
      from: "5521911110000",
      type: "text",
      text: { body: "olá" },
    });
    await until(() => hooks.length >= 2);
    status = 200;
    await until(() => hooks.length >= 3);
    const h = hooks.at(-1)!;
    expect(h.body).toContain("ol\\u00e1");
    expect(h.headers["x-hub-signature-256"]).toBe(
      `sha256=${createHmac("sha256", N.appSecret).update(h.body).digest("hex")}`,
    );
    expect(h.headers["x-hub-signature-256"]).toBe(signature(N.appSecret, h.body));
    expect(new Set(hooks.map((x) => x.body)).size).toBe(1); // the same body each time
  });
});

describe("Graph", () => {
  it("a wrong or expired token is 190", async () => {
    const wrong = await graph("GET", N.phoneNumberId, "nope");
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { code: number } }).error.code).toBe(190);
    await ctl("PATCH", `/mock/numbers/${N.phoneNumberId}`, { tokenExpired: true });
    const expired = (await (await graph("GET", N.phoneNumberId, N.accessToken)).json()) as {
      error: { code: number; error_subcode: number };
    };
    expect(expired.error).toMatchObject({ code: 190, error_subcode: 463 });
    await ctl("PATCH", `/mock/numbers/${N.phoneNumberId}`, { tokenExpired: false });
  });

  it("errors on demand: the operator's JSON body, or a raw body as a proxy in front would answer", async () => {
    const inject = (json: Record<string, unknown>) => ctl("POST", `/mock/numbers/${N.phoneNumberId}/errors`, json);
    expect((await inject({ op: "node", body: "x" })).status).toBe(400); // a raw body needs its status
    expect((await inject({ op: "node", code: 131016, details: "em manutenção" })).status).toBe(200);
    const json = await graph("GET", N.phoneNumberId, N.accessToken);
    expect(json.status).toBe(500);
    expect(((await json.json()) as { error: { code: number } }).error.code).toBe(131016);
    await inject({ op: "node", status: 502, body: "<html><body>502 Bad Gateway</body></html>", count: 2 });
    for (let i = 0; i < 2; i++) {
      const raw = await graph("GET", N.phoneNumberId, N.accessToken);
      expect(raw.status).toBe(502);
      expect(raw.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await raw.text()).toBe("<html><body>502 Bad Gateway</body></html>");
    }
    expect((await graph("GET", N.phoneNumberId, N.accessToken)).status).toBe(200); // used up
  });

  it("validates messages with the operator's codes and answers the documented success body", async () => {
    const bad = await graph("POST", `${N.phoneNumberId}/messages`, N.accessToken, {
      messaging_product: "whatsapp",
      to: "5521911110000",
      type: "text",
      text: { body: "x".repeat(4097) },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: number; error_data: { details: string } } }).error).toMatchObject({
      code: 100,
      error_data: { details: expect.stringContaining("4096") },
    });
    const ok = (await (
      await graph("POST", `${N.phoneNumberId}/messages`, N.accessToken, {
        messaging_product: "whatsapp",
        to: "5521911110000",
        type: "text",
        text: { body: "oi" },
      })
    ).json()) as { contacts: unknown[]; messages: { id: string }[] };
    expect(ok.contacts).toEqual([{ input: "5521911110000", wa_id: "5521911110000" }]);
    expect(ok.messages[0]!.id).toMatch(/^wamid\./);
  });

  it("templates: paging with opaque cursors", async () => {
    for (const name of ["a_one", "b_two", "c_three"]) {
      await graph("POST", `${N.wabaId}/message_templates`, N.accessToken, {
        name,
        language: "pt_BR",
        category: "UTILITY",
        components: [{ type: "BODY", text: "x" }],
      });
    }
    const first = (await (await graph("GET", `${N.wabaId}/message_templates?limit=2`, N.accessToken)).json()) as {
      data: { name: string }[];
      paging: { cursors: { after: string }; next?: string };
    };
    expect(first.data.map((t) => t.name)).toEqual(["a_one", "b_two"]);
    expect(first.paging.next).toBeDefined();
    const second = (await (
      await graph("GET", `${N.wabaId}/message_templates?limit=2&after=${first.paging.cursors.after}`, N.accessToken)
    ).json()) as { data: { name: string }[] };
    expect(second.data.map((t) => t.name)).toEqual(["c_three"]);
  });
});

describe("multipart", () => {
  it("parses fields and files as the media upload sends them", () => {
    const b = "----x";
    const body = Buffer.concat([
      Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="messaging_product"\r\n\r\nwhatsapp\r\n`),
      Buffer.from(
        `--${b}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      Buffer.from([0x89, 0x50, 0x0d, 0x0a]),
      Buffer.from(`\r\n--${b}--\r\n`),
    ]);
    const parts = parseMultipart(body, `multipart/form-data; boundary=${b}`)!;
    expect(parts.map((p) => [p.name, p.filename, p.contentType])).toEqual([
      ["messaging_product", null, null],
      ["file", "a.png", "image/png"],
    ]);
    expect([...parts[1]!.data]).toEqual([0x89, 0x50, 0x0d, 0x0a]);
  });
});
