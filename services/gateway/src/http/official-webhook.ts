import { createHmac, timingSafeEqual } from "node:crypto";
import type { Config, Platform } from "@gw/platform";
import { ReplicaCache, secretMatches } from "@gw/platform";
import type { FastifyInstance } from "fastify";
import type { Counter } from "prom-client";

/** The operator sends webhooks up to 3 MB (reference cloud-api.md §3.3). */
export const OFFICIAL_WEBHOOK_BODY_LIMIT = 3 * 1_048_576;
const ROUTING_CACHE_MS = 5_000;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const SIGNATURE_RE = /^sha256=([0-9a-fA-F]{64})$/;

/** `sha256=<hex>` of the raw body with `secret`, compared in constant time. */
export function hubSignatureMatches(header: string | undefined, rawBody: Buffer, secret: string): boolean {
  const m = header ? SIGNATURE_RE.exec(header.trim()) : null;
  if (!m) return false;
  const want = createHmac("sha256", secret).update(rawBody).digest();
  const got = Buffer.from(m[1]!, "hex");
  return got.length === want.length && timingSafeEqual(got, want);
}

interface Change {
  field: string;
  value: unknown;
  time?: number;
}

/**
 * `GET|POST /v1/official/webhook`: the one address operators deliver to for the whole deployment
 * (docs/official.md). GET answers the verification handshake. POST: the payload's phone-number
 * id (else the display number, else the WABA id) selects the instances; each instance's changes
 * are accepted only when the body's `X-Hub-Signature-256` verifies with that instance's own app
 * secret (one tenant's secret can never speak for another's number); none verifying is 401 and
 * nothing is kept. A body without a well-formed signature, or that is not JSON (it names no
 * number whose secret could verify it), is 401 before anything else. Accepted changes are stored
 * durably before the 200 (platform/cloud-inbox.ts) and processed by the worker role. Unknown
 * numbers are acknowledged and dropped with a log line (also when they come beside known ones).
 */
