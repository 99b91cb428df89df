export * from "./account.ts";
export * from "./admin.ts";
export * from "./errors.ts";
export * from "./instance.ts";
