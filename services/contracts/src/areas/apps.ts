import { z } from "zod";
import type { Capability } from "../capability.ts";

/**
 * Apps (integrations, spec 2.10: `{id, app, config, enabled}`; routes are ours, docs/apps.md).
 * `calls` and the four phone-number apps change how the instance behaves on the network; `mcp`
 * serves the instance's MCP server (docs/mcp.md); `helpdesk` relays the instance's conversations to a
 * Chatwoot inbox and agents' replies back (docs/helpdesk.md).
 */

export const APP_KINDS = [
  "argentine-phone-numbers",
  "brazilian-phone-numbers",
  "helpdesk",
  "calls",
  "mcp",
  "mexican-phone-numbers",
  "phone-numbers",
] as const;
export type AppKind = (typeof APP_KINDS)[number];

/**
 * The tools of the `mcp` app's server (docs/mcp.md): its `tools` config picks among these names,
 * and the gateway's MCP server maps each to the REST operation it calls.
 */
export const MCP_TOOL_NAMES = [
  "send_text",
  "send_image",
  "send_file",
  "send_location",
  "send_poll",
  "send_contact",
  "send_reaction",
  "list_chats",
  "get_messages",
  "mark_read",
  "check_number",
  "get_profile",
  "list_groups",
  "get_group",
  "queue_status",
] as const;
export type McpToolName = (typeof MCP_TOOL_NAMES)[number];

const shortText = (max: number) => z.string().max(max, `até ${max} caracteres`);
/** Chatwoot's ids are integers; a numeric string is taken too (what its UI shows is copied as text). */
const chatwootId = (field: string) =>
  z.union(
    [
      z.int().positive(),
      z
        .string()
        .regex(/^\d{1,12}$/)
        .transform(Number),
    ],
    `${field}: um número inteiro positivo`,
  );

/** The `config` of each app, validated per app. */
export const APP_CONFIGS = {
  /** Incoming calls: rejected automatically, optionally answered with a text. */
  calls: z
    .object({
      reject: z.boolean().default(true),
      message: shortText(1024).min(1, "message vazia").optional(),
      groups: z.boolean().default(true).meta({ description: "Reject group calls too" }),
    })
    .default({ reject: true, groups: true }),
  /** Brazil: the ninth digit of mobile numbers. `auto` asks the network (the default behaviour). */
  "brazilian-phone-numbers": z
    .object({ ninthDigit: z.enum(["auto", "add", "remove"]).default("auto") })
    .default({ ninthDigit: "auto" }),
  /** Mexico: mobile numbers with `52 1` (the network's form) or `52`. */
  "mexican-phone-numbers": z
    .object({ mobileOne: z.enum(["add", "remove"]).default("add") })
    .default({ mobileOne: "add" }),
  /** Argentina: `54 9` + area + number; a typed `15` after the area code is dropped. */
  "argentine-phone-numbers": z.object({ addNine: z.boolean().default(true) }).default({ addNine: true }),
  /**
   * Numbers typed without a country code get this one: a number with a trunk `0` (dropped), or of
   * at most `nationalMaxDigits` digits; `00` + number is taken as international (`00` dropped).
   */
  "phone-numbers": z.object({
    defaultCountryCode: z.string().regex(/^\d{1,3}$/, "defaultCountryCode: 1 a 3 dígitos"),
    /** Numbers with at most this many digits are taken as national (default 11). */
    nationalMaxDigits: z.number().int().min(6).max(12).default(11),
  }),
  /**
   * A help desk (the spec's `<helpdesk-integration>`): a Chatwoot API-channel inbox (docs/helpdesk.md).
   * `token` is sealed at rest and never shown; a `PATCH` whose config leaves it out keeps it.
   */
  helpdesk: z.object({
    url: z.url({ protocol: /^https?$/, message: "url: http(s)" }).max(2048),
    accountId: chatwootId("accountId"),
    inboxId: chatwootId("inboxId").meta({ description: "An API-channel inbox" }),
    token: shortText(512)
      .min(1, "informe o token")
      .meta({ description: "`api_access_token` of an agent or bot with access to the inbox (write-only)" }),
    signAgentName: z.boolean().default(true).meta({ description: "Prefix agent replies with `*Name*:`" }),
    reopenResolved: z
      .boolean()
      .default(true)
      .meta({ description: "A message in a resolved conversation reopens it (false: a new conversation)" }),
    ignoreGroups: z.boolean().default(true),
    ignoreChats: z.array(z.string().min(1).max(200)).max(1000).default([]).meta({ description: "Chat ids left out" }),
  }),
  /** The instance's MCP server at `/v1/instances/{id}/mcp`: the tools it offers (empty or absent: all). */
  mcp: z
    .object({
      tools: z
        .array(z.enum(MCP_TOOL_NAMES, `tools: nomes entre ${MCP_TOOL_NAMES.join(", ")}`))
        .max(MCP_TOOL_NAMES.length)
        .optional(),
    })
    .default({}),
} satisfies Record<AppKind, z.ZodType>;

