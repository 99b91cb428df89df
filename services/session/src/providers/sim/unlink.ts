import WebSocket from "ws";
import type { ProviderContext } from "../contract.ts";

/**
 * A logout while not connected (a stopped instance, a dropped connection): a connection of its
 * own with the kept credentials, long enough to remove the device on the phone (`logout`), as the
 * Baileys provider does (docs/lifecycle.md "Logout"). Resolves null once removed (or already
 * gone: `logged_out`, `bad_credentials`), else why it could not be done.
 */
export async function unlinkOnNetwork(
  url: string,
  ctx: Pick<ProviderContext, "instance" | "podId">,
  creds: unknown,
  timeoutMs: number,
): Promise<string | null> {
  const ws = new WebSocket(url, { handshakeTimeout: Math.min(timeoutMs, 5_000) });
  return new Promise<string | null>((resolve) => {
    let done = false;
    const finish = (why: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      ws.removeAllListeners("close");
      ws.on("error", () => {});
      ws.terminate();
      resolve(why);
    };
    const timer = setTimeout(() => finish("the network did not answer in time"), timeoutMs);
    ws.on("error", (err) => finish(`could not connect (${err.message})`));
    ws.on("close", () => finish("the connection closed before the device was removed"));
    ws.on("open", () => {
      ws.send(JSON.stringify({ type: "hello", instanceId: ctx.instance.id, pod: ctx.podId, creds }));
    });
    ws.on("message", (data) => {
      let frame: { type?: string; reason?: string };
      try {
        frame = JSON.parse(String(data)) as typeof frame;
      } catch {
        return;
      }
      if (frame.type === "open") ws.send(JSON.stringify({ type: "logout" }));
      else if (frame.type === "close") {
        const gone = frame.reason === "logged_out" || frame.reason === "bad_credentials";
        finish(gone ? null : `the network closed the connection (${frame.reason})`);
      }
    });
  });
}
