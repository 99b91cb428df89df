import type { InboxEntry, Logger, Platform } from "@gw/platform";
import { type CloudChange, changesOf, processCloudChanges } from "@gw/session";
import type { Counter } from "prom-client";

export interface OfficialInboundOptions {
  consumer: string;
  /** An entry another processor took and left this long (it died) is taken over. */
  claimIdleMs: number;
  /** Entries processed at once, over all shards (one shard's entries always one after the other). */
  batch?: number;
}

/**
 * The official gateway's inbound processor (docs/official.md): reads the operator webhooks the
 * gateway verified and stored (platform/cloud-inbox.ts), and turns them into messages, acks and
 * events (session/providers/cloud/process.ts). One shard's entries are processed in order, so
 * one instance's webhooks keep the order they arrived in; shards go in parallel. An entry is
 * removed only after its processing, so nothing the gateway answered 2xx for is lost.
 */
export class OfficialInbound {
  private readonly reader: ReturnType<Platform["duplicate"]>;
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly platform: Platform,
    private readonly log: Logger,
    private readonly opts: OfficialInboundOptions,
    private readonly processed?: Counter<"outcome">,
  ) {
    this.reader = platform.duplicate(`gw-cloud-in-${opts.consumer}`);
  }

  async start(): Promise<void> {
    await this.platform.cloudInbox.ensureGroups();
    this.running = true;
    this.loops = [this.readLoop(), this.claimLoop()];
  }

  async close(): Promise<void> {
    this.running = false;
    this.reader.disconnect();
    await Promise.allSettled(this.loops);
  }

  private async readLoop(): Promise<void> {
    while (this.running) {
      try {
        const entries = await this.platform.cloudInbox.read(
          this.reader,
          this.opts.consumer,
          this.opts.batch ?? 64,
          1000,
        );
        await this.handle(entries);
      } catch (err) {
        if (!this.running) return;
        this.log.error({ err }, "reading operator webhooks failed");
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private async claimLoop(): Promise<void> {
    const every = Math.max(250, Math.floor(this.opts.claimIdleMs / 2));
    while (this.running) {
      await new Promise((r) => setTimeout(r, every));
      if (!this.running) return;
      try {
        await this.handle(await this.platform.cloudInbox.claimStale(this.opts.consumer, this.opts.claimIdleMs));
      } catch (err) {
        if (this.running) this.log.error({ err }, "claiming operator webhooks failed");
      }
    }
  }

  /** Shards in parallel, each shard's entries in order. */
  private async handle(entries: InboxEntry[]): Promise<void> {
    const byShard = new Map<number, InboxEntry[]>();
    for (const e of entries) byShard.set(e.shard, [...(byShard.get(e.shard) ?? []), e]);
    await Promise.all(
      [...byShard.values()].map(async (list) => {
        for (const entry of list) await this.one(entry);
      }),
    );
  }

  private async one(entry: InboxEntry): Promise<void> {
    let changes: CloudChange[];
    try {
      changes =
        entry.body !== null ? changesOf(JSON.parse(entry.body)) : (JSON.parse(entry.changes ?? "[]") as CloudChange[]);
    } catch {
      this.log.error({ entry: entry.id }, "unreadable operator webhook entry: dropped");
      await this.platform.cloudInbox.done(entry);
      return;
    }
    try {
      const r = await processCloudChanges(this.platform, this.log, entry.instanceId, changes, entry.id);
      this.processed?.inc({ outcome: "processed" }, r.items);
      if (r.duplicates) this.processed?.inc({ outcome: "duplicate" }, r.duplicates);
      await this.platform.cloudInbox.done(entry);
    } catch (err) {
      // Left pending: claimed again after claimIdleMs (by this or another processor).
      this.log.error({ err, entry: entry.id, instanceId: entry.instanceId }, "processing an operator webhook failed");
    }
  }
}
