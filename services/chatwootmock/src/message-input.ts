// The body of `POST …/conversations/:id/messages`, as JSON or as multipart/form-data (files under
// `attachments[]`), read the way Rails and Messages::MessageBuilder read it: form values are strings
// cast like ActiveModel does, `content_attributes` may be a JSON string (or `content_attributes[key]`
// fields), and an unknown enum value is the ArgumentError Chatwoot turns into a 422.
import { parseMultipart } from "@gw/cloudmock/multipart";
import type { FastifyRequest } from "fastify";
import type { MessageInput, UploadedFile } from "./desk.ts";
import { couldNotCreate } from "./errors.ts";
import { MESSAGE_TYPES, type Obj } from "./model.ts";

const CONTENT_TYPES = [
  "text",
  "input_text",
  "input_textarea",
  "input_email",
  "input_select",
  "cards",
  "form",
  "article",
  "incoming_email",
  "input_csat",
  "integrations",
  "sticker",
  "voice_call",
];
const FALSE_VALUES = new Set(["false", "0", "f", "off", "", "FALSE", "F", "OFF"]);

/** ActiveModel's boolean cast. */
export const castBoolean = (v: unknown): boolean =>
  !(v === undefined || v === null || v === false || v === 0 || (typeof v === "string" && FALSE_VALUES.has(v)));

const text = (v: unknown): string | null =>
  v === undefined || v === null
    ? null
    : typeof v === "string"
      ? v
      : typeof v === "object"
        ? JSON.stringify(v)
        : String(v);

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The request's fields and uploaded files, whatever its encoding. */
export function readBody(req: FastifyRequest): { fields: Obj; files: UploadedFile[] } {
  if (!Buffer.isBuffer(req.body)) return { fields: isObj(req.body) ? req.body : {}, files: [] };
  const parts = parseMultipart(req.body, String(req.headers["content-type"] ?? ""));
  if (!parts) throw couldNotCreate("the multipart/form-data body could not be read");
  const fields: Obj = {};
  const files: UploadedFile[] = [];
  for (const p of parts) {
    if (p.filename !== null) {
      files.push({
        filename: p.filename || "file",
        mimetype: p.contentType ?? "application/octet-stream",
        data: p.data,
      });
      continue;
    }
    const value = p.data.toString("utf8");
    const nested = /^([^[\]]+)\[([^[\]]*)\]$/.exec(p.name);
    if (nested?.[2]) {
      const inner = isObj(fields[nested[1]!]) ? (fields[nested[1]!] as Obj) : {};
      inner[nested[2]] = value;
      fields[nested[1]!] = inner;
    } else if (nested) {
      fields[nested[1]!] = [...(Array.isArray(fields[nested[1]!]) ? (fields[nested[1]!] as unknown[]) : []), value];
    } else {
      fields[p.name] = value;
    }
  }
  return { fields, files };
}

/** MessageBuilder#content_attributes: an object, a JSON string of one, or nothing. */
function contentAttributes(v: unknown): Obj {
  if (isObj(v)) return v;
  if (typeof v !== "string") return {};
  try {
    const parsed: unknown = JSON.parse(v);
    return isObj(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

export function messageInput(fields: Obj, files: UploadedFile[]): MessageInput {
  const rawType = fields.message_type ?? "outgoing";
  const messageType =
    typeof rawType === "number" ? rawType : MESSAGE_TYPES.indexOf(String(rawType) as (typeof MESSAGE_TYPES)[number]);
  if (!Number.isInteger(messageType) || messageType < 0 || messageType >= MESSAGE_TYPES.length) {
    throw couldNotCreate(`'${String(rawType)}' is not a valid message_type`);
  }
  const contentType = text(fields.content_type) ?? "text";
  if (!CONTENT_TYPES.includes(contentType)) throw couldNotCreate(`'${contentType}' is not a valid content_type`);
  // Direct-upload signed blob ids (strings under `attachments`) name blobs this mock never stored.
  const signedIds = fields.attachments;
  if ((Array.isArray(signedIds) && signedIds.length > 0) || (typeof signedIds === "string" && signedIds !== "")) {
    throw couldNotCreate("ActiveSupport::MessageVerifier::InvalidSignature");
  }
  return {
    content: text(fields.content),
    messageType,
    contentType,
    private: castBoolean(fields.private),
    sourceId: text(fields.source_id),
    contentAttributes: contentAttributes(fields.content_attributes),
    files,
  };
}
