// Labels on the simulated network (spec 4.7; docs/simnet.md "Labels"): the wire operations of a
// linked device (list, create, edit, delete, a chat's labels, a label's chats, a chat's whole set)
// and the control API, with which a test acts as the phone (its own label changes, tagging chats)
// or makes an account personal (labels refused) or business (the default).
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { Account } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import { type OpDef, openOp, parseBody } from "../wire/op-kit.ts";
import type { SimnetArea } from "./area.ts";
import {
  bookOf,
  chatKeyOf,
  chatLabels,
  chatView,
  createLabel,
  deleteLabel,
  editLabel,
  isBusiness,
  labelsOf,
  labelView,
  PALETTE_SIZE,
  requireLabel,
  type SimLabel,
  setBusiness,
  setChatLabels,
  tag,
  untag,
} from "./labels-model.ts";

const labelId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "label id");
const name = z.string().trim().min(1).max(100);
const color = z
  .number()
  .int()
  .min(0)
  .max(PALETTE_SIZE - 1);
const chatId = z.string().min(1).max(200);

const ops: Record<string, OpDef> = {
  "labels.list": openOp(z.object({}), ({ state, acc }) => labelsOf(bookOf(state, acc)).map(labelView)),
  "labels.create": openOp(z.object({ name, color: color.optional() }), ({ state, acc }, a) =>
    labelView(createLabel(state, acc, a)),
  ),
  "labels.update": openOp(z.object({ id: labelId, name, color: color.optional() }), ({ state, acc }, a) =>
    labelView(editLabel(state, acc, a.id, { name: a.name, ...(a.color !== undefined ? { color: a.color } : {}) })),
  ),
  "labels.delete": openOp(z.object({ id: labelId }), ({ state, acc }, a) => {
    deleteLabel(state, acc, a.id);
    return {};
  }),
  "labels.chat-labels": openOp(z.object({ chatId }), ({ state, acc }, a) => {
    const book = bookOf(state, acc);
    return chatLabels(book, chatKeyOf(state, acc, a.chatId)).map(labelView);
  }),
  "labels.set-chat-labels": openOp(z.object({ chatId, labelIds: z.array(labelId).max(100) }), ({ state, acc }, a) => {
    bookOf(state, acc);
    return setChatLabels(state, acc, chatKeyOf(state, acc, a.chatId), a.labelIds).map(labelView);
  }),
  /** The chats a label tags, as the account sees them (people by number, or by lid while hidden). */
  "labels.label-chats": openOp(z.object({ id: labelId }), ({ state, acc }, a) => {
    const label = requireLabel(bookOf(state, acc), a.id);
    return [...label.chats].map((key) => chatView(state, key, acc));
  }),
};

// --- control API: the phone's side ------------------------------------------------------------

function adminView(state: SimnetState, acc: Account) {
  if (!isBusiness(state, acc)) return { phone: acc.phone, business: false, labels: [] };
  return {
    phone: acc.phone,
    business: true,
    labels: labelsOf(bookOf(state, acc)).map((l: SimLabel) => ({
      ...labelView(l),
      predefinedId: l.predefinedId,
      // Numbers shown (the control API sees through privacy ids).
      chats: [...l.chats],
    })),
  };
}

function control(app: FastifyInstance, state: SimnetState): void {
  const params = z.object({ phone: z.string(), labelId: labelId.optional(), chatId: chatId.optional() });
  const of = (req: FastifyRequest) => {
    const p = parseBody(params, req.params);
    return { acc: state.requireAccount(p.phone), labelId: p.labelId ?? "", chatId: p.chatId ?? "" };
  };

  /** The account's labels and the chats each tags; `business: false` for a personal account. */
  app.get("/simnet/phones/:phone/labels", async (req) => adminView(state, of(req).acc));

  /** Business (the default of every account) or personal: a personal account's label operations are refused. */
  app.put("/simnet/phones/:phone/business", async (req) => {
    const { phone } = parseBody(z.object({ phone: z.string() }), req.params);
    const { business } = parseBody(z.object({ business: z.boolean() }), req.body);
    const acc = state.ensureAccount(phone);
    setBusiness(state, acc, business);
    return adminView(state, acc);
  });

  /** The phone creates a label (its devices get `label.upsert`). */
  app.post("/simnet/phones/:phone/labels", async (req, reply) => {
    const { acc } = of(req);
    const body = parseBody(z.object({ name, color: color.optional() }), req.body);
    return reply.code(201).send(labelView(createLabel(state, acc, body)));
  });

  /** The phone renames or recolors a label. */
  app.patch("/simnet/phones/:phone/labels/:labelId", async (req) => {
    const { acc, labelId: id } = of(req);
    const body = parseBody(z.object({ name: name.optional(), color: color.optional() }), req.body);
    return labelView(editLabel(state, acc, id, body));
  });

  /** The phone deletes a label (its chats are untagged first). */
  app.delete("/simnet/phones/:phone/labels/:labelId", async (req) => {
    const { acc, labelId: id } = of(req);
    deleteLabel(state, acc, id);
    return {};
  });

  /** The phone tags a chat (a number, `@c.us`, `@lid` or a group it is in). */
  app.put("/simnet/phones/:phone/labels/:labelId/chats/:chatId", async (req) => {
    const { acc, labelId: id, chatId: chat } = of(req);
    const label = requireLabel(bookOf(state, acc), id);
    tag(state, acc, label, chatKeyOf(state, acc, chat));
    return { labelId: label.id, chats: [...label.chats] };
  });

  /** The phone untags a chat. */
  app.delete("/simnet/phones/:phone/labels/:labelId/chats/:chatId", async (req) => {
    const { acc, labelId: id, chatId: chat } = of(req);
    const label = requireLabel(bookOf(state, acc), id);
    untag(state, acc, label, chatKeyOf(state, acc, chat));
    return { labelId: label.id, chats: [...label.chats] };
  });
}

export const labelsArea: SimnetArea = { name: "labels", ops, control };