export function registerOfficialWebhook(
  app: FastifyInstance,
  platform: Platform,
  config: Config,
  counter?: Counter<"outcome">,
): void {
  // Only numbers that exist are kept: "no instance" is asked again each time, so a webhook right
  // after an instance is created (or its number changed) is never dropped by a stale answer.
  const routes = new ReplicaCache<string[] | null>(ROUTING_CACHE_MS, 100_000);
  const secrets = new ReplicaCache<string | null>(ROUTING_CACHE_MS, 100_000);
  platform.invalidations.on("instance", (id) => {
    secrets.forget(id);
    routes.forget(null); // credentials may have moved to another number
  });

  // Both answered from memory when known (no promise on the operator's clock), else loaded once.
  const instancesOf = (kind: "pn" | "dn" | "waba", id: string) =>
    routes.peek(`${kind}:${id}`) ??
    routes.get(`${kind}:${id}`, async () => {
      if (kind === "waba") {
        const all = await platform.cloud.byWaba(id);
        return all.length > 0 ? all : null;
      }
      const found = kind === "pn" ? await platform.cloud.byPhoneNumberId(id) : await platform.cloud.byDisplayPhone(id);
      return found ? [found] : null;
    });
  const secretOf = (instanceId: string) =>
    secrets.peek(instanceId) ??
    secrets.get(instanceId, async () => (await platform.cloud.appSecrets([instanceId])).get(instanceId) ?? null);

  app.get("/v1/official/webhook", async (req, reply) => {
    const q = req.query as Record<string, string | undefined>;
    const token = config.CLOUD_WEBHOOK_VERIFY_TOKEN;
    if (q["hub.mode"] === "subscribe" && token && secretMatches(q["hub.verify_token"] ?? "", token)) {
      return reply
        .code(200)
        .type("text/plain")
        .send(q["hub.challenge"] ?? "");
    }
    return reply.code(403).send({ error: { code: "invalid_token", message: "verify_token inválido." } });
  });

  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: OFFICIAL_WEBHOOK_BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );
    scope.post("/v1/official/webhook", { bodyLimit: OFFICIAL_WEBHOOK_BODY_LIMIT }, async (req, reply) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const header = req.headers["x-hub-signature-256"];
      const signature = typeof header === "string" ? header : undefined;
      const refuse = (why: string, extra: Record<string, unknown> = {}) => {
        counter?.inc({ outcome: "bad_signature" });
        req.log.warn(extra, why);
        return reply
          .code(401)
          .send({ error: { code: "invalid_token", message: "Assinatura X-Hub-Signature-256 inválida." } });
      };
      // Everything the operator sends is signed: without a well-formed signature nothing is read.
      if (!signature || !SIGNATURE_RE.test(signature.trim())) {
        return refuse("operator webhook without a well-formed signature: refused");
      }
      let payload: Obj;
      try {
        payload = obj(JSON.parse(raw.toString("utf8")));
      } catch {
        // Not JSON: it names no number, so no app secret can verify it.
        return refuse("operator webhook that is not JSON: refused");
      }
      // Each instance's changes, by what names it in each change.
      const byInstance = new Map<string, Change[]>();
      let unknown = 0;
      const unknownIds: string[] = [];
      for (const e of arr(payload.entry)) {
        const entry = obj(e);
        const waba = typeof entry.id === "string" ? entry.id : "";
        const time = typeof entry.time === "number" ? entry.time : undefined;
        for (const c of arr(entry.changes)) {
          const change = obj(c);
          const value = obj(change.value);
          const pn = obj(value.metadata).phone_number_id;
          const dn = value.display_phone_number;
          const found =
            typeof pn === "string"
              ? instancesOf("pn", pn)
              : typeof dn === "string"
                ? instancesOf("dn", dn.replace(/\D/g, ""))
                : waba
                  ? instancesOf("waba", waba)
                  : [];
          const targets = (Array.isArray(found) ? found : await found) ?? [];
          if (targets.length === 0) {
            unknown++;
            if (unknownIds.length < 20) {
              unknownIds.push(typeof pn === "string" ? pn : typeof dn === "string" ? dn : waba || "(nenhum id)");
            }
          }
          for (const id of targets) {
            const list = byInstance.get(id) ?? [];
            list.push({ field: String(change.field ?? ""), value: change.value, ...(time ? { time } : {}) });
            byInstance.set(id, list);
          }
        }
      }
      if (unknown > 0) {
        counter?.inc({ outcome: "unknown_number" }, unknown);
        req.log.info(
          { unknown, ids: unknownIds, known: byInstance.size },
          byInstance.size === 0
            ? "operator webhook for no known number: acknowledged and dropped"
            : "operator webhook: changes of unknown numbers dropped beside known ones",
        );
      }
      if (byInstance.size === 0) return reply.code(200).send("EVENT_RECEIVED");
      const accepted: { instanceId: string; changes: Change[] }[] = [];
      for (const [instanceId, changes] of byInstance) {
        const known = secretOf(instanceId);
        const secret = typeof known === "string" || known === null ? known : await known;
        if (secret && hubSignatureMatches(signature, raw, secret)) accepted.push({ instanceId, changes });
      }
      if (accepted.length === 0) {
        return refuse("operator webhook with a bad signature: refused", { instances: [...byInstance.keys()] });
      }
      if (accepted.length < byInstance.size) {
        req.log.warn("operator webhook: changes of instances whose secret does not verify it were dropped");
      }
      counter?.inc(
        { outcome: "accepted" },
        accepted.reduce((n, a) => n + a.changes.length, 0),
      );
      // The common case, every change one instance's: the body as received (nothing re-serialized).
      const whole = unknown === 0 && byInstance.size === 1 && accepted.length === 1;
      await platform.cloudInbox.enqueue(
        whole ? [{ instanceId: accepted[0]!.instanceId, body: raw.toString("utf8") }] : accepted,
      );
      return reply.code(200).send("EVENT_RECEIVED");
    });
  });
}
