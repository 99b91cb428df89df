import { z } from "zod";
import type { Capability } from "../capability.ts";
import { documented } from "../doc-patterns.ts";
import { defineOps } from "../ops.ts";

/** Operator-approved templates (spec 4.12, shape of 2.10), official-gateway instances only. */

export const TEMPLATE_CATEGORIES = ["MARKETING", "UTILITY", "AUTHENTICATION"] as const;
/** The operator's template statuses (reference cloud-api.md §5.5); the list filter accepts them. */
export const TEMPLATE_STATUSES = [
  "APPROVED",
  "PENDING",
  "REJECTED",
  "PAUSED",
  "DISABLED",
  "IN_APPEAL",
  "PENDING_DELETION",
  "DELETED",
  "LIMIT_EXCEEDED",
  "ARCHIVED",
] as const;

export const templateSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    language: z.string(),
    category: z.string(),
    status: z.string(),
    components: z.array(z.record(z.string(), z.unknown())),
    parameter_format: z.string(),
    quality_score: z.record(z.string(), z.unknown()).nullable(),
    rejected_reason: z.string().nullable(),
  })
  .meta({ id: "Template" });
export type Template = z.infer<typeof templateSchema>;

const cursor = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[A-Za-z0-9=_-]+$/, "cursor inválido");

export const templateListQuery = z.object({
  status: z.enum(TEMPLATE_STATUSES, `status: um de ${TEMPLATE_STATUSES.join(", ")}`).optional(),
  name: z.string().min(1).max(512).optional(),
  category: z.enum(TEMPLATE_CATEGORIES, `category: ${TEMPLATE_CATEGORIES.join(", ")}`).optional(),
  language: z
    .string()
    .regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, "language: ex. pt_BR, en_US, es")
    .optional(),
  limit: z.coerce
    .number("limit deve ser um número inteiro")
    .int("limit deve ser um número inteiro")
    .min(1, "limit vai de 1 a 100")
    .max(100, "limit vai de 1 a 100")
    .default(25),
  after: cursor.optional().meta({ description: "`paging.cursors.after` of the previous page" }),
  before: cursor.optional().meta({ description: "`paging.cursors.before` of the previous page" }),
});
export type TemplateListQuery = z.infer<typeof templateListQuery>;

export const templatePageSchema = z
  .object({
    data: z.array(templateSchema),
    paging: z.object({
      cursors: z.object({ before: z.string().nullable(), after: z.string().nullable() }),
    }),
  })
  .meta({ id: "TemplatePage" });

export const templateCreateBody = z.object({
  name: z.string("informe name").regex(/^[a-z0-9_]{1,512}$/, "name: letras minúsculas, dígitos e _ (até 512)"),
  language: z.string("informe language").regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, "language: ex. pt_BR, en_US, es"),
  category: z.enum(TEMPLATE_CATEGORIES, `category: ${TEMPLATE_CATEGORIES.join(", ")}`),
  // The operator refuses a template without its text (#100 "a BODY component is required"): said
  // here, of `components`, and in the document (`contains`).
  components: documented(
    z
      .array(z.looseObject({ type: z.string("cada componente precisa de type").min(1) }), "informe components")
      .min(1, "informe ao menos um componente (BODY)")
      .max(20)
      .refine((list) => list.some((c) => c.type.toUpperCase() === "BODY"), "informe um componente BODY (o texto)"),
    { contains: { properties: { type: { const: "BODY" } }, required: ["type"] } },
    { description: "HEADER, BODY, FOOTER, BUTTONS (the operator's shapes); a BODY is required" },
  ),
  parameter_format: z.enum(["POSITIONAL", "NAMED"], "parameter_format: POSITIONAL ou NAMED").optional(),
});
export type TemplateCreate = z.infer<typeof templateCreateBody>;

export const templateCreatedSchema = z
  .object({
    category: z.string(),
    id: z.string(),
    status: z.literal("ok"),
  })
  .meta({ description: "Submitted for approval; the verdict arrives as `template.status`." });

export const templateDeleteInput = z.object({
  name: z.string().regex(/^[a-z0-9_]{1,512}$/, "name: letras minúsculas, dígitos e _"),
  id: z
    .string()
    .regex(/^\d{1,32}$/, "id: o id numérico do template")
    .optional()
    .meta({ description: "Only this translation; without it every language of the name is deleted" }),
});

export const templateOps = defineOps({
  "templates.list": { input: templateListQuery, output: templatePageSchema },
  "templates.create": {
    input: templateCreateBody,
    output: z.object({ id: z.string(), status: z.string(), category: z.string() }),
  },
  "templates.delete": { input: templateDeleteInput, output: z.object({ success: z.literal(true) }) },
});

// --- capabilities ------------------------------------------------------------------------------

const official: Capability = { kinds: "official" };

/** Spec 4.12: the WABA's message templates, official-only. */
export const templatesCapabilities: Record<string, Capability> = {
  "GET /templates": official,
  "POST /templates": official,
  "DELETE /templates/{name}": official,
};
