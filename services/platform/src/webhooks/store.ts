import { randomBytes } from "node:crypto";
import { ApiError, invalid, WEBHOOK_FAILING_LIMIT_MS, WEBHOOKS_PER_INSTANCE, type Webhook } from "@gw/contracts";
import type { Redis } from "ioredis";
import { type Entity, Repository, Schema } from "redis-om";
import type { Sealer } from "../auth/sealed.ts";
import { randomBase32 } from "../infra/ids.ts";
import type { Invalidations } from "../infra/invalidations.ts";
import type { Keys } from "../infra/keys.ts";
import type { OmClient } from "../infra/redis.ts";
import { DeliveryLog } from "./deliveries.ts";
import type { WebhookTarget } from "./target.ts";

const DAY = 86_400_000;

/** What is stored of a webhook: the public fields, sealed secret, and times as numbers. */
type WebhookDoc = {
  id: string;
  instanceId: string;
  url: string;
  events: string[];
  active: boolean;
  secretSealed: string;
  deactivatedAt: number | null;
  deactivationReason: string | null;
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
};

export const newWebhookSecret = () => `whsec_${randomBytes(24).toString("base64url")}`;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function webhookSchemaFor(k: Keys) {
  return new Schema(
    `${k.prefix}webhook`,
    { instanceId: { type: "string" }, createdAt: { type: "number", sortable: true } },
    { dataStructure: "JSON" },
  );
}

/**
 * Webhooks (redis-om JSON documents, secrets sealed) and the failure clock that deactivates a
 * webhook (spec 3.4); their deliveries (7 days) and response times (24 h) are `deliveries`
 * (deliveries.ts).
 */
export class WebhookStore {
  readonly repo: Repository;
  /** Its webhooks' deliveries and response times. */
  readonly deliveries: DeliveryLog;

  constructor(
    private readonly redis: Redis,
    om: OmClient,
    private readonly k: Keys,
    private readonly sealer: Sealer,
    private readonly invalidations: Invalidations,
    /** On a sharded deployment, the shard of a command's keys (deliveries live on their instance's). */
    shardOf?: (keys: readonly string[]) => number,
  ) {
    this.repo = new Repository(webhookSchemaFor(k), om);
    this.deliveries = new DeliveryLog(
      redis,
      k,
      {
        owned: async (instanceId, webhookId) => void (await this.doc(instanceId, webhookId)),
        succeeded: (webhookId) => this.clearFailing(webhookId),
      },
      shardOf,
    );
  }

  async create(
    instanceId: string,
    input: { url: string; events: string[] },
  ): Promise<{ webhook: Webhook; secret: string }> {
    // The count and the insert under one short lock: two concurrent creates cannot make a sixth.
    return this.withInstanceLock(instanceId, async () => {
      const existing = await this.repo.search().where("instanceId").equals(instanceId).return.count();
      if (existing >= WEBHOOKS_PER_INSTANCE) {
        throw invalid(
          "webhooks",
          `no máximo ${WEBHOOKS_PER_INSTANCE} por instância`,
          `Limite de ${WEBHOOKS_PER_INSTANCE} webhooks por instância.`,
        );
      }
      const now = Date.now();
      const secret = newWebhookSecret();
      const doc: WebhookDoc = {
        id: `wh_${randomBase32(24)}`,
        instanceId,
        url: input.url,
        events: input.events,
        active: true,
        secretSealed: this.sealer.seal(secret),
        deactivatedAt: null,
        deactivationReason: null,
        failingSince: null,
        createdAt: now,
        updatedAt: now,
      };
      await this.repo.save(doc.id, doc);
      await this.invalidate(instanceId);
      return { webhook: await this.toWebhook(doc), secret };
    });
  }

  async list(instanceId: string): Promise<Webhook[]> {
    return Promise.all((await this.docsOf(instanceId)).map((d) => this.toWebhook(d)));
  }

  async get(instanceId: string, id: string): Promise<Webhook> {
    return this.toWebhook(await this.doc(instanceId, id));
  }

