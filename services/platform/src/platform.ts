import { createHmac } from "node:crypto";
import { HELPDESK_EVENT_KINDS, type MoveShardResult } from "@gw/contracts";
import { RequestAuthorizer } from "./auth/authorizer.ts";
import { MediaLinks } from "./auth/media-links.ts";
import { Sealer } from "./auth/sealed.ts";
import { CloudCredentialStore, cloudCredentialsKey } from "./cloud/credentials.ts";
import { CloudInbox } from "./cloud/inbox.ts";
import { ConversationWindows } from "./cloud/windows.ts";
import { EventBus } from "./events/bus.ts";
import type { Config } from "./infra/config.ts";
import { newInstanceId } from "./infra/ids.ts";
import { dropIndexIfAny, ensureIndexes } from "./infra/indexes.ts";
import { Invalidations } from "./infra/invalidations.ts";
import { keys } from "./infra/keys.ts";
import { Leases } from "./infra/leases.ts";
import { createLogger } from "./infra/logger.ts";
import { createIoRedis, createOmClient } from "./infra/redis.ts";
import { ScriptBatch } from "./infra/script-batch.ts";
import { byInstance } from "./infra/shards/by-instance.ts";
import { RedisShards } from "./infra/shards/index.ts";
import { type MoveOptions, moveInstance } from "./infra/shards/move.ts";
import { createMediaStore } from "./media/index.ts";
import { ReadModel } from "./read-model/index.ts";
import { AccountStore } from "./store/accounts.ts";
import { AppStore } from "./store/apps.ts";
import { ConvertedMediaStore } from "./store/converted-media.ts";
import { GroupStore } from "./store/group-store.ts";
import { IdentityMap } from "./store/identity.ts";
import { InstanceCache } from "./store/instance-cache.ts";
import { InstanceStore } from "./store/instances.ts";
import { MessageStore } from "./store/messages.ts";
import { PresenceStore } from "./store/presence.ts";
import { createRepositories } from "./store/repositories.ts";
import { WebhookStore } from "./webhooks/store.ts";
import { WebhookSubscriptions } from "./webhooks/subscriptions.ts";

