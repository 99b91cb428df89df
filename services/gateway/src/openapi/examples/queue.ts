import { instanceExamples } from "./define.ts";
import { iso, JOAO, NOW_S, QUEUE_ID, queuedItem, SENT_MESSAGE_ID } from "./samples.ts";

const SETTINGS = { mode: "queue" as const, delayMin: 2, delayMax: 8, ttlHours: 24, paused: false, pending: 2 };
const QUEUED = { ...queuedItem("POST /messages/text"), position: 0, delayMs: 4_210, typingMs: 2_000 };
const NEXT = {
  ...queuedItem("POST /messages/image", JOAO.id),
  id: "qm_01kf0v7z4n6q8s0v2x4z6b8d0f",
  position: 1,
};
const SENT_ITEM = {
  ...queuedItem("POST /messages/text"),
  id: "qm_01kf0t9m2p4r6t8w0y2a4c6e8g",
  status: "sent" as const,
  messageId: SENT_MESSAGE_ID,
  attempts: 1,
  position: null,
  delayMs: 3_870,
  typingMs: 2_000,
  createdAt: iso(NOW_S - 600),
  expiresAt: iso(NOW_S - 600 + 86_400),
  finishedAt: iso(NOW_S - 594),
};
const itemNotFound = { not_found: { message: "Item da fila não encontrado." } };

/** Spec 4.10 queue (routers/queue.ts; test/e2e/queue.test.ts; docs/sending.md). */
export const queueExamples = instanceExamples({
  queueList: {
    summary: "Pending items in send order",
    query: { status: "pending", limit: 50 },
    errors: {
      validation_error: {
        message: "Campos inválidos.",
        details: { status: "status: pending, all, sent, failed, expired, cancelled" },
      },
    },
    response: { data: [QUEUED, NEXT], nextCursor: null, paused: false, pending: 2 },
  },
  queueCancelAll: { response: { cancelled: 2 } },
  queueSettings: { response: SETTINGS },
  queueSettingsUpdate: {
    body: { mode: "queue", delayMin: 2, delayMax: 8, ttlHours: 24 },
    response: SETTINGS,
    errors: {
      validation_error: { message: "Campos inválidos.", details: { delayMin: "delayMin (10) maior que delayMax (8)" } },
    },
  },
  queuePause: { response: { ...SETTINGS, paused: true } },
  queueResume: { response: SETTINGS },
  queueItem: {
    path: { queueId: SENT_ITEM.id },
    response: SENT_ITEM,
    errors: itemNotFound,
  },
  queueCancel: {
    path: { queueId: QUEUE_ID },
    response: { ...queuedItem("POST /messages/text"), status: "cancelled", position: null, finishedAt: iso(NOW_S + 5) },
    errors: {
      ...itemNotFound,
      validation_error: {
        message: "Só itens ainda na fila podem ser cancelados.",
        details: { queueId: "o item está sent" },
      },
    },
  },
});
