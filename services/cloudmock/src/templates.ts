// Message templates of a WABA (reference cloud-api.md §5): list with filters and cursors, create
// (PENDING, approved after `templateApprovalMs` with a status webhook), delete by name or id.
import type { FastifyInstance } from "fastify";
import { GraphFault } from "./graph-errors.ts";
import { type GraphAuth, graphRoute } from "./graph-kit.ts";
import type { BusinessNumber, CloudMockState, Template } from "./state.ts";
import type { WebhookSender } from "./webhooks.ts";

type Obj = Record<string, unknown>;
const cursorOf = (seq: number) => Buffer.from(`c:${seq}`).toString("base64url");
const seqOf = (cursor: string | undefined) => {
  const m = cursor ? /^c:(\d+)$/.exec(Buffer.from(cursor, "base64url").toString()) : null;
  return m ? Number(m[1]) : null;
};

function publicView(t: Template): Obj {
  const { wabaId: _w, createdSeq: _c, ...rest } = t;
  return rest;
}

/** The template's status changes, announced as the operator does (§3.6, the id an integer). */
export function setTemplateStatus(
  hooks: WebhookSender,
  n: BusinessNumber,
  t: Template,
  event: string,
  reason?: string,
) {
  t.status = event;
  if (reason) t.rejected_reason = reason;
  hooks.change(
    n,
    "message_template_status_update",
    {
      event,
      message_template_id: Number(t.id),
      message_template_name: t.name,
      message_template_language: t.language,
      reason: reason ?? "NONE",
      message_template_category: t.category,
    },
    { time: Math.floor(Date.now() / 1000) },
  );
}

export function registerTemplates(app: FastifyInstance, state: CloudMockState, auth: GraphAuth, hooks: WebhookSender) {
  const url = "/:version/:waba/message_templates";

  graphRoute(
    app,
    state,
    auth,
    "GET",
    url,
    "templates",
    async (req, n) => {
      const q = req.query as Record<string, string | undefined>;
      const limit = Math.min(Math.max(Number(q.limit ?? 25) || 25, 1), 1000);
      let list = [...state.templates.values()]
        .filter((t) => t.wabaId === n.wabaId)
        .filter((t) => (!q.name || t.name === q.name) && (!q.status || t.status === q.status))
        .filter((t) => (!q.category || t.category === q.category) && (!q.language || t.language === q.language))
        .sort((a, b) => a.createdSeq - b.createdSeq);
      const after = seqOf(q.after);
      const before = seqOf(q.before);
      if (after !== null) list = list.filter((t) => t.createdSeq > after);
      if (before !== null) list = list.filter((t) => t.createdSeq < before).slice(-limit);
      const page = list.slice(0, limit);
      const more = list.length > page.length;
      const first = page[0];
      const last = page.at(-1);
      return {
        data: page.map(publicView),
        paging: {
          cursors: { before: first ? cursorOf(first.createdSeq) : "", after: last ? cursorOf(last.createdSeq) : "" },
          ...(more && last
            ? { next: `${state.publicUrl()}${req.url.split("?")[0]}?limit=${limit}&after=${cursorOf(last.createdSeq)}` }
            : {}),
        },
      };
    },
    "waba",
  );

  graphRoute(
    app,
    state,
    auth,
    "POST",
    url,
    "templates",
    async (req, n) => {
      const b = (req.body ?? {}) as Obj;
      if (typeof b.name !== "string" || !/^[a-z0-9_]{1,512}$/.test(b.name)) {
        throw new GraphFault(100, "name: lowercase letters, digits and underscores");
      }
      if (typeof b.language !== "string") throw new GraphFault(100, "language is required");
      if (!["MARKETING", "UTILITY", "AUTHENTICATION"].includes(String(b.category))) {
        throw new GraphFault(100, "category must be MARKETING, UTILITY or AUTHENTICATION");
      }
      const components = Array.isArray(b.components) ? (b.components as Obj[]) : [];
      if (!components.some((c) => String(c?.type).toUpperCase() === "BODY"))
        throw new GraphFault(100, "a BODY component is required");
      const clash = [...state.templates.values()].find(
        (t) => t.wabaId === n.wabaId && t.name === b.name && t.language === b.language,
      );
      if (clash) throw new GraphFault(100, `a template named ${b.name} already exists in ${b.language}`);
      const seq = state.next();
      const t: Template = {
        id: String(5_000_000_000_000 + seq),
        wabaId: n.wabaId,
        name: b.name,
        language: b.language,
        category: String(b.category),
        status: "PENDING",
        components,
        parameter_format: String(b.parameter_format ?? "POSITIONAL").toUpperCase(),
        quality_score: null,
        rejected_reason: "NONE",
        createdSeq: seq,
      };
      state.templates.set(t.id, t);
      if (state.opts.templateApprovalMs > 0) {
        state.later(state.opts.templateApprovalMs, () => {
          if (state.templates.get(t.id)?.status === "PENDING") setTemplateStatus(hooks, n, t, "APPROVED");
        });
      }
      return { id: t.id, status: t.status, category: t.category };
    },
    "waba",
  );

  graphRoute(
    app,
    state,
    auth,
    "DELETE",
    url,
    "templates",
    async (req, n) => {
      const q = req.query as Record<string, string | undefined>;
      if (!q.name) throw new GraphFault(100, "name is required");
      const hits = [...state.templates.values()].filter(
        (t) => t.wabaId === n.wabaId && t.name === q.name && (!q.hsm_id || t.id === q.hsm_id),
      );
      if (hits.length === 0) throw new GraphFault(100, `no template named ${q.name}`);
      for (const t of hits) state.templates.delete(t.id);
      return { success: true };
    },
    "waba",
  );
}
