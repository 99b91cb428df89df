import { z } from "zod";

/**
 * The chatwootmock role's settings (docs/chatwootmock.md). `ADMIN_TOKEN` and `LOG_LEVEL` come from
 * the main config. With `CHATWOOTMOCK_TOKEN` the mock starts with one account, one API inbox and an
 * agent holding that token, so a gateway can be pointed at it without a set-up call.
 */
export const chatwootMockConfigSchema = z
  .object({
    CHATWOOTMOCK_PORT: z.coerce.number().int().min(0).max(65535).default(8092),
    CHATWOOTMOCK_HOST: z.string().default("127.0.0.1"),
    CHATWOOTMOCK_TOKEN: z.string().min(1).optional(),
    /** The preset inbox's `webhook_url` (where its message events go). */
    CHATWOOTMOCK_WEBHOOK_URL: z.url().optional(),
    /** Base of the attachment URLs it gives out; default the listening address. */
    CHATWOOTMOCK_PUBLIC_URL: z.url().optional(),
    /** Chatwoot's CONVERSATION_MESSAGE_PER_MINUTE_LIMIT (200): past it a message is 422 "Too many messages"; 0: none. */
    CHATWOOTMOCK_MESSAGES_PER_MINUTE: z.coerce.number().int().min(0).default(200),
  })
  .refine((c) => !c.CHATWOOTMOCK_WEBHOOK_URL || c.CHATWOOTMOCK_TOKEN, {
    message: "CHATWOOTMOCK_WEBHOOK_URL belongs to the preset inbox, which needs CHATWOOTMOCK_TOKEN",
    path: ["CHATWOOTMOCK_WEBHOOK_URL"],
  });
export type ChatwootMockConfig = z.infer<typeof chatwootMockConfigSchema>;

export function loadChatwootMockConfig(env: Record<string, string | undefined> = process.env): ChatwootMockConfig {
  const parsed = chatwootMockConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(env)"}: ${i.message}`);
    throw new Error(`invalid chatwootmock configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

/** An account with one API inbox and one agent whose access token is `token`. */
export interface ChatwootPreset {
  token: string;
  webhookUrl?: string | null;
  accountName?: string;
  inboxName?: string;
  /** The token's owner: the sender of outgoing messages created through the API. */
  userName?: string;
}

export interface ChatwootMockOptions {
  port?: number;
  host?: string;
  /** When set, the control API (`/_control/*`) needs `Authorization: Bearer <adminToken>`. */
  adminToken?: string;
  logLevel?: string;
  preset?: ChatwootPreset;
  /** Base of the attachment URLs it gives out; default the listening address. */
  publicUrl?: string;
  /** How long one webhook POST may take (Chatwoot's RestClient call: 5 s). */
  webhookTimeoutMs?: number;
  /** Messages one conversation takes per minute before 422 "Too many messages" (Chatwoot's default 200; 0: no limit). */
  messagesPerMinute?: number;
}

export type ResolvedOptions = Required<Omit<ChatwootMockOptions, "adminToken" | "preset" | "publicUrl">> & {
  adminToken: string | null;
  preset: ChatwootPreset | null;
  publicUrl: string | null;
};

export function resolveOptions(o: ChatwootMockOptions): ResolvedOptions {
  return {
    port: o.port ?? 8092,
    host: o.host ?? "127.0.0.1",
    adminToken: o.adminToken ?? null,
    logLevel: o.logLevel ?? "silent",
    preset: o.preset ?? null,
    publicUrl: o.publicUrl ?? null,
    webhookTimeoutMs: o.webhookTimeoutMs ?? 5_000,
    messagesPerMinute: o.messagesPerMinute ?? 200,
  };
}

export function chatwootMockOptionsFromConfig(
  c: ChatwootMockConfig,
  adminToken: string,
  logLevel: string,
): ChatwootMockOptions {
  return {
    port: c.CHATWOOTMOCK_PORT,
    host: c.CHATWOOTMOCK_HOST,
    adminToken,
    logLevel,
    messagesPerMinute: c.CHATWOOTMOCK_MESSAGES_PER_MINUTE,
    ...(c.CHATWOOTMOCK_PUBLIC_URL ? { publicUrl: c.CHATWOOTMOCK_PUBLIC_URL } : {}),
    ...(c.CHATWOOTMOCK_TOKEN
      ? { preset: { token: c.CHATWOOTMOCK_TOKEN, webhookUrl: c.CHATWOOTMOCK_WEBHOOK_URL ?? null } }
      : {}),
  };
}
