// `POST /{version}/{phone-number-id}/messages` (reference cloud-api.md §1): validation of every
// message type with the operator's limits, the success body, mark-as-read and typing.
import { GraphFault } from "./graph-errors.ts";
import type { BusinessNumber, CloudMockState, Customer, Template } from "./state.ts";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : null);
const bad = (details: string, code = 100) => new GraphFault(code, details);

function text(o: Obj, key: string, max: number, required = true): string | undefined {
  const v = o[key];
  if (v === undefined) {
    if (required) throw bad(`${key} is required`, 131008);
    return undefined;
  }
  if (typeof v !== "string") throw bad(`${key} must be a string`);
  if (v.length > max) throw bad(`${key} is too long: at most ${max} characters`);
  if (required && v.length === 0) throw bad(`${key} must not be empty`, 131008);
  return v;
}

/** A media object: an uploaded media id of this number, or a link. */
function media(state: CloudMockState, n: BusinessNumber, type: string, o: Obj): void {
  const id = o.id;
  const link = o.link;
  if ((id === undefined) === (link === undefined)) throw bad(`${type}: exactly one of id or link`, 131009);
  if (id !== undefined) {
    const m = typeof id === "string" ? state.media.get(id) : undefined;
    if (!m || m.phoneNumberId !== n.phoneNumberId) throw bad(`${type}.id is not a media id of this number`, 131053);
  } else if (typeof link !== "string" || !/^https?:\/\//.test(link)) {
    throw bad(`${type}.link must be an http(s) URL`, 131009);
  }
  if (type !== "audio" && type !== "sticker") text(o, "caption", 1024, false);
  if (type === "document") text(o, "filename", 240, false);
}

function interactive(o: Obj): void {
  const kind = o.type;
  const body = obj(o.body);
  if (o.header !== undefined) {
    const h = obj(o.header);
    if (!h) throw bad("interactive.header must be an object");
    if (h.type === "text") text(h, "text", 60);
    else if (kind === "list") throw bad("interactive list headers are text only");
  }
  if (o.footer !== undefined) text(obj(o.footer) ?? {}, "text", 60);
  const action = obj(o.action);
  if (!action) throw bad("interactive.action is required", 131008);
  if (kind === "button") {
    if (!body) throw bad("interactive.body is required", 131008);
    text(body, "text", 1024);
    const buttons = action.buttons;
    if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > 3) throw bad("1 to 3 buttons");
    const titles = new Set<string>();
    for (const b of buttons) {
      const reply = obj(obj(b)?.reply);
      if (!reply || obj(b)?.type !== "reply") throw bad("buttons[].type must be reply with a reply object");
      text(reply, "id", 256);
      const title = text(reply, "title", 20)!;
      if (titles.has(title)) throw bad("button titles must be unique");
      titles.add(title);
    }
    return;
  }
  if (kind === "list") {
    if (!body) throw bad("interactive.body is required", 131008);
    text(body, "text", 4096);
    text(action, "button", 20);
    const sections = action.sections;
    if (!Array.isArray(sections) || sections.length < 1 || sections.length > 10) throw bad("1 to 10 sections");
    let rows = 0;
    for (const s of sections) {
      const so = obj(s);
      if (!so) throw bad("sections[] must be objects");
      text(so, "title", 24, sections.length > 1);
      if (!Array.isArray(so.rows) || so.rows.length < 1) throw bad("each section needs rows");
      for (const r of so.rows) {
        const ro = obj(r) ?? {};
        text(ro, "id", 200);
        text(ro, "title", 24);
        text(ro, "description", 72, false);
        rows++;
      }
    }
    if (rows > 10) throw bad("at most 10 rows across all sections");
    return;
  }
  throw bad(`interactive.type ${String(kind)} is not supported by this mock`, 131009);
}

/** `{{1}}` or `{{name}}` variables of a template's BODY. */
function bodyVariables(t: Template): number {
  const body = t.components.find((c) => String(c.type).toUpperCase() === "BODY");
  const matches = typeof body?.text === "string" ? body.text.match(/\{\{\s*[\w]+\s*\}\}/g) : null;
  return new Set(matches ?? []).size;
}

