import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

describe("smoke", () => {
  it("creates and reads an instance", async () => {
    const { id, token } = await gw.createInstance();
    const res = await gw.request(`/v1/instances/${id}`, { headers: { "x-instance-token": token } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { instance: { id: string } };
    expect(body.instance.id).toBe(id);
  });
});
