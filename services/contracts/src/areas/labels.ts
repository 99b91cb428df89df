import { z } from "zod";
import type { Capability } from "../capability.ts";
import { normalizeChatId } from "../chat-id.ts";
import { DOC_PATTERNS, documented } from "../doc-patterns.ts";
import { ApiError } from "../errors.ts";
import { defineOps } from "../ops.ts";

/**
 * Labels (spec 4.7, the Label of 2.10, events `label.*` of 6.2; docs/labels.md): the network's
 * color palette, the route bodies, the resource, the area's session operations and the routes'
 * capabilities. Labels are a feature of business accounts of the network.
 */

// --- the palette ----------------------------------------------------------------------------------

/**
 * The network's 20 label colors: `color` is the index the network stores (Baileys' `LabelColor`
 * enum, `Color1` = 0 … `Color20` = 19), `colorHex` the shade the official apps paint it — the map
 * WAHA documents (docs/labels.md). The network sends only the index; the hex is ours to derive.
 */
export const LABEL_COLORS = [
  "#ff9485",
  "#64c4ff",
  "#ffd429",
  "#dfaef0",
  "#99b6c1",
  "#55ccb3",
  "#ff9dff",
  "#d3a91d",
  "#6d7cce",
  "#d7e752",
  "#00d0e2",
  "#ffc5c7",
  "#93ceac",
  "#f74848",
  "#00a0f2",
  "#83e422",
  "#ffaf04",
  "#b5ebff",
  "#9ba6ff",
  "#9368cf",
] as const;

/** `#rrggbb` of a palette index; null for an index outside the known palette. */
export function labelColorHex(color: number): string | null {
  return LABEL_COLORS[color] ?? null;
}

/** The palette index of a hex color (`#` optional, any case); null when it is not in the palette. */
export function labelColorIndex(hex: string): number | null {
  const v = hex.trim().toLowerCase();
  const i = LABEL_COLORS.indexOf((v.startsWith("#") ? v : `#${v}`) as (typeof LABEL_COLORS)[number]);
  return i < 0 ? null : i;
}

/**
 * The color a label gets when none is asked for, as the official apps pick it: the first palette
 * color no live label uses, else the palette again in order.
 */
export function nextLabelColor(used: number[]): number {
  const taken = new Set(used);
  for (let i = 0; i < LABEL_COLORS.length; i++) if (!taken.has(i)) return i;
  return used.length % LABEL_COLORS.length;
}

/** The next label id: one past the highest numeric id ever seen (deleted ones too: never reused). */
export function nextLabelId(seen: string[]): string {
  let max = 0;
  for (const id of seen) if (/^\d{1,15}$/.test(id)) max = Math.max(max, Number(id));
  return String(max + 1);
}

/**
 * The refusal of a personal (non-business) account, the same on every provider: the route exists
 * for the instance (no 501), but the network keeps labels for business accounts only, so it is the
 * network's refusal for this account (`422 network_rejected`, docs/labels.md).
 */
export function personalAccountError(): ApiError {
  return new ApiError(
    "network_rejected",
    "Etiquetas são um recurso do WhatsApp Business: o número desta instância é uma conta pessoal.",
    { account: "conta pessoal: etiquetas exigem uma conta comercial (WhatsApp Business)" },
  );
}

/** An unknown label (`field`: where the request named it). */
export function labelNotFound(id: string, field = "labelId"): ApiError {
  return new ApiError("not_found", "Etiqueta não encontrada.", { [field]: `a etiqueta ${id} não existe nesta conta` });
}

/** A chat the network does not know (a number without an account, a group this number is not in). */
export function labelChatNotFound(chatId: string): ApiError {
  return new ApiError("not_found", "Conversa não encontrada.", {
    chatId: `${chatId}: número sem conta na rede, ou grupo do qual este número não participa`,
  });
}

// --- ids -----------------------------------------------------------------------------------------

export const LABEL_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

export const labelIdSchema = z
  .string("informe o id da etiqueta")
  .regex(LABEL_ID_RE, "id de etiqueta inválido (o id de GET /labels)")
  .meta({ description: "The label's `id` (GET /labels)" });

/**
 * `{chatId}` of the label routes: a person (number, `@c.us`, `@lid`) or a group (`@g.us`); channels
 * and the status chat carry no labels.
 */
export const labelChatIdSchema = documented(
  z
    .string("informe o chatId")
    .max(200)
    .transform((raw, ctx) => {
      const id = normalizeChatId(raw);
      if (!id || !/@(c\.us|lid|g\.us)$/.test(id)) {
        ctx.addIssue({
          code: "custom",
          message:
            "chatId inválido: etiquetas se aplicam a conversas com pessoas (número, @c.us, @lid) ou grupos (@g.us)",
        });
        return z.NEVER;
      }
      return id;
    }),
  { pattern: DOC_PATTERNS.personOrGroup },
  { description: "Number with country and area code, `<digits>@c.us`, `<id>@lid` or `<id>@g.us`" },
);

// --- the resource (spec 2.10) ----------------------------------------------------------------------

export const labelSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    color: z.number().int().meta({ description: "The network's palette index (0–19)" }),
    colorHex: z
      .string()
      .nullable()
      .meta({ description: "`#rrggbb` of `color` (docs/labels.md); null for an index the palette lacks" }),
  })
  .meta({ id: "Label" });
