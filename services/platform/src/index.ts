// @gw/platform: the shared state layer every role stands on (contracts ← platform ← session …).
// This file is the package's public list; `@gw/platform/url-guard` is the guard alone. Folders:
//   infra/      Redis clients, key names, config, logger, ids, script and turn batching, replica
//               caches and their invalidations, leases, search indexes, "dependency unavailable"
//   store/      records in Redis: accounts, instances (+ their replica cache), apps, kept messages,
//               presence, groups, the identity map, the address book, converted media, redis-om repos
//   auth/       request authorization and rate limit, token secrets, sealing, the session's auth
//               state, signed media links
//   events/     the event stream: ids, envelopes, per-shard publishing and the 7-day history
//   webhooks/   webhooks, their deliveries and attempts, which kinds their instances subscribe to
//   cloud/      the official gateway: sealed credentials, inbound webhook inbox, conversation windows
//   read-model/ messages and chats as the read routes answer them
//   media/      the media store: every media byte (a directory or an S3 bucket), Redis keeps references
//   url-guard/  the outbound URL guard (addresses, URLs, guarded connections)
//   trpc/       compiled procedures and tRPC error mapping (here, not in the gateway: session uses them)
//   testing/    helpers shared by the tests (never imported by production code)
// platform.ts wires them into one `Platform`.
export * from "./auth/auth-state.ts";
export * from "./auth/authorizer.ts";
export * from "./auth/media-links.ts";
export * from "./auth/sealed.ts";
export * from "./auth/secrets.ts";
export * from "./cloud/credentials.ts";
export * from "./cloud/inbox.ts";
export * from "./cloud/windows.ts";
export * from "./events/bus.ts";
export * from "./events/stream-reads.ts";
export * from "./infra/config.ts";
export * from "./infra/ids.ts";
export * from "./infra/invalidations.ts";
export * from "./infra/keys.ts";
export * from "./infra/leases.ts";
export * from "./infra/logger.ts";
export * from "./infra/redis.ts";
export * from "./infra/replica-cache.ts";
export * from "./infra/script-batch.ts";
export * from "./infra/shards/index.ts";
export * from "./infra/turn-batch.ts";
export * from "./infra/unavailable.ts";
export * from "./media/index.ts";
export * from "./platform.ts";
export * from "./read-model/index.ts";
export * from "./store/accounts.ts";
export * from "./store/address-book.ts";
export * from "./store/apps.ts";
export * from "./store/converted-media.ts";
export * from "./store/group-store.ts";
export * from "./store/identity.ts";
export * from "./store/instance-cache.ts";
export * from "./store/instances.ts";
export * from "./store/messages.ts";
export * from "./store/presence.ts";
export * from "./trpc/errors.ts";
export * from "./trpc/invoke.ts";
export * from "./url-guard/index.ts";
export * from "./webhooks/attempt.ts";
export * from "./webhooks/deliveries.ts";
export * from "./webhooks/store.ts";
export * from "./webhooks/target.ts";
