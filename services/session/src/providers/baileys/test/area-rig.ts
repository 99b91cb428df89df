// Test support for the feature areas' Baileys tests (imported only by *.test.ts): a paired
// session whose socket's unencrypted frames are decoded back into stanzas, and the network's
// answers handed to it.
import type { SessionOpHandlers } from "@gw/contracts";
import { type BinaryNode, decodeBinaryNode, type WASocket } from "@whiskeysockets/baileys";
import { vi } from "vitest";
import type { ProviderEvent, ProviderSession } from "../../contract.ts";
import { openPairedSession } from "./paired-rig.ts";
import { type RedisHarness, redisHarness, silentNetwork } from "./testing.ts";

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
  const net = await silentNetwork();
  const cleanups: (() => Promise<void>)[] = [];
  const answered = new Set<string>();

  const sentNodes = (tags = ["iq", "message", "call"]) => decodeSentFrames(net.frames, tags);

  return {
    sentNodes,
    async open() {
      const p = await openPairedSession({
        h,
        url: net.url,
        cleanups,
        connectTimeoutMs: 60_000,
        queryTimeoutMs: 30_000,
      });
      return { ...p, ops: p.session.ops! };
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
      net.frames.length = 0;
    },
    async close() {
      await net.close();
      await h.close();
    },
  };
}

/** A USync query (`onWhatsApp`, device and LID lookups). */
export const isUsync = (n: BinaryNode) => n.attrs.xmlns === "usync";
/** An `iq` of the namespace given. */
export const isIq = (xmlns: string) => (n: BinaryNode) => n.tag === "iq" && n.attrs.xmlns === xmlns;
