import { z } from "zod";

/**
 * The send queue of spec 2.7 / 3.3 / 4.10. Final statuses (the spec leaves them open; see
 * docs/sending.md): `sent`, `failed` (the network refused or the media could not be used),
 * `expired` (waited past `ttlHours`) and `cancelled`. `queued` while waiting; `sending` while a
 * send is in flight (it cannot be cancelled any more).
 */
export const queueStatusSchema = z.enum(["queued", "sending", "sent", "failed", "expired", "cancelled"]);
export type QueueStatus = z.infer<typeof queueStatusSchema>;
export const FINAL_QUEUE_STATUSES = ["sent", "failed", "expired", "cancelled"] as const;
export type FinalQueueStatus = (typeof FINAL_QUEUE_STATUSES)[number];

export const QUEUE_MAX_PENDING = 10_000;
export const QUEUE_HISTORY_MS = 7 * 86_400_000;
export const QUEUE_PAGE_DEFAULT = 50;
export const QUEUE_PAGE_MAX = 500;

export const QUEUE_ID_RE = /^qm_[0-9a-z]{26}$/;

const iso = z.iso.datetime();

export const queueItemSchema = z
  .object({
    id: z.string().meta({ description: "Queue id, prefixed `qm_`" }),
    status: queueStatusSchema,
    route: z.string().meta({ description: "Method and path of the original send, e.g. `POST /messages/text`" }),
    chatId: z.string(),
    messageId: z.string().nullable().meta({ description: "Id of the sent message (once sent)" }),
    attempts: z.number().int(),
    position: z.number().int().nullable().meta({ description: "0 for the next to leave; null once it left the queue" }),
    delayMs: z.number().int().nullable().meta({ description: "Delay before the send (planned when its turn comes)" }),
    typingMs: z.number().int().nullable(),
    error: z.string().nullable(),
    createdAt: iso,
    expiresAt: iso,
    finishedAt: iso.nullable(),
  })
  .meta({ id: "QueueItem" });
export type QueueItem = z.infer<typeof queueItemSchema>;

/**
 * The payload of `queue.sent` / `queue.failed`: the final queue item plus `timestamp`, in unix
 * seconds, the moment it finished (spec 6: the same field every other event carries).
 */
export const queueEventPayloadSchema = queueItemSchema.extend({
  timestamp: z.number().int().meta({ description: "Unix seconds: when the item finished (its `finishedAt`)" }),
});
export type QueueEventPayload = z.infer<typeof queueEventPayloadSchema>;

export const queueSettingsSchema = z
  .object({
    mode: z.enum(["direct", "queue"]),
    delayMin: z.number().int(),
    delayMax: z.number().int(),
    ttlHours: z.number().int(),
    paused: z.boolean(),
    pending: z.number().int(),
  })
  .meta({ id: "QueueSettings" });
export type QueueSettings = z.infer<typeof queueSettingsSchema>;

export const DEFAULT_QUEUE_SETTINGS = {
  mode: "direct",
  delayMin: 1,
  delayMax: 3,
  ttlHours: 24,
  paused: false,
} as const;

const seconds = (name: string) =>
  z
    .number(`${name} deve ser um número inteiro de segundos`)
    .int(`${name} deve ser um número inteiro de segundos`)
    .min(0, `${name} vai de 0 a 60 segundos`)
    .max(60, `${name} vai de 0 a 60 segundos`);

export const queueSettingsPatchSchema = z
  .object({
    mode: z.enum(["direct", "queue"], "mode: direct ou queue").optional(),
    delayMin: seconds("delayMin").optional(),
    delayMax: seconds("delayMax").optional(),
    ttlHours: z
      .number("ttlHours deve ser um número inteiro de horas")
      .int("ttlHours deve ser um número inteiro de horas")
      .min(1, "ttlHours vai de 1 a 168")
      .max(168, "ttlHours vai de 1 a 168")
      .optional(),
  })
  .meta({ id: "QueueSettingsPatch" });
export type QueueSettingsPatch = z.infer<typeof queueSettingsPatchSchema>;

export const queuePageSchema = z
  .object({
    data: z.array(queueItemSchema),
    nextCursor: z.string().nullable(),
    paused: z.boolean(),
    pending: z.number().int(),
  })
  .meta({ id: "QueuePage" });
export type QueuePage = z.infer<typeof queuePageSchema>;
