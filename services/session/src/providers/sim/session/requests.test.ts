// The sim session's requests to simnet (requests.ts) on a stand-in socket: answers, refusals as
// the spec's errors, and what the calls still waiting get when the connection ends.
import { ApiError } from "@gw/contracts";
import type { Logger } from "@gw/platform";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { sendInFlightLost } from "../../in-flight.ts";
import { SimRequests } from "./requests.ts";

const log = { debug: () => {} } as unknown as Logger;
const notOpen = () => new ApiError("instance_not_connected", "not open");

function socket() {
  const sent: { id: string; op: string; args: unknown }[] = [];
  const ws = { readyState: WebSocket.OPEN, send: (data: string) => sent.push(JSON.parse(data)) };
  return { ws: ws as unknown as WebSocket, sent };
}

describe("sim requests", () => {
  it("refuses at once without an open socket", async () => {
    await expect(new SimRequests(log, () => null, notOpen).request("me", {})).rejects.toMatchObject({
      code: "instance_not_connected",
    });
    const closing = { readyState: WebSocket.CLOSING, send: () => {} } as unknown as WebSocket;
    await expect(new SimRequests(log, () => closing, notOpen).request("me", {})).rejects.toMatchObject({
      code: "instance_not_connected",
    });
  });

  it("resolves with the response of the same id, and keeps simnet's code on a refusal", async () => {
    const { ws, sent } = socket();
    const requests = new SimRequests(log, () => ws, notOpen);
    const me = requests.request("me", {});
    const send = requests.request("send", { to: "5511999990000@c.us" });
    expect(sent.map((f) => f.op)).toEqual(["me", "send"]);
    requests.answer({ id: sent[0]!.id, ok: true, result: { phone: "5511" } });
    requests.answer({ id: sent[1]!.id, ok: false, error: { code: "blocked", message: "blocked" } });
    requests.answer({ id: "unknown", ok: true, result: null }); // nobody waits on it
    await expect(me).resolves.toEqual({ phone: "5511" });
    const refused = await send.catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ simCode: "blocked" });
  });

  it("fails what waits when the connection ends: a send as outcome unknown, the rest with the reason", async () => {
    const { ws, sent } = socket();
    const requests = new SimRequests(log, () => ws, notOpen);
    const send = requests.request("send", {}).catch((err: unknown) => err);
    const me = requests.request("me", {}).catch((err: unknown) => err);
    const closed = new ApiError("instance_not_connected", "closed");
    requests.failAll(closed);
    expect(await send).toMatchObject({ code: sendInFlightLost().code, message: sendInFlightLost().message });
    expect(await me).toBe(closed);
    requests.answer({ id: sent[0]!.id, ok: true, result: {} }); // too late: already failed
  });
});
