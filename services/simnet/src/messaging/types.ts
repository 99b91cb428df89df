// What a send is: who sends it (a linked device or the phone itself), what it carries, and what
// the network answers. Shared by messaging (send.ts) and the areas that take sends of their own
// (status posts, channel posts), below all of them.
import type { Device } from "../state/model.ts";
import type { MessageContent, SendArgs } from "../wire/protocol.ts";

export type Origin = { kind: "device"; device: Device } | { kind: "phone" };

export interface SendResult {
  id: string;
  timestamp: number;
  chatId: string;
}

export interface SendInput extends Omit<SendArgs, "message"> {
  message: MessageContent;
}
