import { createHash } from "node:crypto";
import type { EventKind } from "@gw/contracts";
import { chatOfUser } from "./ids.ts";
import { type CloudItem, echoesChange, messagesChange } from "./inbound.ts";
import { arr, type Obj, obj } from "./values.ts";

/**
 * Every webhook field of the operator (reference cloud-api.md §3.6–3.8) → what the gateway does
 * with it: messages, acks and the spec's official events (spec 6.2). Payload shapes are ours
 * (the spec leaves them open) and documented in docs/official.md: camelCase names, the
 * operator's values as given, `timestamp` in unix seconds, `raw` the operator's value.
 */

export type CloudEventItem = {
  kind: "event";
  key: string;
  event: EventKind;
  payload: Record<string, unknown>;
  /** Also logged as a warning (the operator reported an error), with these fields. */
  warn?: Record<string, unknown>;
};
/** Messages of the past for the read model only; `payload`: the `history.sync` event, if any. */
export type CloudHistoryItem = {
  kind: "history";
  key: string;
  items: CloudItem[];
  payload: Record<string, unknown> | null;
};
export type CloudChangeItem = CloudItem | CloudEventItem | CloudHistoryItem;

const strOrNull = (v: unknown) => (typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : null);
const nowS = () => Math.floor(Date.now() / 1000);

/** A change's dedupe key: its field and a hash of its value (the operator retries the same bytes). */
const keyOf = (field: string, value: unknown) =>
  `${field}:${createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 32)}`;

const camel = (k: string) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
/** The operator's object with camelCase keys at its top level (nested objects as given). */
function camelTop(v: Obj, skip: string[] = []): Obj {
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => !skip.includes(k))
      .map(([k, x]) => [camel(k), x]),
  );
}

function event(field: string, value: unknown, kind: EventKind, payload: Obj): CloudEventItem {
  return { kind: "event", key: keyOf(field, value), event: kind, payload: { ...payload, raw: value } };
}

function templateRef(v: Obj) {
  return {
    templateId: strOrNull(v.message_template_id),
    name: strOrNull(v.message_template_name),
    language: strOrNull(v.message_template_language),
  };
}

