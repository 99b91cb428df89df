import type { SessionOpHandlers, Template } from "@gw/contracts";
import type { CloudLink } from "./link.ts";

/** Operator templates of the instance's WABA (spec 4.12, reference cloud-api.md §5) as the `templates.*` operations. */

type GraphTemplate = Partial<Template> & { id?: string; quality_score?: unknown; rejected_reason?: unknown };

function templateOf(t: GraphTemplate): Template {
  return {
    id: String(t.id ?? ""),
    name: String(t.name ?? ""),
    language: String(t.language ?? ""),
    category: String(t.category ?? ""),
    status: String(t.status ?? ""),
    components: Array.isArray(t.components) ? (t.components as Record<string, unknown>[]) : [],
    parameter_format: String(t.parameter_format ?? "POSITIONAL"),
    quality_score:
      t.quality_score && typeof t.quality_score === "object" ? (t.quality_score as Record<string, unknown>) : null,
    rejected_reason: typeof t.rejected_reason === "string" ? t.rejected_reason : null,
  };
}

const FIELDS = "id,name,language,category,status,components,parameter_format,quality_score,rejected_reason";

export function templateOps(link: CloudLink): SessionOpHandlers {
  return {
    "templates.list": async (q) => {
      const { creds, target } = await link.ready();
      const res = await link.call("templates.list", () =>
        link.graph.get<{ data?: GraphTemplate[]; paging?: { cursors?: { before?: string; after?: string } } }>(
          target,
          `${creds.wabaId}/message_templates`,
          {
            fields: FIELDS,
            limit: q.limit,
            status: q.status,
            name: q.name,
            category: q.category,
            language: q.language,
            after: q.after,
            before: q.before,
          },
        ),
      );
      return {
        data: (res.data ?? []).map(templateOf),
        paging: { cursors: { before: res.paging?.cursors?.before ?? null, after: res.paging?.cursors?.after ?? null } },
      };
    },
    "templates.create": async (body) => {
      const { creds, target } = await link.ready();
      const res = await link.call(
        "templates.create",
        () =>
          link.graph.post<{ id: string; status?: string; category?: string }>(
            target,
            `${creds.wabaId}/message_templates`,
            body,
          ),
        "components",
      );
      return {
        id: String(res.id),
        status: String(res.status ?? "PENDING"),
        category: String(res.category ?? body.category),
      };
    },
    "templates.delete": async ({ name, id }) => {
      const { creds, target } = await link.ready();
      await link.call("templates.delete", () =>
        link.graph.delete(target, `${creds.wabaId}/message_templates`, { name, ...(id ? { hsm_id: id } : {}) }),
      );
      return { success: true as const };
    },
  };
}
