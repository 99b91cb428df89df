import {
  ApiError,
  type OutboundContent,
  type OutboundHeader,
  type OutboundMedia,
  type SendOptions,
} from "@gw/contracts";
import { recipientOf, wamidOf } from "./ids.ts";

/**
 * The provider contract's content → the operator's message body (reference cloud-api.md §1):
 * the common envelope, then one object named after the type. Media go by the id of an upload
 * (`upload` answers it: the bytes were checked against the operator's limits before).
 */

type Upload = (media: OutboundMedia) => Promise<string>;
export type GraphMessage = Record<string, unknown> & { type: string };

const notSupported = (what: string) =>
  new ApiError("not_supported_by_provider", `${what} não existe no gateway oficial.`);

async function headerOf(h: OutboundHeader, upload: Upload): Promise<Record<string, unknown>> {
  if ("text" in h) return { type: "text", text: h.text };
  if ("location" in h) return { type: "location", location: h.location };
  const media: Record<string, unknown> = { id: await upload(h.media) };
  if (h.mediaType === "document" && h.media.filename) media.filename = h.media.filename;
  return { type: h.mediaType, [h.mediaType]: media };
}

/** A template header's parameter (the header component's `parameters[0]`). */
async function headerParameter(h: OutboundHeader, upload: Upload): Promise<Record<string, unknown>> {
  if ("text" in h) return { type: "text", text: h.text };
  return headerOf(h, upload);
}

async function templateComponents(
  c: Extract<OutboundContent, { type: "template" }>,
  upload: Upload,
): Promise<Record<string, unknown>[]> {
  if (c.components) return c.components;
  const out: Record<string, unknown>[] = [];
  if (c.header) out.push({ type: "header", parameters: [await headerParameter(c.header, upload)] });
  if (c.body) {
    const parameters = Array.isArray(c.body)
      ? c.body.map((text) => ({ type: "text", text }))
      : Object.entries(c.body).map(([name, text]) => ({ type: "text", parameter_name: name, text }));
    if (parameters.length > 0) out.push({ type: "body", parameters });
  }
  for (const b of c.buttons ?? []) {
    const parameter =
      b.type === "quick_reply"
        ? { type: "payload", payload: b.value }
        : b.type === "url"
          ? { type: "text", text: b.value }
          : { type: "coupon_code", coupon_code: b.value };
    out.push({ type: "button", sub_type: b.type, index: String(b.index ?? 0), parameters: [parameter] });
  }
  return out;
}

async function body(c: OutboundContent, upload: Upload): Promise<GraphMessage> {
  switch (c.type) {
    case "text":
      return { type: "text", text: { body: c.text, preview_url: c.linkPreview === true } };
    case "image":
    case "video":
    case "sticker": {
      const media: Record<string, unknown> = { id: await upload(c.media) };
      if (c.type !== "sticker" && c.caption) media.caption = c.caption;
      return { type: c.type, [c.type]: media };
    }
    case "document":
      return {
        type: "document",
        document: {
          id: await upload(c.media),
          ...(c.caption ? { caption: c.caption } : {}),
          ...(c.media.filename ? { filename: c.media.filename } : {}),
        },
      };
    case "voice":
      return { type: "audio", audio: { id: await upload(c.media), voice: true } };
    case "audio":
      return { type: "audio", audio: { id: await upload(c.media) } };
    case "location":
      return {
        type: "location",
        location: {
          latitude: c.latitude,
          longitude: c.longitude,
          ...(c.name ? { name: c.name } : {}),
          ...(c.address ? { address: c.address } : {}),
        },
      };
    case "contacts":
      return {
        type: "contacts",
        contacts: c.contacts.map((x) => {
          const digits = (x.whatsappId ?? x.phoneNumber).replace(/\D/g, "");
          return {
            name: { formatted_name: x.fullName, first_name: x.fullName.split(" ")[0] ?? x.fullName },
            phones: [{ phone: x.phoneNumber, type: "CELL", ...(x.whatsappId ? { wa_id: digits } : {}) }],
            ...(x.organization ? { org: { company: x.organization } } : {}),
          };
        }),
      };
    case "reaction":
      return { type: "reaction", reaction: { message_id: wamidOf(c.targetId), emoji: c.emoji } };
    case "list":
      return {
        type: "interactive",
        interactive: {
          type: "list",
          // The spec's title is the operator's header when a description gives the body, else the body.
          ...(c.description ? { header: { type: "text", text: c.title.slice(0, 60) } } : {}),
          body: { text: c.description ?? c.title },
          ...(c.footer ? { footer: { text: c.footer } } : {}),
          action: {
            button: c.button,
            sections: c.sections.map((s) => ({
              title: s.title,
              rows: s.rows.map((r) => ({
                id: r.rowId,
                title: r.title,
                ...(r.description ? { description: r.description } : {}),
              })),
            })),
          },
        },
      };
    case "buttons":
      return {
        type: "interactive",
        interactive: {
          type: "button",
          ...(c.header ? { header: await headerOf(c.header, upload) } : {}),
          body: { text: c.text },
          ...(c.footer ? { footer: { text: c.footer } } : {}),
          action: { buttons: c.buttons.map((b) => ({ type: "reply", reply: { id: b.id, title: b.title } })) },
        },
      };
    case "template":
      return {
        type: "template",
        template: {
          name: c.name,
          language: { code: c.language },
          ...(await templateComponents(c, upload).then((components) => (components.length ? { components } : {}))),
        },
      };
    case "link_preview":
      return {
        type: "text",
        text: { body: c.text.includes(c.preview.url) ? c.text : `${c.text}\n${c.preview.url}`, preview_url: true },
      };
    case "poll":
    case "poll_vote":
      throw notSupported("Enquete");
    case "event":
      throw notSupported("Evento de calendário");
    case "edit":
      throw notSupported("Editar mensagens");
    case "revoke":
      throw notSupported("Apagar mensagens para todos");
  }
}

/** The whole request of `POST /{phone-number-id}/messages`. */
export async function graphMessage(
  chatId: string,
  content: OutboundContent,
  options: SendOptions,
  upload: Upload,
): Promise<Record<string, unknown>> {
  if (options.forwarded) throw notSupported("Encaminhar mensagens");
  if (options.mentions?.length) throw notSupported("Menções");
  const message = await body(content, upload);
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    ...recipientOf(chatId),
    // Reactions name their message in the reaction object; a quote is the context.
    ...(options.quotedId && content.type !== "reaction" ? { context: { message_id: wamidOf(options.quotedId) } } : {}),
    ...message,
  };
}
