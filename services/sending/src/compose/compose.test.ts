// The compose table without a network or Redis: one composer per send route, and the checks both
// paths share (a queued send's precheck, the send's compose) refuse a request alike.
import { ApiError, type SendRequest, sendRoutes } from "@gw/contracts";
import type { MessageStore, StoredMessage } from "@gw/platform";
import { describe, expect, it } from "vitest";
import { COMPOSERS, type ComposeDeps, compose, precheck } from "./index.ts";

/** A message store that knows `known` (by network id) and nothing else. */
function depsWith(known: Record<string, StoredMessage> = {}): ComposeDeps {
  const messages = { get: async (_instanceId: string, id: string) => known[id] ?? null };
  return {
    messages: messages as unknown as MessageStore,
    media: { allowPrivate: false, maxBytes: 1_000_000, timeoutMs: 1_000 },
  };
}

const standard = { id: "icompose0001", kind: "standard" as const };
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (err: unknown) => err,
  );

it("has one composer for every send route", () => {
  expect(Object.keys(COMPOSERS).sort()).toEqual([...sendRoutes].sort());
});

describe("the checks both paths share", () => {
  const refused: [string, SendRequest, Record<string, string>][] = [
    [
      "a malformed quoted id",
      { route: "text", body: { chatId: "15550000001", text: "oi", reply_to: "not an id!" } },
      { reply_to: "id de mensagem inválido" },
    ],
    [
      '"all" mentioned outside a group',
      { route: "text", body: { chatId: "15550000001", text: "oi", mentions: ["all"] } },
      { mentions: '"all" só vale em grupos' },
    ],
    [
      "an event that ends before it starts",
      { route: "event", body: { chatId: "15550000001", event: { name: "x", startTime: 200, endTime: 100 } } },
      { "event.endTime": "endTime deve ser depois de startTime" },
    ],
    [
      "a forward of a message not kept",
      { route: "forward", body: { chatId: "15550000001", messageId: "3EB0AAAAAAAAAAAA" } },
      { messageId: "mensagem não encontrada (só se encaminham mensagens dos últimos 7 dias)" },
    ],
  ];
  for (const [what, req, details] of refused) {
    it(`refuse ${what} in compose and in precheck alike`, async () => {
      const composed = await errorOf(compose(standard, req, depsWith()));
      const prechecked = await errorOf(precheck(standard, req, depsWith()));
      expect(composed).toBeInstanceOf(ApiError);
      expect(composed).toMatchObject({ code: "validation_error", details });
      expect(prechecked).toMatchObject({ code: "validation_error", details });
    });
  }
});

it("composes a text with its quote resolved, its mentions and its own id", async () => {
  const stored = { chatId: "15550000001@c.us", fromMe: false } as StoredMessage;
  const req: SendRequest = {
    route: "text",
    body: { chatId: "15550000001", text: "oi", reply_to: "3EB0BBBBBBBBBBBB", mentions: ["15550000002"], id: "my-id-1" },
  };
  const composed = await compose(standard, req, depsWith({ "3EB0BBBBBBBBBBBB": stored }));
  expect(composed).toEqual({
    chatId: "15550000001@c.us",
    content: { type: "text", text: "oi" },
    options: {
      quotedId: "3EB0BBBBBBBBBBBB",
      quotedApiId: "false_15550000001@c.us_3EB0BBBBBBBBBBBB",
      mentions: ["15550000002@c.us"],
      id: "my-id-1",
    },
  });
});
