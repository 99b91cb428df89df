export * from "./account.ts";
export * from "./admin.ts";
export * from "./errors.ts";
export * from "./events.ts";
export * from "./instance.ts";
export * from "./outbound.ts";
export * from "./session.ts";
export * from "./webhooks.ts";
