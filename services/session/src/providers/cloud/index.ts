export { type CloudChange, type ProcessResult, processCloudChanges } from "./process.ts";
export { createCloudProvider } from "./session.ts";