export const appSchema = z
  .object({
    id: z.string().meta({ description: "`app_…`" }),
    app: z.enum(APP_KINDS),
    config: z.record(z.string(), z.unknown()),
    enabled: z.boolean(),
    webhookUrl: z.string().optional().meta({
      description:
        "`helpdesk` only: paste it as the Chatwoot inbox's webhook URL (it carries the app's secret; keep it private)",
    }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "App" });
export type App = z.infer<typeof appSchema>;

export const APP_ID_RE = /^app_[0-9a-z]{10,40}$/;
export const appIdSchema = z.string().regex(APP_ID_RE, "id de app inválido");

export const createAppBody = z.object({
  app: z.enum(APP_KINDS, `app: um de ${APP_KINDS.join(", ")}`),
  config: z.record(z.string(), z.unknown()).optional(),
  enabled: z.boolean().default(true),
});
export const updateAppBody = z.object({
  config: z.record(z.string(), z.unknown()).optional(),
  enabled: z.boolean().optional(),
});

/** The phone-number rules of an instance's enabled apps, as the send path applies them. */
export interface NumberRules {
  brazil: "auto" | "add" | "remove";
  mexico: "add" | "remove" | null;
  argentina: boolean;
  defaultCountryCode: string | null;
  nationalMaxDigits: number;
}
export const DEFAULT_NUMBER_RULES: NumberRules = {
  brazil: "auto",
  mexico: null,
  argentina: false,
  defaultCountryCode: null,
  nationalMaxDigits: 11,
};

/**
 * A number as the rules want it: a national number gets the default country code, then the
 * country rules (Mexico's `1`, Argentina's `9` and `15`, Brazil's ninth digit when forced).
 */
export function applyNumberRules(digits: string, rules: NumberRules): string {
  let d = digits;
  if (rules.defaultCountryCode) {
    // `00` is the international call prefix; a single `0` the national trunk prefix.
    if (d.startsWith("00")) d = d.slice(2);
    else if (d.startsWith("0")) d = `${rules.defaultCountryCode}${d.slice(1)}`;
    else if (d.length <= rules.nationalMaxDigits) d = `${rules.defaultCountryCode}${d}`;
  }
  if (rules.mexico === "add" && /^52\d{10}$/.test(d)) d = `521${d.slice(2)}`;
  if (rules.mexico === "remove" && /^521\d{10}$/.test(d)) d = `52${d.slice(3)}`;
  if (rules.argentina && d.startsWith("54") && !d.startsWith("549")) {
    // 54 + area (2–4 digits) + 15 + number: the 15 is a national mobile prefix, not part of the number.
    const rest = d.slice(2);
    const m = /^(\d{2,4})15(\d{6,8})$/.exec(rest);
    d = m && (m[1]! + m[2]!).length === 10 ? `549${m[1]}${m[2]}` : rest.length === 10 ? `549${rest}` : d;
  }
  if (rules.brazil === "add" && /^55\d{2}[6-9]\d{7}$/.test(d)) d = `${d.slice(0, 4)}9${d.slice(4)}`;
  if (rules.brazil === "remove" && /^55\d{2}9[6-9]\d{7}$/.test(d)) d = `${d.slice(0, 4)}${d.slice(5)}`;
  return d;
}

const both: Capability = { kinds: "both" };
export const appsCapabilities: Record<string, Capability> = {
  "GET /apps": both,
  "POST /apps": both,
  "GET /apps/{appId}": both,
  "PATCH /apps/{appId}": both,
  "DELETE /apps/{appId}": both,
};
