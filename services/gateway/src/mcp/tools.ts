import type { McpToolName } from "@gw/contracts";

/** One MCP tool: the REST operation it calls (its procedure path in appRouter) and what the model is told. */
export interface ToolSpec {
  /** The procedure's path in appRouter (`instances.sendText`): its input is the tool's input. */
  procedure: string;
  description: string;
  /** Reads only (`readOnlyHint`); the others send to the network (`destructiveHint: false`, `openWorldHint: true`). */
  readOnly: boolean;
}

const CHAT =
  "The chat is `chatId` (or its alias `phone`): a number with country and area code, or a chat id (`<number>@c.us`, `<id>@g.us`, `<id>@lid`).";
const SEND =
  "Follows the instance's queue mode: sent now (the send response, with the message `id`) or queued (the queue item, `id` `qm_…`); `delayMessage`/`delayTyping` imply the queue. Give your own `id` (letters, digits, `-`) so that a retried call never sends twice.";

/**
 * The MCP server's tools (docs/mcp.md), as data: each is one REST operation, called in-process
 * with the same validation, capability table, rules and errors as the API. The names are the
 * contracts' (MCP_TOOL_NAMES), which the `mcp` app's `tools` config is validated against.
 */
export const MCP_TOOLS: Record<McpToolName, ToolSpec> = {
  send_text: {
    procedure: "instances.sendText",
    description: `Send a text message (POST /messages/text). ${CHAT} ${SEND}`,
    readOnly: false,
  },
  send_image: {
    procedure: "instances.sendImage",
    description: `Send an image (POST /messages/image): \`file\` with a public \`url\` (or base64 \`data\` and \`mimetype\`), optional \`caption\`. ${CHAT} ${SEND}`,
    readOnly: false,
  },
  send_file: {
    procedure: "instances.sendFile",
    description: `Send a document (POST /messages/file): \`file\` with \`url\` (or \`data\`), \`filename\` and \`mimetype\`, optional \`caption\`. ${CHAT} ${SEND}`,
    readOnly: false,
  },
  send_location: {
    procedure: "instances.sendLocation",
    description: `Send a location (POST /messages/location): \`latitude\`, \`longitude\`, \`title\`, optional \`address\`. ${CHAT} ${SEND}`,
    readOnly: false,
  },
  send_poll: {
    procedure: "instances.sendPoll",
    description: `Send a poll (POST /messages/poll): \`poll\` {name, options, multipleAnswers}. ${CHAT} ${SEND}`,
    readOnly: false,
  },
  send_contact: {
    procedure: "instances.sendContactVcard",
    description: `Send contact cards (POST /messages/contact-vcard): \`contacts\` [{fullName, phoneNumber, …}]. ${CHAT} ${SEND}`,
    readOnly: false,
  },
  send_reaction: {
    procedure: "instances.reaction",
    description:
      "React to a message with an emoji (PUT /messages/reaction): `messageId` as get_messages gives it, `reaction` (an empty string removes it).",
    readOnly: false,
  },
  list_chats: {
    procedure: "instances.chatsList",
    description:
      "List the instance's chats, newest activity first by default (GET /chats): `limit`, `offset`, `sortBy`, `sortOrder`. Empty while the instance does not store chats (settings.storage.chats).",
    readOnly: true,
  },
  get_messages: {
    procedure: "instances.chatMessages",
    description:
      "A chat's messages, newest first (GET /chats/{chatId}/messages): `chatId` and `limit` required; `filter.timestamp.gte`/`lte` (unix seconds), `filter.fromMe`. Empty while the instance does not store messages.",
    readOnly: true,
  },
  mark_read: {
    procedure: "instances.chatMessagesRead",
    description:
      "Mark a chat's unread received messages as read (POST /chats/{chatId}/messages/read): `chatId`; optional `messages` (how many, latest first) and `days`. Answers the ids marked read. Standard instances only.",
    readOnly: false,
  },
  check_number: {
    procedure: "instances.checkExists",
    description:
      "Whether a phone number has an account on the network, and its chatId as registered (GET /contacts/check-exists): `phone` with country and area code.",
    readOnly: true,
  },
  get_profile: {
    procedure: "instances.profileGet",
    description: "The connected account's own profile: id, name, picture link and about text (GET /profile).",
    readOnly: true,
  },
  list_groups: {
    procedure: "instances.listGroups",
    description: "The groups this number is in, paged (GET /groups): `limit`, `offset`, `sortBy`, `refresh`.",
    readOnly: true,
  },
  get_group: {
    procedure: "instances.getGroup",
    description: "One group with its participants (GET /groups/{groupId}): `groupId`.",
    readOnly: true,
  },
  queue_status: {
    procedure: "instances.queueList",
    description:
      "The send queue (GET /queue): whether it is paused, how many items are pending, and the items (`status`: pending by default, all, sent, failed, expired, cancelled; `limit`, `cursor`).",
    readOnly: true,
  },
};
