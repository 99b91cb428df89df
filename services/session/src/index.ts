export { createSessionClient } from "./client.ts";
export { SessionDirectory } from "./directory.ts";
export { type SessionApi, SessionManager } from "./manager.ts";
export { type MediaBytes, messageMedia } from "./media-bytes.ts";
export type { ProviderContext, ProviderEvent, ProviderFactory, ProviderSession } from "./providers/contract.ts";
export { type SessionRole, startSessionRole } from "./role.ts";
/** Providers the session pods can run. */
export const AVAILABLE_PROVIDERS = ["sim", "baileys", "cloud"] as const;
export { type CloudChange, changesOf, processCloudChanges } from "./providers/cloud/index.ts";
