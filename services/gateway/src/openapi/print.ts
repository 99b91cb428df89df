// `pnpm --silent openapi`: prints the OpenAPI document with no service running.
import { buildOpenApiDocument } from "./document.ts";

const baseUrl = process.env.PUBLIC_BASE_URL ?? "http://127.0.0.1:8080";
process.stdout.write(`${JSON.stringify(buildOpenApiDocument(baseUrl), null, 2)}\n`);
