// The gateway → pod channel over real sockets: framing, the session client's use of it, its
// fallback to HTTP, and what a caller sees when the connection goes away mid-call.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { PassThrough } from "node:stream";
import { ApiError } from "@gw/contracts";
import { afterEach, describe, expect, it } from "vitest";
import { CHANNEL_MAX_INPUT, CHANNEL_PATH, FrameWriter, readFrames } from "./channel.ts";
import { createSessionClient, INTERNAL_SECRET_HEADER } from "./client.ts";

const SECRET = "s3cret-for-channel-tests";

describe("framing", () => {
  it("frames split anywhere (even inside a multi-byte character) and many per chunk come out whole", () => {
    const stream = new PassThrough();
    const seen: unknown[] = [];
    const frames = [{ a: "olá 🙂" }, { b: "linha\ncom quebra" }, { c: 3 }];
    const bytes = Buffer.from(frames.map((f) => `${JSON.stringify(f)}\n`).join(""), "utf8");
    readFrames(stream, bytes.subarray(0, 5), (f) => seen.push(f));
    for (let i = 5; i < bytes.length; i += 3) stream.write(bytes.subarray(i, i + 3));
    expect(seen).toEqual(frames);
  });

  it("an unparseable line or an endless one drops the connection", () => {
    const bad = new PassThrough();
    readFrames(bad, Buffer.alloc(0), () => {});
    bad.on("error", () => {});
    bad.write("{nope\n");
    expect(bad.destroyed).toBe(true);

    const long = new PassThrough();
    readFrames(long, Buffer.alloc(0), () => {}, 4 * 1024 * 1024);
    long.on("error", () => {});
    for (let i = 0; i < 5 && !long.destroyed; i++) long.write("x".repeat(1024 * 1024));
    expect(long.destroyed).toBe(true);
  });

  it("frames sent in one turn leave in one write", async () => {
    const stream = new PassThrough();
    const writes: string[] = [];
    const write = stream.write.bind(stream);
    stream.write = ((chunk: string) => {
      writes.push(chunk);
      return write(chunk);
    }) as typeof stream.write;
    const out = new FrameWriter(stream);
    for (let i = 0; i < 10; i++) out.send(JSON.stringify({ i }));
    await new Promise((r) => setImmediate(r));
    expect(writes).toHaveLength(1);
    expect(writes[0]!.split("\n").filter(Boolean)).toHaveLength(10);
  });
});

/** A fake pod: answers `account` with its input over the channel and over HTTP, counting both. */
async function fakePod(opts: { channel: boolean; hangOn?: string }) {
  const counts = { channel: 0, http: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      counts.http++;
      const ok = req.headers[INTERNAL_SECRET_HEADER] === SECRET;
      res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
      res.end(JSON.stringify(ok ? { result: { via: "http", size: body.length } } : { api: { code: "invalid_token" } }));
    });
  });
  if (opts.channel) {
    server.on("upgrade", (req, socket: Socket, head) => {
      if (req.url !== CHANNEL_PATH || req.headers[INTERNAL_SECRET_HEADER] !== SECRET) return socket.destroy();
      socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: gw-rpc\r\nConnection: Upgrade\r\n\r\n");
      sockets.add(socket);
      const out = new FrameWriter(socket);
      readFrames(socket, head, (frame) => {
        const { i, op, input } = frame as { i: number; op: string; input: { instanceId: string } };
        counts.channel++;
        if (op === opts.hangOn) return; // never answered
        if (input.instanceId === "missing") {
          out.send(JSON.stringify({ i, s: 404, b: { api: { code: "not_found", message: "sem instância" } } }));
          return;
        }
        out.send(JSON.stringify({ i, s: 200, b: { result: { via: "channel", id: input.instanceId } } }));
      });
    });
  }
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    counts,
    dropChannels: () => {
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe("the session client", () => {
  const pods: Awaited<ReturnType<typeof fakePod>>[] = [];
  afterEach(async () => {
    await Promise.all(pods.splice(0).map((p) => p.close()));
  });

  it("sends concurrent calls over one channel and matches each answer to its call", async () => {
    const pod = await fakePod({ channel: true });
    pods.push(pod);
    const client = createSessionClient(pod.url, SECRET);
    const ids = Array.from({ length: 50 }, (_, i) => `i${i}`);
    const answers = await Promise.all(ids.map((id) => client.account(id)));
    expect(answers).toEqual(ids.map((id) => ({ via: "channel", id })));
    expect(pod.counts).toEqual({ channel: 50, http: 0 });
    // The pod's errors come back as the same ApiError.
    await expect(client.account("missing")).rejects.toMatchObject({ code: "not_found", message: "sem instância" });
  });

  it("large inputs, answers with bytes, and every call to a pod without the channel go over HTTP", async () => {
    const withChannel = await fakePod({ channel: true });
    const without = await fakePod({ channel: false });
    pods.push(withChannel, without);
    const big = "x".repeat(CHANNEL_MAX_INPUT + 1);
    const client = createSessionClient(withChannel.url, SECRET);
    expect(await client.presence("i1", "available", big)).toEqual({ via: "http", size: expect.any(Number) });
    expect(withChannel.counts.http).toBe(1);
    expect(await client.downloadMedia("i1", "3EB0AA")).toMatchObject({ via: "http" });
    expect(withChannel.counts.http).toBe(2);

    const old = createSessionClient(without.url, SECRET);
    expect(await old.account("i1")).toMatchObject({ via: "http" });
    expect(await old.account("i2")).toMatchObject({ via: "http" });
    expect(without.counts.channel).toBe(0); // (its upgrade request is answered as a plain request)
  });

  it("a call in flight when the channel drops fails with network_unavailable; the next call reconnects", async () => {
    const pod = await fakePod({ channel: true, hangOn: "qr" });
    pods.push(pod);
    const client = createSessionClient(pod.url, SECRET);
    expect(await client.account("i1")).toEqual({ via: "channel", id: "i1" });
    const hanging = client.qr("i1");
    await new Promise((r) => setTimeout(r, 50));
    pod.dropChannels();
    const err = await hanging.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: "network_unavailable" });
    expect(await client.account("i2")).toEqual({ via: "channel", id: "i2" });
  });
});
