// The number, the app, and messages of the Graph API (reference cloud-api.md §1, §4.3 app id).
import type { FastifyInstance } from "fastify";
import { checkConversation, deliver } from "./delivery.ts";
import { GraphFault } from "./graph-errors.ts";
import { type GraphAuth, graphRoute } from "./graph-kit.ts";
import { mediaInfo } from "./media.ts";
import { validateMessage } from "./messages.ts";
import type { BusinessNumber, CloudMockState } from "./state.ts";
import type { WebhookSender } from "./webhooks.ts";

/** "+55 11 99999-0000"-like, as the operator displays numbers. */
export function formatDisplay(digits: string): string {
  const m = /^(\d{2})(\d{2})(\d{4,5})(\d{4})$/.exec(digits);
  return m ? `+${m[1]} ${m[2]} ${m[3]}-${m[4]}` : `+${digits}`;
}

function phoneNode(n: BusinessNumber): Record<string, unknown> {
  return {
    id: n.phoneNumberId,
    display_phone_number: formatDisplay(n.displayPhoneNumber),
    verified_name: n.verifiedName,
    quality_rating: n.qualityRating,
    messaging_limit_tier: n.messagingLimitTier,
    name_status: n.nameStatus,
    code_verification_status: "VERIFIED",
    platform_type: "CLOUD_API",
    throughput: { level: n.throughput },
    status: "CONNECTED",
    account_mode: "LIVE",
  };
}

export function registerGraph(
  app: FastifyInstance,
  state: CloudMockState,
  auth: GraphAuth,
  hooks: WebhookSender,
): void {
  // The app a token belongs to (the resumable upload needs its id).
  graphRoute(
    app,
    state,
    auth,
    "GET",
    "/:version/app",
    "app",
    async (_req, n) => ({ id: n.appId, name: "Mock App" }),
    "token",
  );

  // A node by id: a phone number, a media, an upload session (the token decides whose).
  graphRoute(
    app,
    state,
    auth,
    "GET",
    "/:version/:id",
    "node",
    async (req, n) => {
      const { id } = req.params as { id: string };
      if (id === n.phoneNumberId) {
        const node = phoneNode(n);
        const fields = (req.query as { fields?: string }).fields;
        if (!fields) return node;
        const wanted = new Set(fields.split(",").map((f) => f.trim()));
        return Object.fromEntries(Object.entries(node).filter(([k]) => k === "id" || wanted.has(k)));
      }
      if (id.startsWith("upload:")) {
        const u = state.uploads.get(id);
        if (!u || u.appId !== n.appId) throw new GraphFault(100, "unknown upload session");
        return { id, file_offset: u.data?.length ?? 0 };
      }
      const m = state.media.get(id);
      if (!m || m.phoneNumberId !== n.phoneNumberId) {
        throw new GraphFault(100, undefined, {
          title: `Unsupported get request. Object with ID '${id}' does not exist`,
        });
      }
      return mediaInfo(state, m);
    },
    "node",
  );

  graphRoute(
    app,
    state,
    auth,
    "DELETE",
    "/:version/:id",
    "media",
    async (req, n) => {
      const { id } = req.params as { id: string };
      const m = state.media.get(id);
      if (!m || m.phoneNumberId !== n.phoneNumberId) throw new GraphFault(100, "unknown media id");
      state.media.delete(id);
      return { success: true };
    },
    "node",
  );

  graphRoute(app, state, auth, "POST", "/:version/:pnid/messages", "messages", async (req, n) => {
    const m = validateMessage(state, n, req.body);
    if (m.kind === "read") return { success: true };
    checkConversation(n, m);
    state.outbox.set(m.id, {
      id: m.id,
      phoneNumberId: n.phoneNumberId,
      to: m.to,
      type: m.type,
      body: m.body,
      statuses: [],
      at: Date.now(),
    });
    deliver(state, hooks, n, m);
    const contact =
      m.customer.userId && !m.body.to
        ? { input: String(m.body.recipient), user_id: m.customer.userId }
        : { input: String(m.body.to), wa_id: m.customer.waId };
    return {
      messaging_product: "whatsapp",
      contacts: [contact],
      messages: [{ id: m.id, ...(m.template ? { message_status: "accepted" } : {}) }],
    };
  });
}
