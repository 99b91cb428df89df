import { z } from "zod";

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");
const port = z.coerce.number().int().min(0).max(65535);

/** The roles a process can run (ARCHITECTURE.md "Roles"); more arrive with their issues. */
export const ROLE_NAMES = ["gateway", "session", "worker", "simnet", "cloudmock", "chatwootmock"] as const;
export type Role = (typeof ROLE_NAMES)[number];

/** A comma-separated setting's items, trimmed, empty ones dropped. */
const commaList = (s: string): string[] =>
  s
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/** Every setting the services read, validated once at start. Documented in .env.example. */
export const configSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  ROLES: z
    .string()
    .default("gateway")
    .transform(commaList)
    .pipe(z.array(z.enum(ROLE_NAMES)).min(1)),
  HOST: z.string().default("127.0.0.1"),
  PORT: port.default(8080),
  INTERNAL_HOST: z.string().default("127.0.0.1"),
  INTERNAL_PORT: port.default(8081),
  INTERNAL_SECRET: z.string().min(16, "INTERNAL_SECRET must have at least 16 characters"),
  ADMIN_TOKEN: z.string().min(8, "ADMIN_TOKEN must have at least 8 characters"),
  PUBLIC_BASE_URL: z.url().default("http://127.0.0.1:8080"),
  REDIS_URL: z.string().default("redis://127.0.0.1:6390"),
  /**
   * More Redis deployments for instances' data, comma-separated (docs/architecture.md "Sharding
   * the keyspace"): shard 0 is REDIS_URL (the control shard, holding instances too), these are
   * shards 1, 2, … in order — append only: a shard's number is where its instances are found.
   */
  REDIS_SHARDS: z.string().default("").transform(commaList),
  KEY_PREFIX: z
    .string()
    .regex(/^[a-z0-9_:-]*$/i)
    .default("gw:"),
  TEMPORAL_ADDRESS: z.string().default("127.0.0.1:7233"),
  TEMPORAL_NAMESPACE: z.string().default("default"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(20),
  RATE_LIMIT_BURST: z.coerce.number().int().positive().default(40),
  /** 1 MB is taken as 1 MiB (1,048,576 bytes). */
  JSON_BODY_LIMIT: z.coerce.number().int().positive().default(1_048_576),
  /** Send routes that carry `file.data`: 70 MiB. */
  FILE_BODY_LIMIT: z.coerce
    .number()
    .int()
    .positive()
    .default(70 * 1_048_576),
  TRIAL_DAYS: z.coerce.number().int().min(0).default(7),
  /** Messages per UTC day of an instance on its free trial (spec 8). */
  TRIAL_DAILY_MESSAGES: z.coerce.number().int().positive().default(300),
  /** `file.url` downloads: size cap and whole-download timeout. */
  MEDIA_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(100 * 1_048_576),
  MEDIA_FETCH_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /**
   * ffmpeg's time limit for one conversion (sends with `convert: true` and `/media/convert/*`);
   * unset: 60 s for voice, 180 s for video.
   */
  MEDIA_CONVERT_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  /** Signs media and avatar links (spec 5.7); default derived from INTERNAL_SECRET. Same on every role. */
  MEDIA_LINK_SECRET: z.string().min(16).optional(),
  // Media store (docs/media.md "Where media bytes live"): every media byte, Redis keeps references.
  /** `dir`: files under MEDIA_DIR (single machine, or a volume every role mounts); `s3`: a bucket. */
  MEDIA_STORE: z.enum(["dir", "s3"]).default("dir"),
  /** The directory store's root (relative to the working directory). */
  MEDIA_DIR: z.string().min(1).default(".local/media"),
  /** Days media are kept after the last message that carries them; gone a day later at most. */
  MEDIA_RETENTION_DAYS: z.coerce.number().int().min(1).default(7),
  /** `GET /v1/files/…` answers 302 to a presigned URL of the store (s3) instead of streaming the bytes. */
  MEDIA_REDIRECT: bool.default(false),
  /** S3 API endpoint (MinIO, R2, GCS interoperability); unset: AWS S3 of S3_REGION. */
  S3_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  /** Required with MEDIA_STORE=s3. */
  S3_BUCKET: z.string().min(3).optional(),
  /** `bucket` in the path, not the host name (MinIO and most self-hosted servers). */
  S3_FORCE_PATH_STYLE: bool.default(false),
  /** Static credentials; unset: the AWS SDK's default chain (env AWS_*, web identity, instance role). */
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Accept `provider: "sim"` for new instances (development, tests, demos). */
  ENABLE_SIM_PROVIDER: bool.default(false),
  /** How long an instance record may be served from a replica's memory (pub/sub also invalidates it). */
  INSTANCE_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),

  // Session pods (role `session`)
  /** Identity of this session pod; unique per process. */
  POD_ID: z
    .string()
    .regex(/^[\w.-]{1,64}$/)
    .optional(),
  SESSION_HOST: z.string().default("127.0.0.1"),
  /** Internal tRPC port of the session role; 0 picks a free one. */
  SESSION_PORT: port.default(8082),
  /** URL other processes use to reach this pod; default http://SESSION_HOST:port. */
  SESSION_ADVERTISE_URL: z.url().optional(),
  /** Connections one pod holds at most. */
  SESSION_CAPACITY: z.coerce.number().int().positive().default(5_000),
  /** Lease TTL: a dead pod's instances move after at most this long. Renewed every TTL/3. */
  LEASE_TTL_MS: z.coerce.number().int().min(500).default(3_000),
  /** 32 random bytes, base64: seals auth state at rest. Required where sessions run. */
  AUTH_STATE_KEY: z.string().optional(),
  /** How long the gateway waits for an instance's owner to appear before answering 503. */
  OWNER_WAIT_MS: z.coerce.number().int().min(0).default(2_000),
  /**
   * Graceful handover (docs/lifecycle.md): how long an instance taken over WORKING stays WORKING
   * while its new owner reconnects, sends meanwhile waiting for the connection; also how long a
   * pod letting go of an instance lets the sends under way on it finish.
   */
  HANDOVER_SEND_WAIT_MS: z.coerce.number().int().min(0).default(5_000),
  /** The simulated network, for instances with provider `sim`. */
  SIMNET_URL: z.string().default("ws://127.0.0.1:8090"),
  /** Baileys: the protocol version to claim ("2,3000,1023223821"); default the bundled one. */
  BAILEYS_VERSION: z
    .string()
    .regex(/^\d+,\d+,\d+$/)
    .optional(),

  // Webhooks
  /** 32 random bytes, base64: seals webhook secrets at rest (they must sign, so they are not hashed). */
  WEBHOOK_SECRET_KEY: z.string().min(1, "WEBHOOK_SECRET_KEY is required (32 random bytes, base64)"),
  /** Allow webhook (and media) URLs on private addresses and any port: local receivers in development and tests. */
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  /** SMTP server for deactivation notices to account owners (smtp://user:pass@host:port); unset: no e-mail. */
  SMTP_URL: z.string().optional(),
  SMTP_FROM: z.string().default("Messaging Gateway <no-reply@localhost>"),
  /** How often the worker sweeps the send queues: TTL expiry anywhere in line, missing workflows. */
  QUEUE_RECONCILE_MS: z.coerce.number().int().min(100).default(30_000),
  /** Temporal task queue of the worker role. */
  TEMPORAL_TASK_QUEUE: z.string().default("gateway"),
  /** Tests only (NODE_ENV=test): a shortened retry schedule, comma-separated ms. Ignored elsewhere. */
  WEBHOOK_RETRY_SCHEDULE_OVERRIDE_MS: z
    .string()
    .regex(/^\d+(,\d+)*$/)
    .transform((s) => s.split(",").map(Number))
    .optional(),
  /** A stream entry left unacknowledged this long by a dispatcher (a crashed one) is taken over. */
  DISPATCH_CLAIM_IDLE_MS: z.coerce.number().int().min(100).default(15_000),
  /** The worker role's health and metrics server (/healthz, /readyz, /metrics); 0 picks a free port. */
  WORKER_HOST: z.string().default("127.0.0.1"),
  WORKER_PORT: port.default(8083),
  /** Deliveries in flight per dispatcher process. */
  DISPATCH_CONCURRENCY: z.coerce.number().int().positive().default(256),

  // Official gateway (docs/official.md)
  /** 32 random bytes, base64: seals operator credentials at rest; default derived from WEBHOOK_SECRET_KEY. */
  CLOUD_CREDENTIALS_KEY: z.string().optional(),
  /** `hub.verify_token` of the operator's webhook handshake (GET /v1/official/webhook); unset: refused. */
  CLOUD_WEBHOOK_VERIFY_TOKEN: z.string().min(8).optional(),
  /** Deadline of one call to the operator's API. */
  CLOUD_API_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),

  // Read model (spec 4.5)
  /** How long stored messages and chats are kept (docs/read-model.md). */
  MESSAGE_RETENTION_DAYS: z.coerce.number().positive().default(90),

  // Events
  EVENT_SHARDS: z.coerce.number().int().min(1).max(256).default(4),
  EVENT_STREAM_MAXLEN: z.coerce.number().int().positive().default(1_000_000),
  /**
   * How the 7-day history keeps an event (docs/webhooks.md "How the history keeps an event"):
   * `compact` (default, ~45 % of the JSON) or `json` (the envelope whole, as before session 34).
   * Every version reads both; `json` is for a rolling upgrade from a version that reads only it:
   * deploy with `json`, then switch to `compact` once no older process runs.
   */
  EVENT_HISTORY_FORMAT: z.enum(["compact", "json"]).default("compact"),
});

export type Config = z.infer<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(env)"}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}
