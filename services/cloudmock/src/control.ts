// The control API (`/mock/...`, Bearer admin token): what tests, demos and benchmarks use to act
// as the operator's back office and as the customers (docs/cloudmock.md).
import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { sendStatus } from "./delivery.ts";
import { ControlError } from "./graph-errors.ts";
import { storeMedia } from "./media.ts";
import type { BusinessNumber, CloudMockState } from "./state.ts";
import { setTemplateStatus } from "./templates.ts";
import { metadataOf, signature, type WebhookSender } from "./webhooks.ts";

function parse<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const r = schema.safeParse(raw ?? {});
  if (!r.success) throw new ControlError(400, "validation_error", z.prettifyError(r.error));
  return r.data;
}

const digits = z.string().regex(/^\d{6,20}$/, "digits");
const numberInput = z.object({
  phoneNumberId: z.string().regex(/^\d{1,32}$/),
  wabaId: z.string().regex(/^\d{1,32}$/),
  displayPhoneNumber: digits,
  verifiedName: z.string().min(1).default("Mock Business"),
  accessToken: z.string().min(1),
  appSecret: z.string().min(1),
  appId: z
    .string()
    .regex(/^\d{1,32}$/)
    .optional(),
  webhookUrl: z.url().nullable().optional(),
  qualityRating: z.string().default("GREEN"),
  messagingLimitTier: z.string().default("TIER_1K"),
  nameStatus: z.string().default("APPROVED"),
  throughput: z.string().default("STANDARD"),
  windowMode: z.enum(["async", "sync"]).default("async"),
  pairRate: z.number().int().min(0).default(0),
});
const numberPatch = numberInput.partial().extend({ tokenExpired: z.boolean().optional() });
const userInput = z.object({
  onWhatsApp: z.boolean().optional(),
  autoRead: z.boolean().optional(),
  autoStatus: z.boolean().optional(),
  name: z.string().optional(),
  username: z.string().nullable().optional(),
  userId: z.string().nullable().optional(),
  hidePhone: z.boolean().optional(),
});
const inboundInput = z.looseObject({
  from: digits,
  type: z.string().min(1),
  id: z.string().optional(),
  timestamp: z.number().int().optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  referral: z.record(z.string(), z.unknown()).optional(),
  media: z.object({ data: z.string().min(1), mimetype: z.string().min(3), filename: z.string().optional() }).optional(),
});
const errorInput = z
  .object({
    op: z.enum(["messages", "media", "profile", "templates", "node", "uploads", "app", "any"]),
    code: z.number().int().optional(),
    status: z.number().int().min(400).max(599).optional(),
    subcode: z.number().int().optional(),
    title: z.string().optional(),
    details: z.string().optional(),
    /** Answered as given instead of the operator's JSON (what a proxy or load balancer in front says). */
    body: z.string().optional(),
    contentType: z.string().default("text/html; charset=utf-8"),
    count: z.number().int().min(1).default(1),
  })
  .refine((e) => e.code !== undefined || (e.body !== undefined && e.status !== undefined), {
    message: "code, or a raw body with its status",
  });