/** One `changes[]` entry (its field and value, and the entry's `time` when given). */
export function mapChange(field: string, value: unknown, time?: number): CloudChangeItem[] {
  const v = obj(value);
  const timestamp = typeof time === "number" && time > 0 ? time : nowS();
  const errors = valueErrors(field, value, timestamp);
  switch (field) {
    case "messages":
      return [...messagesChange(value), ...identityChanges(value, timestamp), ...errors];
    case "smb_message_echoes":
      return [...echoesChange(value), ...errors];
    case "message_template_status_update":
      return [
        event(field, value, "template.status", {
          ...templateRef(v),
          status: strOrNull(v.event),
          reason: strOrNull(v.reason),
          category: strOrNull(v.message_template_category),
          ...(v.rejection_info ? { rejectionInfo: v.rejection_info } : {}),
          ...(v.disable_info ? { disableInfo: v.disable_info } : {}),
          ...(v.other_info ? { otherInfo: v.other_info } : {}),
          timestamp,
        }),
      ];
    case "message_template_quality_update":
      return [
        event(field, value, "template.quality", {
          ...templateRef(v),
          previousScore: strOrNull(v.previous_quality_score),
          newScore: strOrNull(v.new_quality_score),
          timestamp,
        }),
      ];
    case "template_category_update":
      return [
        event(field, value, "template.category", {
          ...templateRef(v),
          previousCategory: strOrNull(v.previous_category),
          newCategory: strOrNull(v.new_category),
          correctCategory: strOrNull(v.correct_category),
          // Announced 24 h ahead (`correct_category` and the time it changes) or done (`previous_category`).
          impending: v.correct_category !== undefined && v.previous_category === undefined,
          categoryUpdateAt: typeof v.category_update_timestamp === "number" ? v.category_update_timestamp : null,
          timestamp,
        }),
      ];
    case "phone_number_quality_update":
      return [
        event(field, value, "phone.quality", {
          displayPhoneNumber: strOrNull(v.display_phone_number),
          event: strOrNull(v.event),
          currentLimit: strOrNull(v.current_limit),
          oldLimit: strOrNull(v.old_limit),
          maxDailyConversationsPerBusiness: strOrNull(v.max_daily_conversations_per_business),
          timestamp,
        }),
      ];
    case "phone_number_name_update":
      return [
        event(field, value, "phone.name", {
          displayPhoneNumber: strOrNull(v.display_phone_number),
          decision: strOrNull(v.decision),
          requestedVerifiedName: strOrNull(v.requested_verified_name),
          rejectionReason: strOrNull(v.rejection_reason),
          timestamp,
        }),
      ];
    case "account_update":
      return [
        event(field, value, "account.update", { event: strOrNull(v.event), ...camelTop(v, ["event"]), timestamp }),
      ];
    case "account_alerts": {
      const alert = obj(v.alert_info);
      return [
        event(field, value, "account.alert", {
          entityType: strOrNull(v.entity_type),
          entityId: strOrNull(v.entity_id),
          alertSeverity: strOrNull(alert.alert_severity),
          alertStatus: strOrNull(alert.alert_status),
          alertType: strOrNull(alert.alert_type),
          alertDescription: strOrNull(alert.alert_description),
          timestamp,
        }),
      ];
    }
    case "user_preferences":
      return arr(v.user_preferences).map((p) => {
        const o = obj(p);
        const waId = strOrNull(o.wa_id);
        return event(field, p, "contact.marketing", {
          chatId: chatOfUser(waId, strOrNull(o.user_id)),
          phone: waId ?? "",
          category: strOrNull(o.category),
          value: strOrNull(o.value),
          detail: strOrNull(o.detail),
          timestamp: typeof o.timestamp === "number" ? o.timestamp : timestamp,
        });
      });
    case "smb_app_state_sync":
      return [
        event(field, value, "contact.sync", {
          source: "smb_app_state_sync",
          contacts: arr(v.state_sync).map((s) => {
            const o = obj(s);
            const c = obj(o.contact);
            const phone = strOrNull(c.phone_number)?.replace(/\D/g, "") ?? null;
            return {
              action: strOrNull(o.action),
              chatId: phone ? `${phone}@c.us` : null,
              phone: phone ?? "",
              fullName: strOrNull(c.full_name),
              firstName: strOrNull(c.first_name),
              timestamp: Number(obj(o.metadata).timestamp) || timestamp,
            };
          }),
          timestamp,
        }),
      ];
    case "history":
      return [...historyChange(value, timestamp), ...errors];
    case "user_id_update":
      // A customer's business-scoped id changed. The reference (§3.7) names the field and no
      // payload, so nothing of it is interpreted: the operator's value goes as given in `raw`.
      return [event(field, value, "contact.sync", { source: "user_id_update", contacts: [], timestamp })];
    default:
      return errors;
  }
}

/**
 * Errors the operator reports for a whole change (`value.errors[]`, reference §2.1, §3.4: e.g.
 * 131000 "Unsupported webhook payload", 130429 throughput), not tied to one message: each is an
 * `account.alert` (`alertType: "OPERATOR_ERROR"`, the error in `error`) and a warning in the log.
 */
function valueErrors(field: string, value: unknown, timestamp: number): CloudEventItem[] {
  const v = obj(value);
  const phoneNumberId = strOrNull(obj(v.metadata).phone_number_id);
  return arr(v.errors).map((e, i) => {
    const o = obj(e);
    const code = typeof o.code === "number" ? o.code : null;
    const title = strOrNull(o.title) ?? strOrNull(o.message) ?? "erro do operador";
    const details = strOrNull(obj(o.error_data).details);
    return {
      kind: "event",
      // The change's bytes and the error's place in it: the operator's retry of it is a duplicate.
      key: keyOf(`${field}:errors:${i}`, value),
      event: "account.alert",
      payload: {
        entityType: "PHONE_NUMBER",
        entityId: phoneNumberId,
        alertSeverity: "WARNING",
        alertStatus: "ACTIVE",
        alertType: "OPERATOR_ERROR",
        alertDescription: details ? `${title}: ${details}` : title,
        error: { code, title, message: strOrNull(o.message) ?? title, details, href: strOrNull(o.href) },
        field,
        timestamp,
        raw: e,
      },
      warn: { field, code, title, details },
    };
  });
}

