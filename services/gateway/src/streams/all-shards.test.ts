// Catching up the admin stream across shards (all-shards.ts), on streams in memory: the shards'
// histories merged by stream id over several pages, and where each shard resumes after an id.
import type { StoredEvent, StreamReads } from "@gw/platform";
import { describe, expect, it } from "vitest";
import { catchUpAcross, type ShardPart } from "./all-shards.ts";
import type { Feed } from "./reader.ts";
import type { LiveEvent, StreamSink } from "./sink.ts";
import { StreamClient, Subscriber } from "./subscriber.ts";

const cmp = (a: string, b: string) => {
  const [am, as] = a.split("-").map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split("-").map(BigInt) as [bigint, bigint];
  return am === bm ? Number(as - bs) : Number(am - bm);
};

/** A shard's all-instances stream: entries at the given ms, the event ids `<shard>:<ms>`. */
function shardStream(shard: number, times: number[]): StoredEvent[] {
  return times.map((ms) => ({
    streamId: `${ms}-0`,
    id: `s${shard}:${ms}`,
    kind: ms % 2 ? "message" : "message.ack",
    instanceId: `i${shard}`,
    envelope: "{}",
  }));
}

function reads(stream: StoredEvent[]): StreamReads {
  return {
    after: async (_key: string, after: string, count: number) =>
      stream.filter((e) => cmp(e.streamId, after) > 0).slice(0, count),
    locate: async (_key: string, id: string) => {
      const at = stream.find((e) => e.id === id);
      return at ? { after: at.streamId, found: true } : { after: "1000-18446744073709551615", found: false };
    },
  } as unknown as StreamReads;
}

function sink(): StreamSink & { sent: LiveEvent[] } {
  const sent: LiveEvent[] = [];
  return {
    sent,
    closed: false,
    bufferedEvents: 0,
    bufferedBytes: 0,
    send: (events) => void sent.push(...events),
    drained: async () => {},
    heartbeat: () => {},
    overflow: () => {},
    end: () => {},
    onClose: () => {},
  };
}

function setup(streams: StoredEvent[][], kinds: Set<string> | null = null) {
  const out = sink();
  const client = new StreamClient(out, { instanceId: null, kinds, cursor: "x", owner: null });
  const parts: ShardPart[] = streams.map((stream, shard) => {
    const last = stream[stream.length - 1];
    const feed: Feed = {
      id: `all-events@${shard}`,
      key: "all-events",
      shard,
      instanceId: undefined,
      position: last?.streamId ?? "0-0",
      lastId: last?.id ?? null,
      subs: new Set(),
    };
    return { feed, sub: new Subscriber(client), reads: reads(stream) };
  });
  return { out, client, parts };
}

describe("catchUpAcross", () => {
  it("merges the shards' histories in stream id order over several pages, then goes live at each end", async () => {
    // Shard 0 dense (1,200 entries: three pages), shard 1 sparse and later: every page boundary crossed.
    const s0 = shardStream(
      0,
      Array.from({ length: 1200 }, (_, i) => 2000 + i * 2),
    );
    const s1 = shardStream(
      1,
      Array.from({ length: 300 }, (_, i) => 2001 + i * 9),
    );
    const { out, client, parts } = setup([s0, s1]);
    await catchUpAcross(parts, s0[0]!.id, () => expect.fail("no shard fails"));
    const ids = out.sent.map((e) => e.streamId);
    expect(ids.length).toBe(1199 + 300);
    expect([...ids].sort(cmp)).toEqual(ids);
    expect(parts.map((p) => [p.sub.live, p.sub.last])).toEqual([
      [true, s0[1199]!.streamId],
      [true, s1[299]!.streamId],
    ]);
    expect(client.cursor).toBe(out.sent[out.sent.length - 1]!.id);
  });

  it("resumes right after the id on its shard, from the start of its millisecond on the others", async () => {
    const s0 = shardStream(0, [2000, 2004, 2008, 2012]);
    const s1 = shardStream(1, [2003, 2004, 2005, 2013]);
    const { out, parts } = setup([s0, s1]);
    await catchUpAcross(parts, "s0:2004", () => expect.fail("no shard fails"));
    // Shard 1's entry of the same millisecond is sent again rather than missed.
    expect(out.sent.map((e) => e.id)).toEqual(["s1:2004", "s1:2005", "s0:2008", "s0:2012", "s1:2013"]);
  });

  it("an id no shard holds: after its own time everywhere; ?events= filters what is sent", async () => {
    const s0 = shardStream(0, [999, 1001, 1002]);
    const s1 = shardStream(1, [1000, 1003]);
    const { out, client, parts } = setup([s0, s1], new Set(["message"]));
    await catchUpAcross(parts, "evt_unknown", () => expect.fail("no shard fails"));
    expect(out.sent.map((e) => e.id)).toEqual(["s0:1001", "s1:1003"]);
    expect(client.cursor).toBe("s1:1003");
  });

  it("a shard whose reads fail is dropped, the others caught up", async () => {
    const s0 = shardStream(0, [2000, 2001]);
    const { out, parts } = setup([s0, []]);
    const failing = {
      ...parts[1]!,
      reads: { locate: () => Promise.reject(new Error("down")) } as unknown as StreamReads,
    };
    const dropped: number[] = [];
    await catchUpAcross([parts[0]!, failing], "s0:2000", (p) => void dropped.push(p.feed.shard));
    expect(dropped).toEqual([1]);
    expect(out.sent.map((e) => e.id)).toEqual(["s0:2001"]);
    expect(parts[0]!.sub.live).toBe(true);
  });
});
