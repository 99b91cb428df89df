// The read model lives in read-model/ (split by concern: acks, stored documents, writes, pages,
// views, chats); this module keeps the import path the rest of the platform uses.
export * from "./read-model/index.ts";
