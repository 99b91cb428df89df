import type { ErrorCode } from "@gw/contracts";
import type { OpenApiMeta } from "trpc-to-openapi";

/**
 * Procedure meta beyond trpc-to-openapi's: what the REST binding and the OpenAPI
 * post-processing need to follow the spec exactly.
 */
export type Meta = OpenApiMeta<{
  /** Which credential the REST edge demands before calling the procedure. */
  auth: "instance" | "admin" | "none";
  /** Spec success status (201 for creations, 202 for queued sends). */
  successStatus?: 200 | 201 | 202;
  /** Route-specific error codes, documented in the OpenAPI document (auth and validation codes are added). */
  errors?: ErrorCode[];
  /** `file` for send routes that carry `file.data` (70 MB); default `json` (1 MB). */
  bodyLimit?: "json" | "file";
  /** A send route: 202 with the queue item when queued; X-Queue and Idempotency-Key headers. */
  queueable?: boolean;
  /**
   * Rules across the body's fields, as JSON Schema merged into the documented request body
   * (e.g. `anyOf` required `chatId` or `phone`): trpc-to-openapi builds the body from the input's
   * shape, so rules on the input object itself would not reach the document.
   */
  bodyRules?: Record<string, unknown>;
  /** The route works on instances that are not provisioned or not paid (GET / to see why). */
  allowInactive?: boolean;
}>;
