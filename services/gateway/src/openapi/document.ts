import {
  type Capability,
  capabilityOf,
  describeCapability,
  ERROR_STATUS,
  type ErrorCode,
  errorBodySchema,
  PROVIDERS_OF_KIND,
  routeKey,
  supports,
} from "@gw/contracts";
import { IDEMPOTENCY_KEY_RE } from "@gw/sending";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { restProcedures } from "../http/rest.ts";
import { appRouter } from "../routers/index.ts";
import type { Meta } from "../trpc/meta.ts";
import { applyExamples, type ErrorContext, errorExamples, examplesOf, shareErrorExamples } from "./apply-examples.ts";
import { openObjects } from "./open-objects.ts";
import { shareComponents } from "./share-components.ts";
import { addWebhooks } from "./webhooks.ts";

type Operation = {
  responses: Record<string, unknown>;
  security?: Record<string, string[]>[];
  parameters?: unknown[];
  requestBody?: unknown;
  description?: string;
  [k: string]: unknown;
};

/** The 501s a route answers on the kinds and providers that lack it (the capability table), by code. */
function capabilityErrors(cap: Capability | undefined): Partial<Record<ErrorCode, string>> {
  const errors: Partial<Record<ErrorCode, string>> = {};
  if (!cap) return errors;
  for (const [kind, providers] of Object.entries(PROVIDERS_OF_KIND)) {
    for (const p of providers) {
      const verdict = supports(cap, kind as keyof typeof PROVIDERS_OF_KIND, p);
      if (verdict !== true) errors[verdict.code] ??= verdict.message;
    }
  }
  return errors;
}

/** The 501 codes a route answers on the kinds and providers that lack it (the capability table). */
function capabilityCodes(cap: Capability | undefined): ErrorCode[] {
  return Object.keys(capabilityErrors(cap)) as ErrorCode[];
}

/** The codes every route of a kind can answer, beyond its own `errors`. */
function errorCodesOf(meta: Meta, hasBody: boolean): ErrorCode[] {
  const codes: ErrorCode[] = [];
  const key = meta.openapi ? routeKey(meta.openapi.method, meta.openapi.path) : null;
  codes.push(...capabilityCodes(key ? capabilityOf(key) : undefined));
  if (meta.auth === "instance") {
    codes.push("missing_token", "invalid_token", "invalid_client_token", "not_found", "rate_limited");
    if (!meta.allowInactive) codes.push("payment_required", "instance_not_provisioned");
  } else if (meta.auth === "admin") {
    codes.push("missing_token", "invalid_token");
  }
  codes.push("validation_error", "bad_request");
  if (hasBody) codes.push("payload_too_large");
  codes.push(...(meta.errors ?? []), "internal_error");
  return [...new Set(codes)];
}

const retryAfterHeader = {
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" } },
};

/**
 * The OpenAPI 3.1 document: paths, parameters and schemas come from trpc-to-openapi; the
 * parts it cannot know are set from our procedure meta — the spec's success status, every
 * error code a route can answer (with the one error body), and the auth schemes.
 */