  async update(
    instanceId: string,
    id: string,
    patch: { url?: string | undefined; events?: string[] | undefined; active?: boolean | undefined },
  ): Promise<Webhook> {
    const doc = await this.doc(instanceId, id);
    if (patch.url !== undefined) doc.url = patch.url;
    if (patch.events !== undefined) doc.events = patch.events;
    if (patch.active === true && !doc.active) {
      // Reactivation starts a fresh failure clock.
      Object.assign(doc, { active: true, deactivatedAt: null, deactivationReason: null, failingSince: null });
    } else if (patch.active === false && doc.active) {
      Object.assign(doc, { active: false, deactivatedAt: Date.now(), deactivationReason: "deactivated by the client" });
    }
    doc.updatedAt = Date.now();
    await this.repo.save(doc.id, doc);
    await this.invalidate(instanceId);
    return this.toWebhook(doc);
  }

  async delete(instanceId: string, id: string): Promise<void> {
    await this.doc(instanceId, id);
    await this.repo.remove(id);
    // The index and samples of deliveries (on the instance's shard) and their older ones (control).
    await this.redis.del(this.k.webhookDeliveries(instanceId, id), this.k.webhookResponseTimes(instanceId, id));
    await this.redis.del(this.k.legacyWebhookDeliveries(id), this.k.legacyWebhookResponseTimes(id));
    await this.invalidate(instanceId);
  }

  async rotateSecret(instanceId: string, id: string): Promise<{ webhook: Webhook; secret: string }> {
    const doc = await this.doc(instanceId, id);
    const secret = newWebhookSecret();
    doc.secretSealed = this.sealer.seal(secret);
    doc.updatedAt = Date.now();
    await this.repo.save(doc.id, doc);
    await this.invalidate(instanceId);
    return { webhook: await this.toWebhook(doc), secret };
  }

  /** Active webhooks of an instance, with secrets, for the dispatcher (it caches them). */
  async targets(instanceId: string): Promise<WebhookTarget[]> {
    return (await this.docsOf(instanceId))
      .filter((d) => d.active)
      .map((d) => ({
        id: d.id,
        instanceId,
        url: d.url,
        events: d.events,
        secret: this.sealer.open(d.secretSealed),
        failingSince: d.failingSince,
      }));
  }

  /** The `events` lists of the instance's active webhooks (what producers check before dispatching; no secrets opened). */
  async subscribedKinds(instanceId: string): Promise<string[][]> {
    return (await this.docsOf(instanceId)).filter((d) => d.active).map((d) => d.events);
  }

  /** One webhook with its secret, active or not (retries check `active` themselves). */
  async target(id: string): Promise<(WebhookTarget & { active: boolean }) | null> {
    const e: Entity = await this.repo.fetch(id);
    if (typeof e.id !== "string") return null;
    const d = e as unknown as WebhookDoc;
    return {
      id: d.id,
      instanceId: d.instanceId,
      url: d.url,
      events: d.events,
      secret: this.sealer.open(d.secretSealed),
      failingSince: d.failingSince,
      active: d.active,
    };
  }

  // --- failure clock and deactivation ----------------------------------------------------

  /**
   * A failed attempt. Answers whether the webhook must now be deactivated: it answered 410, or
   * it has been failing without a success for 24 h.
   */
  async markFailing(webhookId: string, gone: boolean): Promise<{ deactivate: boolean; reason: string | null }> {
    const e: Entity = await this.repo.fetch(webhookId);
    if (typeof e.id !== "string") return { deactivate: false, reason: null };
    const doc = e as unknown as WebhookDoc;
    if (!doc.active) return { deactivate: false, reason: null };
    if (gone) return { deactivate: true, reason: "the endpoint answered 410 Gone" };
    const now = Date.now();
    if (doc.failingSince === null) {
      await this.redis.call("JSON.SET", this.k.webhookDoc(webhookId), "$.failingSince", String(now), "XX");
      await this.invalidate(doc.instanceId);
      return { deactivate: false, reason: null };
    }
    return now - doc.failingSince >= WEBHOOK_FAILING_LIMIT_MS
      ? { deactivate: true, reason: "failing without a success for 24 h" }
      : { deactivate: false, reason: null };
  }

