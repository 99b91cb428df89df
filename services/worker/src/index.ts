export { createActivities } from "./activities.ts";
export { DISPATCH_GROUP, Dispatcher } from "./dispatcher.ts";
export { startWorkerRole, type WorkerRole } from "./role.ts";
