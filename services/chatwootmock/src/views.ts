// The JSON of contacts, agents and inboxes as Chatwoot renders them: the API's jbuilder partials
// (`api/v1/models/_contact`, `_inbox`, `_inbox_slim`), the models' `push_event_data` (embedded in
// messages and conversations) and `webhook_data` (webhook payloads).
import type { Account, Contact, ContactInbox, Inbox, Obj, User } from "./model.ts";
import type { ChatwootMockState } from "./state.ts";

export const unix = (d: Date | null): number => (d ? Math.floor(d.getTime() / 1000) : 0);

/** Slim inbox (`_inbox_slim`), inside a contact's `contact_inboxes`. */
export function inboxSlim(i: Inbox): Obj {
  return {
    id: i.id,
    avatar_url: "",
    channel_id: i.channelId,
    name: i.name,
    channel_type: "Channel::Api",
    provider: null,
  };
}

/** The inbox model as plain JSON (`json.inbox @contact_inbox.inbox` in the contact create answer). */
export function inboxRecord(i: Inbox): Obj {
  return {
    id: i.id,
    channel_id: i.channelId,
    account_id: i.accountId,
    name: i.name,
    created_at: i.createdAt.toISOString(),
    updated_at: i.updatedAt.toISOString(),
    channel_type: "Channel::Api",
    enable_auto_assignment: true,
    greeting_enabled: false,
    greeting_message: null,
    email_address: null,
    working_hours_enabled: false,
    out_of_office_message: null,
    timezone: "UTC",
    enable_email_collect: true,
    csat_survey_enabled: false,
    allow_messages_after_resolved: true,
    auto_assignment_config: {},
    lock_to_single_conversation: i.lockToSingleConversation,
    portal_id: null,
    sender_name_type: "friendly",
    business_name: null,
  };
}

/** `GET /inboxes/:id` (`_inbox`), with the API channel's attributes; web-widget, email and other channels' fields left out. */
export function inboxView(i: Inbox): Obj {
  return {
    id: i.id,
    avatar_url: "",
    channel_id: i.channelId,
    name: i.name,
    channel_type: "Channel::Api",
    greeting_enabled: false,
    greeting_message: null,
    working_hours_enabled: false,
    enable_email_collect: true,
    csat_survey_enabled: false,
    enable_auto_assignment: true,
    auto_assignment_config: {},
    out_of_office_message: null,
    working_hours: [],
    timezone: "UTC",
    callback_webhook_url: null,
    allow_messages_after_resolved: true,
    lock_to_single_conversation: i.lockToSingleConversation,
    sender_name_type: "friendly",
    business_name: null,
    hmac_token: i.hmacToken,
    webhook_url: i.webhookUrl,
    inbox_identifier: i.identifier,
    additional_attributes: {},
    provider: null,
  };
}

export function contactInboxRecord(ci: ContactInbox): Obj {
  return {
    id: ci.id,
    contact_id: ci.contactId,
    inbox_id: ci.inboxId,
    source_id: ci.sourceId,
    created_at: ci.createdAt.toISOString(),
    updated_at: ci.updatedAt.toISOString(),
    hmac_verified: false,
    pubsub_token: ci.pubsubToken,
  };
}

/** The API's contact (`_contact`); `contact_inboxes` on the /contacts endpoints. */
export function contactView(state: ChatwootMockState, c: Contact, withInboxes: boolean): Obj {
  const view: Obj = {
    additional_attributes: c.additionalAttributes,
    availability_status: "offline",
    email: c.email,
    id: c.id,
    name: c.name,
    phone_number: c.phoneNumber,
    blocked: c.blocked,
    identifier: c.identifier,
    thumbnail: c.avatarUrl ?? "",
    custom_attributes: c.customAttributes,
    ...(c.lastActivityAt ? { last_activity_at: unix(c.lastActivityAt) } : {}),
    created_at: unix(c.createdAt),
  };
  if (withInboxes) {
    view.contact_inboxes = [...state.contactInboxes.values()]
      .filter((ci) => ci.contactId === c.id)
      .map((ci) => ({ source_id: ci.sourceId, inbox: inboxSlim(state.inboxes.get(ci.inboxId)!) }));
  }
  return view;
}

export function contactPush(c: Contact): Obj {
  return {
    additional_attributes: c.additionalAttributes,
    custom_attributes: c.customAttributes,
    email: c.email,
    id: c.id,
    identifier: c.identifier,
    name: c.name,
    phone_number: c.phoneNumber,
    thumbnail: c.avatarUrl ?? "",
    blocked: c.blocked,
    type: "contact",
  };
}

export const accountWebhook = (a: Account): Obj => ({ id: a.id, name: a.name });

/** `Contact#webhook_data`: the fields of current Chatwoot plus the documented `type: "contact"`. */
export function contactWebhook(state: ChatwootMockState, c: Contact): Obj {
  return {
    account: accountWebhook(state.accounts.get(c.accountId)!),
    additional_attributes: c.additionalAttributes,
    avatar: c.avatarUrl ?? "",
    custom_attributes: c.customAttributes,
    email: c.email,
    id: c.id,
    identifier: c.identifier,
    name: c.name,
    phone_number: c.phoneNumber,
    thumbnail: c.avatarUrl ?? "",
    blocked: c.blocked,
    type: "contact",
  };
}

export function userPush(u: User): Obj {
  return {
    id: u.id,
    name: u.name,
    available_name: u.name,
    avatar_url: "",
    type: "user",
    availability_status: "online",
    thumbnail: "",
  };
}

export const userWebhook = (u: User): Obj => ({ id: u.id, name: u.name, email: u.email, type: "user" });