export function registerControl(app: FastifyInstance, state: CloudMockState, hooks: WebhookSender): void {
  app.addHook("onRequest", async (req) => {
    if (!req.url.startsWith("/mock")) return;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    const want = Buffer.from(state.opts.adminToken);
    const got = Buffer.from(m?.[1] ?? "");
    if (got.length !== want.length || !timingSafeEqual(got, want)) {
      throw new ControlError(401, "unauthorized", "Authorization: Bearer <ADMIN_TOKEN> required");
    }
  });

  const numberOf = (req: FastifyRequest): BusinessNumber => {
    const n = state.numbers.get((req.params as { pnid: string }).pnid);
    if (!n) throw new ControlError(404, "not_found", "no such number");
    return n;
  };
  const view = (n: BusinessNumber) => {
    const { users, profile, ...rest } = n;
    return { ...rest, users: [...users.values()].map(({ inbound: _i, recentSends: _r, ...u }) => u) };
  };

  app.get("/healthz", async () => ({ status: "ok" }));

  app.post("/mock/numbers", async (req, reply) => {
    const b = parse(numberInput, req.body);
    if (state.numbers.has(b.phoneNumberId)) throw new ControlError(409, "conflict", "number already registered");
    const n: BusinessNumber = {
      ...b,
      appId: b.appId ?? `1000${b.phoneNumberId}`,
      webhookUrl: b.webhookUrl ?? null,
      tokenExpired: false,
      profile: { about: "Olá! Estamos no WhatsApp.", vertical: "OTHER", websites: [] },
      users: new Map(),
    };
    state.numbers.set(n.phoneNumberId, n);
    return reply.code(201).send(view(n));
  });
  app.get("/mock/numbers/:pnid", async (req) => view(numberOf(req)));
  app.patch("/mock/numbers/:pnid", async (req) => {
    const n = numberOf(req);
    const b = parse(numberPatch, req.body);
    Object.assign(n, Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined)));
    return view(n);
  });
  app.put("/mock/numbers/:pnid/users/:user", async (req) => {
    const n = numberOf(req);
    const c = state.customer(n, parse(z.object({ user: digits }), req.params).user);
    Object.assign(c, Object.fromEntries(Object.entries(parse(userInput, req.body)).filter(([, v]) => v !== undefined)));
    return { waId: c.waId, onWhatsApp: c.onWhatsApp, autoRead: c.autoRead, userId: c.userId, hidePhone: c.hidePhone };
  });

  // A customer writes to the business: the `messages` webhook of §3.4; the 24 h window opens.
  app.post("/mock/numbers/:pnid/inbound", async (req) => {
    const n = numberOf(req);
    const b = parse(inboundInput, req.body);
    const c = state.customer(n, b.from);
    const id = b.id ?? state.wamid();
    const timestamp = b.timestamp ?? Math.floor(Date.now() / 1000);
    const { from: _f, type, id: _i, timestamp: _t, context, referral, media, ...rest } = b;
    const message: Record<string, unknown> = {
      ...(c.hidePhone ? {} : { from: c.waId }),
      ...(c.userId ? { from_user_id: c.userId } : {}),
      id,
      timestamp: String(timestamp),
      type,
      ...rest,
      ...(context ? { context } : {}),
      ...(referral ? { referral } : {}),
    };
    if (media) {
      const m = storeMedia(state, n.phoneNumberId, Buffer.from(media.data, "base64"), media.mimetype, media.filename);
      message[type] = {
        ...((rest as Record<string, unknown>)[type] as object),
        id: m.id,
        mime_type: media.mimetype,
        sha256: m.sha256,
        ...(media.filename ? { filename: media.filename } : {}),
      };
    }
    if (timestamp > c.lastInbound && type !== "system") c.lastInbound = timestamp;
    c.inbound.add(id);
    const contact = {
      profile: { name: c.name, ...(c.username ? { username: c.username } : {}) },
      ...(c.hidePhone ? {} : { wa_id: c.waId }),
      ...(c.userId ? { user_id: c.userId } : {}),
    };
    const value = { messaging_product: "whatsapp", metadata: metadataOf(n), contacts: [contact], messages: [message] };
    return { id, payload: JSON.parse(hooks.change(n, "messages", value)) };
  });

  app.post("/mock/numbers/:pnid/statuses", async (req) => {
    const n = numberOf(req);
    const b = parse(z.object({ statuses: z.array(z.record(z.string(), z.unknown())).min(1) }), req.body);
    hooks.change(n, "messages", { messaging_product: "whatsapp", metadata: metadataOf(n), statuses: b.statuses });
    return { sent: b.statuses.length };
  });
  app.post("/mock/numbers/:pnid/outbox/:id/status", async (req) => {
    const n = numberOf(req);
    const { id } = req.params as { id: string };
    const m = state.outbox.get(id);
    if (!m) throw new ControlError(404, "not_found", "no such message");
    const b = parse(z.object({ status: z.enum(["sent", "delivered", "read", "played", "failed"]) }), req.body);
    sendStatus(state, hooks, n, { id, customer: state.customer(n, m.to) }, b.status);
    return { ok: true };
  });

  app.post("/mock/webhooks", async (req) => {
    const b = parse(
      z.object({
        phoneNumberId: z.string().optional(),
        wabaId: z.string().optional(),
        field: z.string().min(1),
        value: z.unknown(),
        time: z.number().int().optional(),
      }),
      req.body,
    );
    const n =
      (b.phoneNumberId ? state.numbers.get(b.phoneNumberId) : undefined) ??
      [...state.numbers.values()].find((x) => x.wabaId === b.wabaId);
    if (!n) throw new ControlError(404, "not_found", "no such number or WABA");
    return { body: hooks.change(n, b.field, b.value, b.time ? { time: b.time } : {}) };
  });
  app.post("/mock/webhooks/raw", async (req) => {
    const b = parse(
      z.object({
        url: z.string().optional(),
        body: z.string(),
        signature: z.enum(["valid", "invalid", "none"]).default("valid"),
        appSecret: z.string().optional(),
      }),
      req.body,
    );
    const secret = b.appSecret ?? "";
    const headers: Record<string, string> =
      b.signature === "none"
        ? {}
        : {
            "x-hub-signature-256":
              b.signature === "valid" ? signature(secret, b.body) : signature(`${secret}x`, b.body),
          };
    hooks.post(b.url ?? state.opts.webhookUrl, b.body, "raw", headers);
    return { ok: true };
  });

  app.post("/mock/numbers/:pnid/errors", async (req) => {
    const n = numberOf(req);
    const b = parse(errorInput, req.body);
    state.errors.push({ phoneNumberId: n.phoneNumberId, ...b });
    return { queued: b.count };
  });

  app.post("/mock/templates/:id/status", async (req) => {
    const t = state.templates.get((req.params as { id: string }).id);
    const n = t ? [...state.numbers.values()].find((x) => x.wabaId === t.wabaId) : undefined;
    if (!t || !n) throw new ControlError(404, "not_found", "no such template");
    const b = parse(z.object({ event: z.string().regex(/^[A-Z_]+$/), reason: z.string().optional() }), req.body);
    setTemplateStatus(hooks, n, t, b.event, b.reason);
    return { id: t.id, status: t.status };
  });

  app.get("/mock/numbers/:pnid/requests", async (req) => {
    const n = numberOf(req);
    const since = Number((req.query as { since?: string }).since ?? 0);
    return { requests: state.requests.filter((r) => r.phoneNumberId === n.phoneNumberId && r.seq > since) };
  });
  app.get("/mock/numbers/:pnid/messages", async (req) => {
    const n = numberOf(req);
    return { messages: [...state.outbox.values()].filter((m) => m.phoneNumberId === n.phoneNumberId) };
  });
  app.get("/mock/deliveries", async (req) => {
    const since = Number((req.query as { since?: string }).since ?? 0);
    return { deliveries: state.deliveries.filter((d) => d.seq > since) };
  });
  app.post("/mock/reset", async () => {
    state.reset();
    return { ok: true };
  });
}
