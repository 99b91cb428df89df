import { z } from "zod";
import type { Capability } from "../capability.ts";
import { DOC_PATTERNS, documented } from "../doc-patterns.ts";
import { pageLimitSchema, pageOffsetSchema } from "../paging.ts";

/**
 * LID mappings (spec 4.14 "LID mappings (`/lids`)"; the record is ours): what the instance has
 * learnt about privacy ids — the same store the identity rules of spec 1 (rules 3–4) use.
 * Shapes follow WAHA's `/lids` routes (docs/api.md).
 */
export const lidMappingSchema = z
  .object({
    lid: z.string().meta({ description: "`<id>@lid`" }),
    pn: z.string().meta({ description: "The number behind it, `<digits>@c.us`" }),
  })
  .meta({ id: "LidMapping" });
export type LidMapping = z.infer<typeof lidMappingSchema>;

export const LIDS_PAGE_DEFAULT = 100;
export const LIDS_PAGE_MAX = 1000;

export const lidsListQuery = z.object({
  limit: pageLimitSchema(LIDS_PAGE_MAX, LIDS_PAGE_DEFAULT),
  offset: pageOffsetSchema,
});

export const lidParam = z.object({
  lid: documented(
    z
      .string()
      .transform((s) => s.trim().replace(/@lid$/, ""))
      .pipe(z.string().regex(/^\d{1,30}$/, "lid: `<id>@lid` ou só os dígitos")),
    { type: "string", pattern: DOC_PATTERNS.lid },
    { description: "`<id>@lid` or the bare digits" },
  ),
});

export const pnParam = z.object({
  phone: documented(
    z
      .string()
      .transform((s) =>
        s
          .trim()
          .replace(/@(c\.us|s\.whatsapp\.net)$/, "")
          .replace(/[\s()+.-]/g, ""),
      )
      .pipe(z.string().regex(/^\d{8,15}$/, "informe o número com DDI e DDD, ou <digits>@c.us")),
    { pattern: `^(${DOC_PATTERNS.phone.slice(1, -1)}|[0-9]{8,15}@c\\.us)$` },
  ),
});

const standardOnly: Capability = { kinds: "standard" };
export const lidsCapabilities: Record<string, Capability> = {
  "GET /lids": standardOnly,
  "GET /lids/count": standardOnly,
  "GET /lids/{lid}": standardOnly,
  "GET /lids/pn/{phone}": standardOnly,
};