/** The shared state layer every role stands on: Redis clients, repositories and stores. */
export async function createPlatform(config: Config) {
  const k = keys(config.KEY_PREFIX);
  // Shard 0 is the control shard (REDIS_URL); REDIS_SHARDS adds shards for instances' data, and
  // `redis` then sends each command to the shard of its keys (infra/shards/).
  const shardUrls = [config.REDIS_URL, ...config.REDIS_SHARDS];
  const shards = new RedisShards(
    k.prefix,
    shardUrls.map((url, i) => createIoRedis(url, i === 0 ? "gw-main" : `gw-main-${i}`)),
  );
  const redis = shards.redis;
  const subscriber = createIoRedis(config.REDIS_URL, "gw-sub");
  // What replicas cache of an instance and how they hear it changed (their own changes at once).
  const invalidations = new Invalidations(redis, subscriber, k.invalidations);
  await subscriber.subscribe(k.invalidations);
  await shards.start(invalidations);
  const om = await createOmClient(config.REDIS_URL);
  // The read model's chat records are searched through an index per shard: a redis-om client each.
  const shardOms = [om, ...(await Promise.all(config.REDIS_SHARDS.map((url) => createOmClient(url))))];
  const repos = createRepositories(om, k);
  // Webhook secrets and a help desk's token and hook secret: sealed with the same key.
  const secrets = new Sealer(config.WEBHOOK_SECRET_KEY);
  const webhooks = new WebhookStore(
    redis,
    om,
    k,
    secrets,
    invalidations,
    shards.count > 1 ? (keys) => shards.shardOfKeys(keys) : undefined,
  );
  const apps = new AppStore(
    redis,
    k,
    invalidations,
    config.INSTANCE_CACHE_MS,
    secrets,
    config.PUBLIC_BASE_URL,
    config.WEBHOOK_ALLOW_PRIVATE,
  );
  await ensureIndexes(redis, [...Object.values(repos), webhooks.repo], k);

  // Every media byte lives here; Redis keeps references (docs/media.md "Where media bytes live").
  const mediaLog = createLogger(config.LOG_LEVEL, { component: "media-store" });
  const media = createMediaStore(config, (err) => mediaLog.error({ err }, "media store sweep failed"));
  const accounts = new AccountStore(redis, repos, k);
  const cloud = new CloudCredentialStore(
    redis,
    k,
    cloudCredentialsKey(config.CLOUD_CREDENTIALS_KEY, config.WEBHOOK_SECRET_KEY),
  );
  const instances = new InstanceStore(
    redis,
    repos,
    accounts,
    k,
    invalidations,
    {
      trialDays: config.TRIAL_DAYS,
      simProviderEnabled: config.ENABLE_SIM_PROVIDER,
      newId: () => shards.newInstanceId(newInstanceId),
    },
    cloud,
    // A deleted instance's media go with it (one prefix: the store's addresses are per instance).
    // A failure (the bucket unreachable) is logged and left to the retention, which removes them too.
    (id) => media.removeInstance(id).catch((err) => mediaLog.error({ err, instanceId: id }, "deleting media failed")),
  );
  const instanceCache = new InstanceCache(instances, config.INSTANCE_CACHE_MS);
  // The request path's own connection: one script call per event-loop turn (auth/authorizer.ts
  // batches), no auto-pipelining.
  const authRedis = createIoRedis(config.REDIS_URL, "gw-auth", { autoPipelining: false });
  const authorizer = new RequestAuthorizer(authRedis, k, {
    perSecond: config.RATE_LIMIT_PER_SECOND,
    burst: config.RATE_LIMIT_BURST,
  });

  const leases = new Leases(redis, k, config.LEASE_TTL_MS, shards.count > 1);
  // The dispatcher's input carries what webhooks subscribe to, and what a help desk relays.
  const subscriptions = new WebhookSubscriptions(async (instanceId) => {
    const [lists, helpdesk] = await Promise.all([
      webhooks.subscribedKinds(instanceId),
      apps.enabled(instanceId, "helpdesk"),
    ]);
    return helpdesk ? [...lists, [...HELPDESK_EVENT_KINDS]] : lists;
  }, config.INSTANCE_CACHE_MS);
  invalidations.on("webhooks", (instanceId) => subscriptions.forget(instanceId));
  invalidations.on("apps", (instanceId) => subscriptions.forget(instanceId));
  // The small writes of a turn (events, kept messages, the read model) leave in one script call.
  const batch = new ScriptBatch(redis, shards.count > 1 ? (keys) => shards.shardOfKeys(keys) : undefined);
  const events = new EventBus(
    redis,
    k,
    batch,
    config.EVENT_SHARDS,
    config.EVENT_STREAM_MAXLEN,
    (id, kind) => subscriptions.wants(id, kind),
    config.EVENT_HISTORY_FORMAT,
  );
  invalidations.on("instance", (id) => {
    instanceCache.forget(id);
    events.forget(id);
  });

  const messages = new MessageStore(redis, k, batch, media);
  const identity = new IdentityMap(redis, k);
  // Link signatures: a key of their own, derived from the internal secret unless given.
  const linkSecret =
    config.MEDIA_LINK_SECRET ?? createHmac("sha256", config.INTERNAL_SECRET).update("media-links").digest("hex");
  const mediaLinks = new MediaLinks(linkSecret, config.PUBLIC_BASE_URL);
  const readModels = shardOms.map(
    (shardOm) =>
      new ReadModel(redis, shardOm, k, batch, identity, mediaLinks, {
        retentionMs: Math.round(config.MESSAGE_RETENTION_DAYS * 86_400_000),
      }),
  );
  const readModel = byInstance(readModels, (id) => shards.of(id), ["forget"]);
  // What the read model remembers to spare reads (read-model/memo.ts) goes with the instance.
  invalidations.on("instance", (id) => readModel.forget(id));
  batch.seal(); // every store above registered its scripts
  for (const [s, shardModel] of readModels.entries()) {
    await ensureIndexes(shards.clients[s]!, [shardModel.chatsRepo], k);
    // Messages had a search index before their filter sets; it would re-index every message at every ack.
    await dropIndexIfAny(shards.clients[s]!, `${k.readMessageSchema}:index`);
  }

  return {
    config,
    leases,
    messages,
    readModel,
    identity,
    mediaLinks,
    events,
    webhooks,
    keys: k,
    redis,
    shards,
    accounts,
    instances,
    instanceCache,
    authorizer,
    cloud,
    windows: new ConversationWindows(redis, k),
    cloudInbox: new CloudInbox(redis, k, config.EVENT_SHARDS),
    groups: new GroupStore(redis, k),
    presence: new PresenceStore(redis, k),
    apps,
    media,
    converted: new ConvertedMediaStore(redis, k, media),
    /** Rebalancing (`POST /admin/instances/{id}/shard`): the instance's data to another shard. */
    async moveInstance(instanceId: string, to: number, opts?: MoveOptions): Promise<MoveShardResult> {
      await instances.require(instanceId);
      return moveInstance({ shards, invalidations, keys: k }, instanceId, to, opts);
    },
    async ping(): Promise<boolean> {
      return (await redis.ping()) === "PONG";
    },
    invalidations,
    /** A new connection for a role that needs its own (blocking reads, subscriptions): to `shard` (control). */
    duplicate(name: string, shard = 0) {
      return createIoRedis(shardUrls[shard]!, shard === 0 ? name : `${name}-${shard}`);
    },
    async close(): Promise<void> {
      await Promise.allSettled([
        ...shards.clients.map((c) => c.quit()),
        authRedis.quit(),
        subscriber.quit(),
        ...shardOms.map((o) => o.quit()),
        media.close(),
      ]);
    },
  };
}
export type Platform = Awaited<ReturnType<typeof createPlatform>>;
