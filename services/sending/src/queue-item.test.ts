import { queueEventPayloadSchema } from "@gw/contracts";
import { describe, expect, it } from "vitest";
import { decodeItem, queueEventPayload } from "./queue-item.ts";

// The payload of queue.sent / queue.failed: the public item plus `timestamp` in unix seconds,
// the moment it finished (spec 6: the same field names in every event).

const raw = {
  id: "qm_01jzz0000000000000000000aa",
  status: "sent",
  route: "POST /messages/text",
  chatId: "5511988887777@c.us",
  messageId: "true_5511988887777@c.us_3EB0SENT0001",
  attempts: "1",
  createdAt: String(Date.UTC(2026, 0, 1, 12, 0, 0)),
  expiresAt: String(Date.UTC(2026, 0, 2, 12, 0, 0)),
  finishedAt: String(Date.UTC(2026, 0, 1, 12, 0, 5, 750)),
  request: "null",
  announced: "0",
};

describe("queue event payload", () => {
  it("a finished item: its public fields, plus timestamp = finishedAt in seconds", () => {
    const p = queueEventPayload(decodeItem(raw, null));
    expect(p.timestamp).toBe(Math.floor(Date.UTC(2026, 0, 1, 12, 0, 5) / 1000));
    expect(p).toMatchObject({
      id: raw.id,
      status: "sent",
      createdAt: "2026-01-01T12:00:00.000Z",
      finishedAt: "2026-01-01T12:00:05.750Z",
    });
    expect(Object.keys(p)).not.toContain("request");
    expect(queueEventPayloadSchema.strict().parse(p)).toEqual(p);
  });

  it("without finishedAt (never, once final): the moment it is announced", () => {
    const p = queueEventPayload(decodeItem({ ...raw, status: "cancelled", finishedAt: "" }, null), 1_767_225_600_999);
    expect(p.timestamp).toBe(1_767_225_600);
  });
});
