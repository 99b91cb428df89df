import { z } from "zod";

const ms = (def: number) => z.coerce.number().int().min(0).default(def);
const positiveInt = (def: number) => z.coerce.number().int().positive().default(def);

/** The simnet role's settings (docs/simnet.md). `ADMIN_TOKEN` and `LOG_LEVEL` come from the main config. */
export const simnetConfigSchema = z.object({
  SIMNET_PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  SIMNET_HOST: z.string().default("127.0.0.1"),
  /** A new QR value about this often while a connection waits to be paired. */
  SIMNET_QR_INTERVAL_MS: positiveInt(20_000),
  /** QR values shown before the connection is closed with `qr_timeout`. */
  SIMNET_QR_LIMIT: positiveInt(6),
  SIMNET_PAIRING_CODE_TTL_MS: positiveInt(180_000),
  /** Pairing codes per number per 10 minutes. */
  SIMNET_PAIRING_CODE_LIMIT: positiveInt(5),
  /** One step of the ack clock (sent → delivered → read → played). */
  SIMNET_ACK_DELAY_MS: ms(1_000),
  /** Messages kept per phone (sent, inbox) and queued per offline device. */
  SIMNET_MESSAGE_LIMIT: positiveInt(10_000),
});
export type SimnetConfig = z.infer<typeof simnetConfigSchema>;

export function loadSimnetConfig(env: Record<string, string | undefined> = process.env): SimnetConfig {
  const parsed = simnetConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(env)"}: ${i.message}`);
    throw new Error(`invalid simnet configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

export interface SimnetOptions {
  port?: number;
  host?: string;
  /** Bearer token of the control API. */
  adminToken: string;
  qrIntervalMs?: number;
  qrLimit?: number;
  pairingCodeTtlMs?: number;
  pairingCodeLimit?: number;
  ackDelayMs?: number;
  messageLimit?: number;
  /** A connection that sends no `hello` within this time is closed (`protocol_error`). */
  helloTimeoutMs?: number;
  logLevel?: string;
}

export type ResolvedOptions = Required<SimnetOptions>;

export function resolveOptions(opts: SimnetOptions): ResolvedOptions {
  const d = simnetConfigSchema.parse({});
  return {
    port: opts.port ?? d.SIMNET_PORT,
    host: opts.host ?? d.SIMNET_HOST,
    adminToken: opts.adminToken,
    qrIntervalMs: opts.qrIntervalMs ?? d.SIMNET_QR_INTERVAL_MS,
    qrLimit: opts.qrLimit ?? d.SIMNET_QR_LIMIT,
    pairingCodeTtlMs: opts.pairingCodeTtlMs ?? d.SIMNET_PAIRING_CODE_TTL_MS,
    pairingCodeLimit: opts.pairingCodeLimit ?? d.SIMNET_PAIRING_CODE_LIMIT,
    ackDelayMs: opts.ackDelayMs ?? d.SIMNET_ACK_DELAY_MS,
    messageLimit: opts.messageLimit ?? d.SIMNET_MESSAGE_LIMIT,
    helloTimeoutMs: opts.helloTimeoutMs ?? 10_000,
    logLevel: opts.logLevel ?? "info",
  };
}

/** Options for `createSimnet` from the env settings plus the main config's token and log level. */
export function simnetOptionsFromConfig(config: SimnetConfig, adminToken: string, logLevel?: string): SimnetOptions {
  return {
    port: config.SIMNET_PORT,
    host: config.SIMNET_HOST,
    adminToken,
    qrIntervalMs: config.SIMNET_QR_INTERVAL_MS,
    qrLimit: config.SIMNET_QR_LIMIT,
    pairingCodeTtlMs: config.SIMNET_PAIRING_CODE_TTL_MS,
    pairingCodeLimit: config.SIMNET_PAIRING_CODE_LIMIT,
    ackDelayMs: config.SIMNET_ACK_DELAY_MS,
    messageLimit: config.SIMNET_MESSAGE_LIMIT,
    ...(logLevel ? { logLevel } : {}),
  };
}