function template(state: CloudMockState, n: BusinessNumber, o: Obj): Template {
  const name = text(o, "name", 512)!;
  const code = obj(o.language)?.code;
  if (typeof code !== "string") throw bad("template.language.code is required", 131008);
  const t = [...state.templates.values()].find((x) => x.wabaId === n.wabaId && x.name === name && x.language === code);
  if (!t || (t.status !== "APPROVED" && t.status !== "PAUSED" && t.status !== "DISABLED")) {
    throw new GraphFault(132001, `template name (${name}) does not exist in ${code}`);
  }
  if (t.status === "PAUSED") throw new GraphFault(132015, `template ${name} is paused`);
  if (t.status === "DISABLED") throw new GraphFault(132016, `template ${name} is disabled`);
  const components = Array.isArray(o.components) ? o.components.map((c) => obj(c) ?? {}) : [];
  const body = components.find((c) => c.type === "body");
  const given = Array.isArray(body?.parameters) ? body.parameters.length : 0;
  const wanted = bodyVariables(t);
  if (given !== wanted) {
    throw new GraphFault(132000, `body: expected number of params (${wanted}) does not match received (${given})`);
  }
  return t;
}

export interface Accepted {
  kind: "message";
  id: string;
  to: string;
  customer: Customer;
  type: string;
  template: Template | null;
  body: Obj;
}

/** A message request validated; throws the operator's errors. Mark-as-read answers `{kind: "read"}`. */
export function validateMessage(
  state: CloudMockState,
  n: BusinessNumber,
  raw: unknown,
): Accepted | { kind: "read"; messageId: string; typing: boolean } {
  const b = obj(raw);
  if (!b) throw bad("the body must be a JSON object");
  if (b.messaging_product !== "whatsapp") throw bad("messaging_product must be whatsapp", 131008);
  if (b.status === "read") {
    const messageId = text(b, "message_id", 512)!;
    const known = [...n.users.values()].some((c) => c.inbound.has(messageId));
    if (!known) throw bad(`message_id ${messageId} is not a message this number received`);
    const typing = b.typing_indicator !== undefined;
    if (typing && obj(b.typing_indicator)?.type !== "text") throw bad("typing_indicator.type must be text");
    return { kind: "read", messageId, typing };
  }
  const recipient = typeof b.recipient === "string" ? b.recipient : null;
  const to = typeof b.to === "string" ? b.to.replace(/^\+/, "") : null;
  let customer: Customer | undefined;
  if (to) {
    if (!/^\d{6,20}$/.test(to)) throw bad("to must be a phone number", 131009);
    customer = state.recipient(n, to);
  } else if (recipient) {
    customer = state.customerByUserId(n, recipient);
    if (!customer) throw bad(`recipient ${recipient} is not a known user id`, 131009);
  } else {
    throw bad("to or recipient is required", 131008);
  }
  if (customer.waId === n.displayPhoneNumber) throw new GraphFault(131021, "Recipient cannot be sender");
  if (typeof b.biz_opaque_callback_data === "string" && b.biz_opaque_callback_data.length > 512) {
    throw bad("biz_opaque_callback_data: at most 512 characters");
  }
  const type = typeof b.type === "string" ? b.type : "text";
  const content = type === "contacts" ? b.contacts : obj(b[type]);
  if (!content) throw bad(`${type} object is required`, 131008);
  let tpl: Template | null = null;
  switch (type) {
    case "text":
      text(content as Obj, "body", 4096);
      break;
    case "image":
    case "video":
    case "audio":
    case "document":
    case "sticker":
      media(state, n, type, content as Obj);
      break;
    case "location": {
      const l = content as Obj;
      if (typeof l.latitude !== "number" || typeof l.longitude !== "number")
        throw bad("latitude and longitude are numbers");
      break;
    }
    case "contacts":
      if (!Array.isArray(content) || content.length === 0) throw bad("contacts must be a non-empty array");
      for (const c of content)
        if (typeof obj(obj(c)?.name)?.formatted_name !== "string") throw bad("name.formatted_name is required", 131008);
      break;
    case "reaction": {
      const r = content as Obj;
      text(r, "message_id", 512);
      if (typeof r.emoji !== "string") throw bad("reaction.emoji must be a string");
      break;
    }
    case "interactive":
      interactive(content as Obj);
      break;
    case "template":
      tpl = template(state, n, content as Obj);
      break;
    default:
      throw new GraphFault(131051, `message type ${type} is not supported`);
  }
  return { kind: "message", id: state.wamid(), to: customer.waId, customer, type, template: tpl, body: b };
}
