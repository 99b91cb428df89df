import {
  type EventEnvelope,
  HELPDESK_EVENT_KINDS,
  type HelpdeskEventItem,
  type HelpdeskEventKind,
  normalizeChatId,
} from "@gw/contracts";
import type { Logger, Platform } from "@gw/platform";
import { signalHelpdesk } from "@gw/sending";
import type { Client } from "@temporalio/client";

export const HELPDESK_GROUP = "helpdesk";
const KINDS: ReadonlySet<string> = new Set(HELPDESK_EVENT_KINDS);

type Entry = [id: string, fields: string[]];

export interface IntakeOptions {
  consumer: string;
  taskQueue: string;
  claimIdleMs: number;
  /** The Redis shard whose streams this intake reads (infra/shards/: one intake per shard). */
  shard?: number;
}

/** Chats a help desk never shows: status posts, broadcast lists, channels. */
const NEVER = /@(broadcast|newsletter)$/;

/**
 * The help-desk connector's input (docs/helpdesk.md): a consumer group of its own on the event
 * streams (the dispatcher's webhook deliveries and this never wait on each other). Each message
 * event of an instance with an enabled `helpdesk` app is handed to its chat's workflow
 * (workflows/src/helpdesk.ts); one chat's events of a read are handed over together, in stream
 * order, chats and shards in parallel. An entry is acknowledged once Temporal holds its item, so a crash loses nothing; an
 * entry read again is handed over again and the workflow drops the second copy by event id.
 */
export class HelpdeskIntake {
  private readonly reader: ReturnType<Platform["duplicate"]>;
  /** The shard's own client: its streams are local structures (each shard has them). */
  private readonly redis: Platform["redis"];
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly platform: Platform,
    private readonly temporal: Client,
    private readonly log: Logger,
    private readonly opts: IntakeOptions,
  ) {
    this.reader = platform.duplicate(`gw-helpdesk-${opts.consumer}`, opts.shard ?? 0);
    this.redis = platform.shards.clients[opts.shard ?? 0]!;
  }

  private get streams(): string[] {
    return Array.from({ length: this.platform.events.shards }, (_, i) => this.platform.keys.events(i));
  }

  async start(): Promise<void> {
    for (const stream of this.streams) {
      // "$": a help desk sees what happens from now on, not the streams' whole past.
      await this.redis.xgroup("CREATE", stream, HELPDESK_GROUP, "$", "MKSTREAM").catch((err: Error) => {
        if (!err.message.includes("BUSYGROUP")) throw err;
      });
    }
    this.running = true;
    this.loops = [this.readLoop(), this.claimLoop()];
  }

  async close(): Promise<void> {
    this.running = false;
    this.reader.disconnect();
    await Promise.allSettled(this.loops);
  }

  private async readLoop(): Promise<void> {
    let ids = this.streams.map(() => "0"); // first what this consumer read and never acknowledged
    while (this.running) {
      try {
        const res = (await this.reader.xreadgroup(
          "GROUP",
          HELPDESK_GROUP,
          this.opts.consumer,
          "COUNT",
          200,
          "BLOCK",
          1_000,
          "STREAMS",
          ...this.streams,
          ...ids,
        )) as [string, Entry[]][] | null;
        const backlog = ids[0] === "0";
        const any = (res ?? []).some(([, entries]) => entries.length > 0);
        await Promise.all((res ?? []).map(([stream, entries]) => this.handle(stream, entries)));
        if (backlog && !any) ids = this.streams.map(() => ">");
      } catch (err) {
        if (!this.running) return;
        this.log.error({ err }, "help-desk intake: reading failed");
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** Takes over entries a dead intake left unacknowledged. */
  private async claimLoop(): Promise<void> {
    while (this.running) {
      await new Promise((r) => setTimeout(r, Math.min(5_000, this.opts.claimIdleMs)));
      for (const stream of this.streams) {
        if (!this.running) return;
        try {
          const [, entries] = (await this.redis.xautoclaim(
            stream,
            HELPDESK_GROUP,
            this.opts.consumer,
            this.opts.claimIdleMs,
            "0-0",
            "COUNT",
            100,
          )) as [string, Entry[]];
          await this.handle(
            stream,
            entries.filter((e) => e?.[1]),
          );
        } catch (err) {
          if (this.running) this.log.error({ err }, "help-desk intake: claiming failed");
        }
      }
    }
  }

  /**
   * One signal per chat with its entries in stream order (a chat's burst is one hand-over, not one
   * each); chats in parallel. Acknowledges what Temporal took; a chat whose hand-over failed stays
   * pending whole (claimed again later, in order).
   */
  private async handle(stream: string, entries: Entry[]): Promise<void> {
    const byChat = new Map<string, { ids: string[]; env: EventEnvelope; items: HelpdeskEventItem[] }>();
    const done: string[] = [];
    for (const [id, fields] of entries) {
      const field = (name: string) => fields[fields.indexOf(name) + 1];
      const kind = field("event") ?? "";
      const body = field("envelope");
      if (!KINDS.has(kind) || !body) {
        done.push(id);
        continue;
      }
      const env = JSON.parse(body) as EventEnvelope;
      const chatId = typeof env.payload.chatId === "string" ? env.payload.chatId : "";
      const key = `${env.instanceId} ${chatId}`;
      const chat = byChat.get(key) ?? { ids: [], env, items: [] };
      chat.ids.push(id);
      chat.items.push({
        kind: "event",
        eventId: env.id,
        event: kind as HelpdeskEventKind,
        publishedAt: env.timestamp,
        payload: env.payload,
      });
      byChat.set(key, chat);
    }
    await Promise.all(
      [...byChat.values()].map(async ({ ids, env, items }) => {
        try {
          await this.handOver(env.instanceId, String(env.payload.chatId ?? ""), items);
          done.push(...ids);
        } catch (err) {
          this.log.error({ err, ids: ids.length, instanceId: env.instanceId }, "help-desk intake: handing over failed");
        }
      }),
    );
    if (done.length) await this.redis.xack(stream, HELPDESK_GROUP, ...done);
  }

  private async handOver(instanceId: string, chatId: string, items: HelpdeskEventItem[]): Promise<void> {
    const app = await this.platform.apps.enabled(instanceId, "helpdesk");
    if (!app || !chatId || NEVER.test(chatId)) return;
    const config = app.config as { ignoreGroups?: boolean; ignoreChats?: string[] };
    if (config.ignoreGroups !== false && chatId.endsWith("@g.us")) return;
    if (config.ignoreChats?.some((c) => (normalizeChatId(c) ?? c) === chatId)) return;
    await signalHelpdesk(this.temporal, this.opts.taskQueue, { instanceId, appId: app.id, chatId }, items);
  }
}
