// Shared by the help-desk tests and bench: the Chatwoot mock's state as its control API shows it.

/** A message in `GET /_control/state` (services/chatwootmock/src/snapshot.ts). */
export interface CwMessage {
  id: number;
  conversationId: number | null;
  messageType: "incoming" | "outgoing" | "activity" | "template";
  content: string | null;
  private: boolean;
  sourceId: string | null;
  contentAttributes: Record<string, unknown> | null;
  createdAt: string;
  attachments: { fileType: string; size: number; mimetype: string; dataUrl: string }[];
}

export interface CwState {
  contacts: { id: number; name: string; phoneNumber: string | null; identifier: string | null }[];
  conversations: { id: number; contactId: number; inboxId: number; status: string }[];
  messages: CwMessage[];
}

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082",
  "hex",
);

/** Polls `read` until `done` holds (every 100 ms, up to `timeoutMs`); the last value. */
export async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > until)
      throw new Error(`not reached in ${timeoutMs} ms; last: ${JSON.stringify(last).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}
