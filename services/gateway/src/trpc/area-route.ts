import type { ErrorCode } from "@gw/contracts";
import { instanceProcedure } from "./init.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** An area of routes under `/instances/{instanceId}` (groups, labels, chats …). */
export interface Area {
  /** The area's path under the instance (`/groups`; `""` when each route names its whole path). */
  path: string;
  /** OpenAPI tags of every route of the area. */
  tags: string[];
  /** The area's error codes: a route's own `errors` replace them, or are added with `extendErrors`. */
  errors: ErrorCode[];
  extendErrors?: boolean;
  /** A sentence added to every route's description (e.g. which accounts the area needs). */
  note?: string;
}

/** What sets one route apart from its area's defaults. */
export interface RouteOptions {
  errors?: ErrorCode[];
  description?: string;
  /** `201 Created` instead of 200. */
  created?: boolean;
  /** The body may carry `file.data` (the 70 MB limit instead of 1 MB). */
  file?: boolean;
  /** Rules across the body's fields, merged into the documented request body (Meta.bodyRules). */
  bodyRules?: Record<string, unknown>;
  /** The route works on instances that are not provisioned or not paid (Meta.allowInactive). */
  allowInactive?: boolean;
}

/**
 * The one way an area declares its routes: `const route = areaRoute({ path: "/groups", … })`,
 * then `route("POST", "/{groupId}/leave", "Leave the group", { errors: […] })` gives an
 * instance procedure with its REST binding and its documented errors.
 */
export function areaRoute(area: Area) {
  return (method: HttpMethod, path: string, summary: string, opts: RouteOptions = {}) => {
    const errors = opts.errors ? (area.extendErrors ? [...area.errors, ...opts.errors] : opts.errors) : area.errors;
    const description = [opts.description, area.note].filter(Boolean).join(" ");
    return instanceProcedure.meta({
      auth: "instance",
      errors,
      ...(opts.created ? { successStatus: 201 as const } : {}),
      ...(opts.file ? { bodyLimit: "file" as const } : {}),
      ...(opts.bodyRules ? { bodyRules: opts.bodyRules } : {}),
      ...(opts.allowInactive ? { allowInactive: true } : {}),
      openapi: {
        method,
        path: `/instances/{instanceId}${area.path}${path}`,
        tags: area.tags,
        summary,
        ...(description ? { description } : {}),
      },
    });
  };
}
