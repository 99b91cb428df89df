/** What replicas cache per instance and drop when told (`instance` is the instance cache's own, `shard` the shard directory's). */
export type InvalidationKind = "instance" | "webhooks" | "queue" | "apps" | "shard";

/** The message on the invalidations channel that makes every replica forget `kind` of `instanceId`. */
export const invalidationMessage = (kind: InvalidationKind, instanceId: string) => `${kind}:${instanceId}`;

/** Every Redis key of the platform, under one prefix so that tests and tenants can share a server. */
export function keys(prefix: string) {
  return {
    prefix,
    /** redis-om schema names: documents live at `<schema>:<id>`. */
    instanceSchema: `${prefix}instance`,
    accountSchema: `${prefix}account`,
    instanceDoc: (id: string) => `${prefix}instance:${id}`,
    /**
     * Hash {tokenHash, accountId, tokens, ts, ctc, ct, ctr}: what the request path needs to
     * authenticate, the rate bucket, and a copy of the account's Client-Token state (auth/authorizer.ts).
     */
    instanceAuth: (id: string) => `${prefix}auth:i:${id}`,
    /**
     * Hash {clientTokenHash, requireOnAllCalls, instancesCreated}. Its Client-Token fields are
     * copied into the auth hashes listed in accountAuthCopies: write them only through
     * AccountStore (one script rewrites the account and every copy).
     */
    accountAuthPrefix: `${prefix}auth:a:`,
    accountAuth: (id: string) => `${prefix}auth:a:${id}`,
    /** SET of the instance auth keys holding a copy of the account's Client-Token state (auth/authorizer.ts). */
    accountAuthCopies: (id: string) => `${prefix}auth:a:${id}:copies`,
    /** The rate bucket of its own before session 11 (now in instanceAuth): deleted with the instance. */
    rateLimit: (id: string) => `${prefix}rl:${id}`,
    /** Pub/sub: `<kind>:<instanceId>` ({@link invalidationMessage}) when what replicas cache of it changed. */
    invalidations: `${prefix}invalidate`,
    /** Instances that should be connected (started and not stopped). */
    running: `${prefix}running`,
    /**
     * SET of instances to log out on the network that no pod held when asked (a stopped paired
     * instance): the pod that takes one logs it out instead of starting it (session ownership/).
     */
    logoutPending: `${prefix}logout-pending`,
    lease: (id: string) => `${prefix}lease:${id}`,
    leaseEpoch: (id: string) => `${prefix}epoch:${id}`,
    /** ZSET podId → heartbeat expiry (ms); HASH per pod {url, capacity}. */
    pods: `${prefix}pods`,
    pod: (podId: string) => `${prefix}pod:${podId}`,
    /** Pub/sub: "reconcile now" for session pods. */
    sessionKick: `${prefix}session:kick`,
    /** Auth state of an instance: creds (string) and one hash per key type. */
    authCreds: (id: string) => `${prefix}as:${id}:creds`,
    authKeys: (id: string, type: string) => `${prefix}as:${id}:k:${type}`,
    authKeyTypes: (id: string) => `${prefix}as:${id}:types`,
    /**
     * On a sharded deployment, the lease's owner and epoch (`<pod>|<epoch>`) beside the auth state
     * on the instance's shard: what fences its writes there, as the lease (control) fences the
     * instance record's (infra/leases.ts `fenceKey`).
     */
    authFence: (id: string) => `${prefix}as:${id}:fence`,
    /** Per instance, the last 7 days of events (spec 4.14). */
    recentEvents: (instanceId: string) => `${prefix}recent:${instanceId}`,
    webhookDoc: (id: string) => `${prefix}webhook:${id}`,
    /** A webhook delivery (HASH meta, body; 7 days), on its instance's shard. */
    delivery: (instanceId: string, id: string) => `${prefix}dlv:${instanceId}:${id}`,
    /** ZSET deliveryId → created ms, per webhook (7 days). */
    webhookDeliveries: (instanceId: string, webhookId: string) => `${prefix}whd:${instanceId}:${webhookId}`,
    /** ZSET `<deliveryId>:<ms>` → at ms, successful deliveries of the last 24 h. */
    webhookResponseTimes: (instanceId: string, webhookId: string) => `${prefix}whrt:${instanceId}:${webhookId}`,
    /**
     * The three above as they were written before session 34 (without the instance, so on the
     * control shard): read and trimmed until their 7 days are over (webhooks/deliveries.ts).
     */
    legacyDelivery: (id: string) => `${prefix}dlv:${id}`,
    legacyWebhookDeliveries: (webhookId: string) => `${prefix}wh:${webhookId}:dlv`,
    legacyWebhookResponseTimes: (webhookId: string) => `${prefix}wh:${webhookId}:rt`,
    /** Stream of deactivations, for operators. */
    webhookDeactivations: `${prefix}webhook-deactivations`,
    /** A message by network id (JSON, 7 days): forwards, reactions, quotes. */
    message: (instanceId: string, networkId: string) => `${prefix}msg:${instanceId}:${networkId}`,
    /** The provider's own form of a message (7 days). */
    rawMessage: (instanceId: string, networkId: string) => `${prefix}msgraw:${instanceId}:${networkId}`,
    /** Media downloaded on demand from the provider (1 h). */
    mediaCache: (instanceId: string, networkId: string) => `${prefix}media:${instanceId}:${networkId}`,
    /** A contact's or group's picture, cached 24 h (JSON {data, mimetype}, or "none"). */
    avatar: (instanceId: string, chatId: string) => `${prefix}avatar:${instanceId}:${chatId}`,
    /**
     * Read model (spec 4.5, docs/read-model.md). Before session 11 messages were RedisJSON documents
     * under this name (with an index until session 5, dropped at start); now only that drop uses it.
     */
    readMessageSchema: `${prefix}rmsg`,
    /** Chat records at `<this>:<instanceId>:<chatId>` (redis-om schema: JSON with a search index). */
    readChatSchema: `${prefix}rchat`,
    /** A stored message (STRING: its JSON, header fields first; read-model/doc.ts), retention TTL. */
    readDoc: (instanceId: string, networkId: string) => `${prefix}rmd:${instanceId}:${networkId}`,
    /** ZSET of the messages stored under a chat (score sortKey, member networkId): unfiltered pages. */
    readChatIndex: (instanceId: string, chatId: string) => `${prefix}rma:${instanceId}:${chatId}`,
    /** ZSET of the messages stored under a number chat that carry this privacy id (`chatLid`). */
    readLidIndex: (instanceId: string, lid: string) => `${prefix}rmal:${instanceId}:${lid}`,
    /**
     * The ack sets: per chat (and per lid, like the two above) and per fromMe, one ZSET of its
     * messages scored `rank(ack) × 2^42 + sortKey`, `<this><chatId>:<1|0>` — where a message's ack
     * lives (filter.fromMe / filter.ack pages, the unread list; read-model/acks.ts).
     */
    readAckPrefix: (instanceId: string) => `${prefix}rmk:${instanceId}:`,
    readLidAckPrefix: (instanceId: string) => `${prefix}rmkl:${instanceId}:`,
    /**
     * HASH of a chat's fast-changing state, outside the indexed chat record (every message changes
     * it): at (sortKey of the last message), ts, id (its network id), last (summary JSON), unread,
     * marked (1|0), merged (1|0), and name/lid as last written to the record.
     */
    readChatState: (instanceId: string, chatId: string) => `${prefix}rchs:${instanceId}:${chatId}`,
    /** ZSET of an instance's chats not folded into another, by the sortKey of their last message. */
    readChatOrderVisible: (instanceId: string) => `${prefix}rchv:${instanceId}`,
    /** The same for the chats folded into another (merged): the two together are every chat record. */
    readChatOrderMerged: (instanceId: string) => `${prefix}rchm:${instanceId}`,
    /** An ack (its rank) that came before its message was stored (a short while). */
    readPendingAck: (instanceId: string, networkId: string) => `${prefix}rmp:${instanceId}:${networkId}`,
    /** HASH lid → phone digits: what the instance learnt about privacy ids. */
    lidMap: (instanceId: string) => `${prefix}lid:${instanceId}`,
    /** HASH phone digits → lid (the reverse of lidMap). */
    phoneLidMap: (instanceId: string) => `${prefix}lidrev:${instanceId}`,
    /** HASH chatId → name as the network showed it (contact name, group subject). */
    chatNames: (instanceId: string) => `${prefix}chatnames:${instanceId}`,
    /** Idempotency-Key records of send routes (24 h). */
    idempotency: (instanceId: string, keyHash: string) => `${prefix}idem:${instanceId}:${keyHash}`,
    /** Free-trial message counter of one UTC day. */
    trialCount: (instanceId: string, day: string) => `${prefix}trial:${instanceId}:${day}`,
    /** The unit one accepted request took (a queue item by its queue id, an immediate send by its Idempotency-Key run): its count's key. */
    trialCharge: (instanceId: string, charge: string) => `${prefix}trial-charge:${instanceId}:${charge}`,
    /** The send queue: settings HASH, pending ZSET (seq → FIFO), history ZSET (finished ms), items HASH each. */
    queueSettings: (instanceId: string) => `${prefix}q:${instanceId}:settings`,
    queuePending: (instanceId: string) => `${prefix}q:${instanceId}:pending`,
    queueHistory: (instanceId: string) => `${prefix}q:${instanceId}:history`,
    queueItem: (instanceId: string, queueId: string) => `${prefix}q:${instanceId}:item:${queueId}`,
    /** "running" while the instance's queue workflow runs (absent: the next enqueue starts it). */
    queueRunning: (instanceId: string) => `${prefix}q:${instanceId}:running`,
    /** SET of instances with pending items: the worker's reconciler looks here. */
    queueActive: `${prefix}q:active`,
    /** Official gateway (docs/official.md): sealed operator credentials, HASH per instance. */
    cloudCredentials: (instanceId: string) => `${prefix}cloud:cred:${instanceId}`,
    /** The operator's ids → the instance: phone-number id (STRING), WABA id (SET), display number (STRING). */
    cloudByPhoneNumberId: (phoneNumberId: string) => `${prefix}cloud:pn:${phoneNumberId}`,
    cloudByWaba: (wabaId: string) => `${prefix}cloud:waba:${wabaId}`,
    cloudByDisplayPhone: (digits: string) => `${prefix}cloud:dn:${digits}`,
    /** The customer's last message in a chat (unix s), 24 h: the conversation window. */
    cloudWindow: (instanceId: string, chatId: string) => `${prefix}cloud:win:${instanceId}:${chatId}`,
    /** An uploaded file's media id by the bytes' hash (the operator keeps uploads 30 days). */
    cloudMedia: (instanceId: string, sha256: string) => `${prefix}cloud:media:${instanceId}:${sha256}`,
    /** The operator's webhooks as received and verified, per shard: processed by the worker role. */
    cloudInbound: (shard: number) => `${prefix}cloud:in:${shard}`,
    /** An item of those webhooks already processed (its stream entry id), 7 days: duplicates dropped. */
    cloudSeen: (instanceId: string, itemKey: string) => `${prefix}cloud:seen:${instanceId}:${itemKey}`,
    /** Group metadata per instance (HASH groupId → JSON) and the mark of a complete recent list. */
    groups: (instanceId: string) => `${prefix}grp:${instanceId}`,
    groupsListed: (instanceId: string) => `${prefix}grp:${instanceId}:listed`,
    /** Who got a status post (STRING JSON, 7 days: its deletion goes to the same people). */
    statusAudience: (instanceId: string, networkId: string) => `${prefix}status:aud:${instanceId}:${networkId}`,
    /** The instance's status posts of the last 24 h (ZSET network id → posted at ms): deletion without `id`. */
    statusPosts: (instanceId: string) => `${prefix}status:posts:${instanceId}`,
    /** The caller of an incoming call (STRING, 10 minutes): `POST /calls/{callId}/reject` without `from`. */
    call: (instanceId: string, callId: string) => `${prefix}call:${instanceId}:${callId}`,
    /** A converted file kept for its signed link (HASH data/mimetype/filename, an hour; docs/media.md). */
    converted: (instanceId: string, id: string) => `${prefix}cv:${instanceId}:${id}`,
    /** The instance's apps (HASH appId → JSON, spec 2.10). */
    apps: (instanceId: string) => `${prefix}apps:${instanceId}`,
    /** A `helpdesk` app's webhook secret (STRING `<instanceId> <appId>`, by the secret's sha256): the help desk's hook finds its app. */
    helpdeskHook: (secretHash: string) => `${prefix}hd:hook:${secretHash}`,
    /** A chat's place in the help desk (HASH contactId, sourceId, conversationId; docs/helpdesk.md). */
    helpdeskChat: (appId: string, chatId: string) => `${prefix}hd:${appId}:chat:${chatId}`,
    /** Our message (network id) → its help-desk message (STRING `<conversationId> <messageId>`, 7 days). */
    helpdeskMessage: (appId: string, networkId: string) => `${prefix}hd:${appId}:msg:${networkId}`,
    /** A help desk conversation's chat (STRING chat id): agents' replies find where to go. */
    helpdeskConversation: (appId: string, conversationId: number) => `${prefix}hd:${appId}:conv:${conversationId}`,
    /** A provider's own records of an instance (providers/contract.ts `records`): one HASH per name. */
    providerRecords: (instanceId: string, name: string) => `${prefix}prec:${instanceId}:${name}`,
    /** Presence heard in a chat (HASH participant → JSON), and the instance's chats by last heard (ZSET, ms). */
    presence: (instanceId: string, chatId: string) => `${prefix}pres:${instanceId}:${chatId}`,
    presenceIndex: (instanceId: string) => `${prefix}presi:${instanceId}`,
    /** Redis Streams of events, one per shard. */
    events: (shard: number) => `${prefix}events:${shard}`,
  };
}
export type Keys = ReturnType<typeof keys>;