export function buildOpenApiDocument(publicBaseUrl: string, { share = true } = {}): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: "Messaging Gateway API",
    version: "1.0.0",
    description:
      "Server-to-server API for running numbers on a messaging network. Errors are always " +
      '`{"error":{"code","message","details?"}}`; handle them by `code`. No CORS, on purpose. ' +
      "A JSON body with a `__proto__` key (at any depth) is refused with 400 `bad_request`. " +
      "Request bodies: up to 1 MB, 70 MB where the operation says so; a body-less request is accepted " +
      "when every field is optional. Events: `webhooks` shows each kind's delivery to a webhook.",
    baseUrl: `${publicBaseUrl.replace(/\/$/, "")}/v1`,
    securitySchemes: {
      InstanceToken: { type: "apiKey", in: "header", name: "X-Instance-Token" },
      BearerInstanceToken: { type: "http", scheme: "bearer", description: "The instance token as a bearer token." },
      AdminToken: { type: "http", scheme: "bearer", description: "The operator's ADMIN_TOKEN (control plane only)." },
    },
    defs: { Error: errorBodySchema },
  });

  for (const { meta, method, path, call } of restProcedures()) {
    const openapi = meta.openapi;
    if (!openapi) continue;
    const op = (doc.paths?.[openapi.path] as Record<string, Operation> | undefined)?.[method.toLowerCase()];
    if (!op) throw new Error(`OpenAPI: no operation for ${method} ${openapi.path}`);
    const hasBody = method === "POST" || method === "PUT" || method === "PATCH";

    const success = op.responses["200"] as { description?: string } | undefined;
    // trpc-to-openapi's "Successful response" says no more than this, on every operation.
    if (success?.description === "Successful response") success.description = "OK";
    const responses: Record<string, unknown> = { [String(meta.successStatus ?? 200)]: success };
    if (meta.queueable) {
      // Spec 4.4: a queued send answers 202 with the queue item (its id is the queue id).
      responses["202"] = {
        description: "Queued (see `X-Queue`): the queue item",
        content: { "application/json": { schema: { $ref: "#/components/schemas/QueueItem" } } },
      };
      op.parameters = [
        ...(op.parameters ?? []),
        {
          name: "X-Queue",
          in: "header",
          required: false,
          description:
            "`true` queues the send, `false` sends now (not with delayMessage/delayTyping); absent: the queue mode",
          schema: { type: "string", enum: ["true", "false"] },
        },
        {
          name: "Idempotency-Key",
          in: "header",
          required: false,
          description:
            "Beyond the spec: the same key within 24 h answers the first answer and never sends twice (docs/api.md)",
          // 1 to 255 visible ASCII characters, as the store checks it
          schema: { type: "string", minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_RE.source },
        },
      ];
    }
    const examples = examplesOf(path);
    const routeCap = capabilityOf(routeKey(method, openapi.path) ?? "");
    const errorContext: ErrorContext = { auth: meta.auth, capability: capabilityErrors(routeCap) };
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of errorCodesOf(meta, hasBody)) {
      const status = ERROR_STATUS[code];
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
      responses[String(status)] = {
        description: codes.map((c) => `\`${c}\``).join(", "),
        ...(status === 429 || status === 503 ? { headers: retryAfterHeader } : {}),
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/Error" },
            examples: errorExamples(codes, examples, errorContext, call, openapi.path),
          },
        },
      };
    }
    op.responses = responses;
    op["x-error-codes"] = errorCodesOf(meta, hasBody);

    const key = routeKey(method, openapi.path);
    const cap = key ? capabilityOf(key) : undefined;
    if (cap) {
      op.description = `${op.description ?? ""}${op.description ? "\n\n" : ""}${describeCapability(cap)}`;
      op["x-capabilities"] = Object.fromEntries(
        Object.entries(PROVIDERS_OF_KIND).flatMap(([kind, providers]) =>
          providers.map((p) => [p, supports(cap, kind as keyof typeof PROVIDERS_OF_KIND, p) === true]),
        ),
      );
    }
    if (meta.auth === "instance") {
      op.security = [{ InstanceToken: [] }, { BearerInstanceToken: [] }];
      op.parameters = [
        ...(op.parameters ?? []),
        {
          name: "Client-Token",
          in: "header",
          required: false,
          description: "Required when the account demands its Client-Token on all calls.",
          schema: { type: "string" },
        },
      ];
    } else if (meta.auth === "admin") {
      op.security = [{ AdminToken: [] }];
    } else {
      op.security = [];
    }
    if (hasBody && op.requestBody) {
      const body = op.requestBody as {
        required?: boolean;
        content: Record<string, { schema: { required?: string[] } }>;
      };
      const schema = body.content["application/json"]?.schema;
      const rules = meta.bodyRules && Object.keys(meta.bodyRules).length > 0 ? meta.bodyRules : undefined;
      if (schema && rules) Object.assign(schema, rules);
      body.required = (schema?.required?.length ?? 0) > 0 || rules !== undefined;
      // The 1 MB limit and the body-less rule are the document's (its description).
      if (meta.bodyLimit === "file") {
        op.description = `${op.description ?? ""}${op.description ? "\n\n" : ""}Body limit: 70 MB (base64 \`file.data\`).`;
      }
    }
    if (examples) applyExamples(op, examples, openapi.path, meta);
  }
  // trpc-to-openapi's own error schemas are replaced by ours above.
  const schemas = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(schemas)) if (name.startsWith("error.")) delete schemas[name];
  shareErrorExamples(doc);
  addWebhooks(doc as { webhooks?: unknown }, schemas);
  // What many operations repeat is kept once in `components` (share-components.ts); `share: false`
  // gives the document with everything in place, which its test compares with.
  return share ? shareComponents(openObjects(doc)) : openObjects(doc);
}