  /** Deactivates (spec 3.4) and keeps an operator-visible record. Answers the instance id, or null if it already was. */
  async deactivate(webhookId: string, reason: string): Promise<{ instanceId: string; url: string } | null> {
    const e: Entity = await this.repo.fetch(webhookId);
    if (typeof e.id !== "string") return null;
    const doc = e as unknown as WebhookDoc;
    if (!doc.active) return null;
    const now = Date.now();
    Object.assign(doc, { active: false, deactivatedAt: now, deactivationReason: reason, updatedAt: now });
    await this.repo.save(doc.id, doc);
    await this.redis.xadd(
      this.k.webhookDeactivations,
      "MAXLEN",
      "~",
      100_000,
      "*",
      "record",
      JSON.stringify({ webhookId, instanceId: doc.instanceId, url: doc.url, reason, at: new Date(now).toISOString() }),
    );
    await this.invalidate(doc.instanceId);
    return { instanceId: doc.instanceId, url: doc.url };
  }

  async deactivations(
    limit: number,
  ): Promise<{ webhookId: string; instanceId: string; url: string; reason: string; at: string }[]> {
    const rows = await this.redis.xrevrange(this.k.webhookDeactivations, "+", "-", "COUNT", limit);
    return rows.map(([, f]) => JSON.parse(f[1]!));
  }

  private async clearFailing(webhookId: string): Promise<void> {
    const r = await this.redis.call("JSON.GET", this.k.webhookDoc(webhookId), "$.failingSince");
    if (r && r !== "[null]") {
      await this.redis.call("JSON.SET", this.k.webhookDoc(webhookId), "$.failingSince", "null", "XX");
    }
  }

  // --- helpers ---------------------------------------------------------------------------

  private async docsOf(instanceId: string): Promise<WebhookDoc[]> {
    const docs = await this.repo
      .search()
      .where("instanceId")
      .equals(instanceId)
      .sortAscending("createdAt")
      .return.all();
    return docs as unknown as WebhookDoc[];
  }

  private async doc(instanceId: string, id: string): Promise<WebhookDoc> {
    const e: Entity = await this.repo.fetch(id);
    // Another instance's webhook is as absent as a missing one.
    if (typeof e.id !== "string" || e.instanceId !== instanceId)
      throw new ApiError("not_found", "Webhook não encontrado.");
    return e as unknown as WebhookDoc;
  }

  private async toWebhook(doc: WebhookDoc): Promise<Webhook> {
    return {
      id: doc.id,
      url: doc.url,
      events: doc.events,
      active: doc.active,
      deactivatedAt: iso(doc.deactivatedAt),
      deactivationReason: doc.deactivationReason,
      failingSince: iso(doc.failingSince),
      responseTime: await this.responseTime(doc.instanceId, doc.id),
      createdAt: new Date(doc.createdAt).toISOString(),
      updatedAt: new Date(doc.updatedAt).toISOString(),
    };
  }

  private async responseTime(
    instanceId: string,
    webhookId: string,
  ): Promise<{ medianMs: number | null; p95Ms: number | null }> {
    const since = Date.now() - DAY;
    // The samples of the last 24 h, and for a day after session 34 those kept without the instance.
    const members = (
      await Promise.all([
        this.redis.zrangebyscore(this.k.webhookResponseTimes(instanceId, webhookId), since, "+inf"),
        this.redis.zrangebyscore(this.k.legacyWebhookResponseTimes(webhookId), since, "+inf"),
      ])
    ).flat();
    const ms = members.map((m) => Number(m.slice(m.lastIndexOf(":") + 1))).sort((a, b) => a - b);
    if (ms.length === 0) return { medianMs: null, p95Ms: null };
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.ceil(q * ms.length) - 1)]!;
    return { medianMs: at(0.5), p95Ms: at(0.95) };
  }

  private invalidate(instanceId: string) {
    return this.invalidations.announce("webhooks", instanceId);
  }

  private async withInstanceLock<T>(instanceId: string, fn: () => Promise<T>): Promise<T> {
    const lock = `${this.k.prefix}lock:webhooks:${instanceId}`;
    const owner = randomBytes(8).toString("hex");
    const until = Date.now() + 5_000;
    while ((await this.redis.set(lock, owner, "PX", 5_000, "NX")) !== "OK") {
      if (Date.now() > until) throw new ApiError("network_unavailable", undefined, undefined, 1);
      await new Promise((r) => setTimeout(r, 20));
    }
    try {
      return await fn();
    } finally {
      await this.redis.eval(
        "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
        1,
        lock,
        owner,
      );
    }
  }
}