export type Label = z.infer<typeof labelSchema>;

/** A label as a provider has it: the network knows the palette index only. */
export const providerLabelSchema = z.object({ id: z.string(), name: z.string(), color: z.number().int() });
export type ProviderLabel = z.infer<typeof providerLabelSchema>;

export function presentLabel(l: ProviderLabel): Label {
  return { id: l.id, name: l.name, color: l.color, colorHex: labelColorHex(l.color) };
}

// --- route bodies (spec 4.7) -----------------------------------------------------------------------

const COLOR_MAX = LABEL_COLORS.length - 1;

/** `name` with `color` and/or `colorHex`: when both are sent they must be the same palette color. */
export const labelBody = z
  .object({
    name: z
      .string("informe o nome da etiqueta")
      .trim()
      .min(1, "informe o nome da etiqueta")
      .max(100, "nome: até 100 caracteres"),
    color: z
      .number("color: número de 0 a 19 (a paleta da rede)")
      .int("color: número inteiro de 0 a 19")
      .min(0, `color: de 0 a ${COLOR_MAX}`)
      .max(COLOR_MAX, `color: de 0 a ${COLOR_MAX}`)
      .optional()
      .meta({ description: "The network's palette index, 0–19 (docs/labels.md)" }),
    colorHex: z
      .string("colorHex: cor #rrggbb da paleta")
      .regex(/^#?[0-9a-fA-F]{6}$/, "colorHex: use #rrggbb")
      .optional()
      .meta({ description: "One of the palette's 20 `#rrggbb` colors (docs/labels.md)" }),
  })
  .superRefine((b, ctx) => {
    if (b.colorHex === undefined || !/^#?[0-9a-fA-F]{6}$/.test(b.colorHex)) return;
    const index = labelColorIndex(b.colorHex);
    if (index === null) {
      ctx.addIssue({
        code: "custom",
        path: ["colorHex"],
        message: `colorHex fora da paleta da rede: use uma das 20 cores (${LABEL_COLORS.join(", ")})`,
      });
    } else if (b.color !== undefined && b.color !== index) {
      ctx.addIssue({
        code: "custom",
        path: ["colorHex"],
        message: `colorHex ${b.colorHex} é a cor ${index}, não a cor ${b.color}: envie só um dos dois ou os dois iguais`,
      });
    }
  });
export type LabelBody = z.infer<typeof labelBody>;

/** The palette index a body asks for, if any. */
export function colorOfBody(b: LabelBody): number | undefined {
  if (b.color !== undefined) return b.color;
  return b.colorHex !== undefined ? (labelColorIndex(b.colorHex) ?? undefined) : undefined;
}

export const MAX_LABELS_PER_CHAT = 100;

export const chatLabelsBody = z.object({
  labels: z
    .array(z.object({ id: labelIdSchema }), "informe labels (lista de {id}; vazia remove todas)")
    .max(MAX_LABELS_PER_CHAT, `até ${MAX_LABELS_PER_CHAT} etiquetas`)
    .meta({ description: "The chat's whole label set: missing ones are added, the others removed" }),
});

export const labelChatSchema = z
  .object({ id: z.string().meta({ description: "The chat: `<digits>@c.us`, `<id>@lid` or `<id>@g.us`" }) })
  .meta({ id: "LabelChat" });

// --- session operations ------------------------------------------------------------------------------

const byLabel = z.object({ id: z.string().regex(LABEL_ID_RE) });
const byChat = z.object({ chatId: z.string().min(3) });

export const labelsOps = defineOps({
  "labels.list": { input: z.object({}), output: z.array(providerLabelSchema) },
  /** Without `color` the provider picks one (`nextLabelColor`), as the apps do. */
  "labels.create": {
    input: z.object({ name: z.string().min(1), color: z.number().int().min(0).optional() }),
    output: providerLabelSchema,
  },
  /** Without `color` the label keeps its own. */
  "labels.update": {
    input: byLabel.extend({ name: z.string().min(1), color: z.number().int().min(0).optional() }),
    output: providerLabelSchema,
  },
  "labels.delete": { input: byLabel, output: z.object({}) },
  "labels.chatLabels": { input: byChat, output: z.array(providerLabelSchema) },
  /** The chat's whole set: answers the labels it has afterwards. */
  "labels.setChatLabels": {
    input: byChat.extend({ labelIds: z.array(z.string().regex(LABEL_ID_RE)) }),
    output: z.array(providerLabelSchema),
  },
  /** The chats carrying a label, as chat ids. */
  "labels.labelChats": { input: byLabel, output: z.array(z.string()) },
});

// --- capabilities ------------------------------------------------------------------------------------

const standard: Capability = { kinds: "standard" };

export const labelsCapabilities: Record<string, Capability> = {
  "GET /labels": standard,
  "POST /labels": standard,
  "GET /labels/chats/{chatId}": standard,
  "PUT /labels/chats/{chatId}": standard,
  "PUT /labels/{labelId}": standard,
  "DELETE /labels/{labelId}": standard,
  "GET /labels/{labelId}/chats": standard,
};
