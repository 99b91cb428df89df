export { type CloudChange, changesOf, type ProcessResult, processCloudChanges } from "./process.ts";
export { createCloudProvider } from "./session.ts";
