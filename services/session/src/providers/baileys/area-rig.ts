// Test support for the feature areas' Baileys tests (imported only by *.test.ts next to it).
import type { AddressInfo } from "node:net";
import type { SessionOpHandlers } from "@gw/contracts";
import { type AuthStateStore, createLogger } from "@gw/platform";
import {
  type BinaryNode,
  decodeBinaryNode,
  makeWASocket,
  proto,
  type UserFacingSocketConfig,
  type WASocket,
} from "@whiskeysockets/baileys";
import { expect, vi } from "vitest";
import { WebSocketServer } from "ws";
import type { ProviderEvent, ProviderSession } from "../contract.ts";
import { useRedisAuthState } from "./auth-state.ts";
import { createBaileysSession } from "./session.ts";
import { baileysInstance, memoryIdentity, memoryRecords, type RedisHarness, redisHarness } from "./testing.ts";

/**
 * An area's operations at Baileys' boundary: a real socket whose frames reach a local endpoint
 * that never completes the handshake, so they travel unencrypted and are decoded here into the
 * stanzas Baileys built; the network's answers are handed to the socket as the responses it waits
 * for (`TAG:<id>` on its connection). Notifications are emitted on the socket's own emitter.
 */
export interface AreaRig {
  session: ProviderSession;
  ops: SessionOpHandlers;
  events: ProviderEvent[];
  sock: WASocket;
  raw: Map<string, string>;
  /** lid → phone the identity helpers know (a test may seed it). */
  known: Map<string, string>;
  /** The provider's records (name → field → value), as `ctx.records` wrote them. */
  records: Map<string, Map<string, string>>;
}

export interface AreaHarness {
  open(): Promise<AreaRig>;
  /** Every binary node sent so far: iq, message and call stanzas, or those of the tags given (`presence`, `chatstate`). */
  sentNodes(tags?: string[]): Promise<BinaryNode[]>;
  /** Waits for the next query that `match`es, answers it with `reply`'s content, gives the query. */
  answer(
    sock: WASocket,
    match: (n: BinaryNode) => boolean,
    reply: (n: BinaryNode) => BinaryNode[],
  ): Promise<BinaryNode>;
  /** Between tests: sessions stopped, frames forgotten. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The stanzas of the frames a socket sent before its noise handshake completed (they travel
 * unencrypted): each frame's 3-byte length-prefixed nodes, decoded, those of the tags given.
 */
export async function decodeSentFrames(frames: readonly Buffer[], tags: readonly string[]): Promise<BinaryNode[]> {
  const out: BinaryNode[] = [];
  for (const frame of frames) {
    let buf = frame.subarray(0, 2).toString("latin1") === "WA" ? frame.subarray(4) : frame;
    while (buf.length >= 3) {
      const len = (buf[0]! << 16) | (buf[1]! << 8) | buf[2]!;
      const data = buf.subarray(3, 3 + len);
      buf = buf.subarray(3 + len);
      try {
        const node = await decodeBinaryNode(data);
        if (tags.includes(node.tag)) out.push(node);
      } catch {
        // the handshake's ClientHello
      }
    }
  }
  return out;
}

export async function areaHarness(): Promise<AreaHarness> {
  const h: RedisHarness = await redisHarness();
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const frames: Buffer[] = [];
  wss.on("connection", (c) => c.on("message", (data: Buffer) => frames.push(Buffer.from(data))));
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws/chat`;
  const cleanups: (() => Promise<void>)[] = [];
  const answered = new Set<string>();

  const sentNodes = (tags = ["iq", "message", "call"]) => decodeSentFrames(frames, tags);

  return {
    sentNodes,
    async open() {
      const store: AuthStateStore = await h.storeFor(h.newInstanceId());
      const auth = await useRedisAuthState(store);
      auth.state.creds.me = { id: "5511999999999:12@s.whatsapp.net", lid: "123456789:12@lid", name: "Ana" };
      auth.state.creds.account = proto.ADVSignedDeviceIdentity.fromObject({ details: Buffer.from("d") });
      await auth.saveCreds();
      const events: ProviderEvent[] = [];
      const sockets: WASocket[] = [];
      const raw = new Map<string, string>();
      const known = new Map<string, string>();
      const records = new Map<string, Map<string, string>>();
      const session = createBaileysSession(
        {
          instance: baileysInstance(store.instanceId),
          podId: "pod-a",
          auth: store,
          rawMessages: { save: async (id, v) => void raw.set(id, v), load: async (id) => raw.get(id) ?? null },
          log: createLogger("silent"),
          identity: memoryIdentity(known),
          records: memoryRecords(records),
          emit: (e) => events.push(e),
        },
        {
          version: [2, 3000, 1],
          makeSocket: (config: UserFacingSocketConfig) => {
            const sock = makeWASocket({
              ...config,
              waWebSocketUrl: url,
              connectTimeoutMs: 60_000,
              defaultQueryTimeoutMs: 30_000,
            });
            sockets.push(sock);
            return sock;
          },
        },
      );
      cleanups.push(() => session.stop());
      await session.start();
      await vi.waitFor(() => expect(sockets[0]?.ws.isOpen).toBe(true), { timeout: 10_000 });
      sockets[0]!.ev.emit("connection.update", { connection: "open" });
      // A registered session buffers events until the offline backlog is in (`ib offline`): flush as that would.
      sockets[0]!.ev.flush();
      return { session, ops: session.ops!, events, sock: sockets[0]!, raw, known, records };
    },
    async answer(sock, match, reply) {
      const node = await vi.waitFor(
        async () => {
          const found = (await sentNodes()).find((n) => match(n) && !answered.has(n.attrs.id ?? ""));
          if (!found) throw new Error("no such query yet");
          return found;
        },
        { timeout: 10_000 },
      );
      answered.add(node.attrs.id ?? "");
      sock.ws.emit(`TAG:${node.attrs.id}`, {
        tag: "iq",
        attrs: { id: node.attrs.id!, type: "result" },
        content: reply(node),
      });
      return node;
    },
    async reset() {
      for (const c of cleanups.splice(0)) await c();
      frames.length = 0;
    },
    async close() {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await h.close();
    },
  };
}
