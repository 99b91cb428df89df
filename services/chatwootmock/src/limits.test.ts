// The mock's settings: the role's environment and the per-conversation message limit.
import { describe, expect, it } from "vitest";
import { createChatwootMock, loadChatwootMockConfig } from "./index.ts";

type J = Record<string, unknown>;

describe("config", () => {
  it("reads the role's environment", () => {
    expect(loadChatwootMockConfig({})).toMatchObject({ CHATWOOTMOCK_PORT: 8092, CHATWOOTMOCK_HOST: "127.0.0.1" });
    expect(() => loadChatwootMockConfig({ CHATWOOTMOCK_WEBHOOK_URL: "http://x/hook" })).toThrow(/CHATWOOTMOCK_TOKEN/);
  });
});

describe("limits", () => {
  it("refuses messages past the per-conversation minute limit, as Chatwoot does", async () => {
    const tight = createChatwootMock({ port: 0, messagesPerMinute: 2, preset: { token: "t-tight" } });
    const base = `${await tight.listen()}/api/v1/accounts/1`;
    const post = (path: string, body: unknown) =>
      fetch(base + path, {
        method: "POST",
        headers: { api_access_token: "t-tight", "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const contact = (await (await post("/contacts", { inbox_id: 1, name: "A" })).json()) as J;
    await post("/conversations", {
      inbox_id: 1,
      contact_id: (contact.payload as { contact: { id: number } }).contact.id,
    });
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await post("/conversations/1/messages", { content: `${i}` })).status);
    expect(codes).toEqual([200, 200, 422]);
    expect(await (await post("/conversations/1/messages", { content: "x" })).json()).toEqual({
      error: "Validation failed: Too many messages",
    });
    await tight.close();
  });
});
