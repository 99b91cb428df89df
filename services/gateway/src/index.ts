export { buildGateway, type Gateway } from "./app.ts";
export { createInternalClient, type InternalClient } from "./client.ts";
export { buildOpenApiDocument } from "./openapi/document.ts";
export type { AppRouter } from "./routers/index.ts";
