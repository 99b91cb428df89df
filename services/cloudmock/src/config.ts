import { z } from "zod";

/** The cloudmock role's settings (docs/cloudmock.md). `ADMIN_TOKEN` and `LOG_LEVEL` come from the main config. */
export const cloudMockConfigSchema = z.object({
  CLOUDMOCK_PORT: z.coerce.number().int().min(0).max(65535).default(8091),
  CLOUDMOCK_HOST: z.string().default("127.0.0.1"),
  /** One step of the status clock (sent → delivered → read). */
  CLOUDMOCK_ACK_DELAY_MS: z.coerce.number().int().min(0).default(1_000),
  /** A created template is approved after this long (0: only through the control API). */
  CLOUDMOCK_TEMPLATE_APPROVAL_MS: z.coerce.number().int().min(0).default(3_000),
  /** Where numbers without their own callback URL deliver their webhooks. */
  CLOUDMOCK_WEBHOOK_URL: z.string().optional(),
});
export type CloudMockConfig = z.infer<typeof cloudMockConfigSchema>;

export function loadCloudMockConfig(env: Record<string, string | undefined> = process.env): CloudMockConfig {
  const parsed = cloudMockConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(env)"}: ${i.message}`);
    throw new Error(`invalid cloudmock configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

export interface CloudMockOptions {
  port?: number;
  host?: string;
  /** Bearer token of the control API. */
  adminToken: string;
  logLevel?: string;
  /** Default callback of the numbers' webhooks. */
  webhookUrl?: string;
  ackDelayMs?: number;
  templateApprovalMs?: number;
  /** Waits before each retry of a webhook that was not answered 2xx. */
  webhookRetryMs?: number[];
  /** Base of the URLs the mock gives out (media, profile pictures); default the listening address. */
  publicUrl?: string;
}

export type ResolvedOptions = Required<Omit<CloudMockOptions, "webhookUrl" | "publicUrl">> & {
  webhookUrl: string | null;
  publicUrl: string | null;
};

export function resolveOptions(o: CloudMockOptions): ResolvedOptions {
  return {
    port: o.port ?? 8091,
    host: o.host ?? "127.0.0.1",
    adminToken: o.adminToken,
    logLevel: o.logLevel ?? "silent",
    webhookUrl: o.webhookUrl ?? null,
    ackDelayMs: o.ackDelayMs ?? 1_000,
    templateApprovalMs: o.templateApprovalMs ?? 3_000,
    webhookRetryMs: o.webhookRetryMs ?? [1_000, 5_000, 30_000],
    publicUrl: o.publicUrl ?? null,
  };
}

export function cloudMockOptionsFromConfig(c: CloudMockConfig, adminToken: string, logLevel: string): CloudMockOptions {
  return {
    port: c.CLOUDMOCK_PORT,
    host: c.CLOUDMOCK_HOST,
    adminToken,
    logLevel,
    ackDelayMs: c.CLOUDMOCK_ACK_DELAY_MS,
    templateApprovalMs: c.CLOUDMOCK_TEMPLATE_APPROVAL_MS,
    ...(c.CLOUDMOCK_WEBHOOK_URL ? { webhookUrl: c.CLOUDMOCK_WEBHOOK_URL } : {}),
  };
}