/**
 * A customer changed number (`system` message `user_changed_number`, reference §3.4: the new
 * number in `system.wa_id`, the old one in `from`): besides the message itself (type `unknown`,
 * its text), a `contact.sync` says which chat is now which.
 */
function identityChanges(value: unknown, timestamp: number): CloudEventItem[] {
  const out: CloudEventItem[] = [];
  for (const raw of arr(obj(value).messages)) {
    const m = obj(raw);
    const system = obj(m.system);
    if (m.type !== "system" || system.type !== "user_changed_number") continue;
    const old = strOrNull(m.from);
    const next = strOrNull(system.wa_id);
    out.push(
      event("system", raw, "contact.sync", {
        source: "system",
        contacts: [
          {
            action: "user_changed_number",
            chatId: old ? `${old}@c.us` : null,
            phone: old ?? "",
            newChatId: next ? `${next}@c.us` : null,
            newPhone: next ?? "",
            text: strOrNull(system.body),
            timestamp: Number(m.timestamp) || timestamp,
          },
        ],
        timestamp,
      }),
    );
  }
  return out;
}

/**
 * Coexistence history: each chunk's messages land in the read model (no message events: they are
 * the past), and one `history.sync` event says what arrived.
 */
function historyChange(value: unknown, timestamp: number): CloudChangeItem[] {
  const out: CloudChangeItem[] = [];
  const followUps = historyMedia(value);
  if (followUps) out.push(followUps);
  for (const h of arr(obj(value).history)) {
    const chunk = obj(h);
    const meta = obj(chunk.metadata);
    const errors = arr(chunk.errors);
    const items: CloudItem[] = [];
    const threads = arr(chunk.threads).map((t) => {
      const thread = obj(t);
      const id = strOrNull(thread.id);
      const messages = arr(thread.messages);
      for (const m of messages) {
        const mo = obj(m);
        const fromMe = id !== null && strOrNull(mo.from) !== id;
        const value = fromMe ? { message_echoes: [{ ...mo, to: mo.to ?? id }] } : { messages: [mo] };
        items.push(...(fromMe ? echoesChange(value) : messagesChange(value)).map((i) => ({ ...i, key: `h:${i.key}` })));
      }
      return { chatId: id ? `${id.replace(/\D/g, "")}@c.us` : null, messages: messages.length };
    });
    out.push({
      kind: "history",
      key: keyOf("history", h),
      items,
      payload: {
        phase: typeof meta.phase === "number" ? meta.phase : null,
        chunkOrder: typeof meta.chunk_order === "number" ? meta.chunk_order : null,
        progress: typeof meta.progress === "number" ? meta.progress : null,
        threads,
        ...(errors.length ? { errors } : {}),
        timestamp,
      },
    });
  }
  return out;
}

/**
 * The media of history messages that arrived as `media_placeholder`: separate `history` changes
 * whose value has a normal `messages[]` (reference §3.6), each replacing its placeholder in the
 * read model (same message id; the media id downloadable). A message the business sent (`from`
 * its own number) needs `to` to name its chat. No event: the chunk's `history.sync` was sent.
 */
function historyMedia(value: unknown): CloudHistoryItem | null {
  const v = obj(value);
  const messages = arr(v.messages);
  if (messages.length === 0) return null;
  const own = strOrNull(obj(v.metadata).display_phone_number)?.replace(/\D/g, "") ?? null;
  const items: CloudItem[] = [];
  for (const m of messages) {
    const mo = obj(m);
    const fromMe = own !== null && strOrNull(mo.from)?.replace(/\D/g, "") === own;
    const mapped = fromMe
      ? echoesChange({ message_echoes: [mo] })
      : messagesChange({ ...v, messages: [mo], statuses: [] });
    items.push(...mapped.map((i) => ({ ...i, key: `hm:${i.key}:${strOrNull(mo.type) ?? ""}` })));
  }
  return { kind: "history", key: keyOf("history:media", value), items, payload: null };
}
