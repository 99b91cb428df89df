import { ApiError, ERROR_STATUS, FAILURES, type FailureKind, failure, failureStatus, notInStatus } from "@gw/contracts";
import { StaleLeaseError } from "@gw/platform";
import { describe, expect, it } from "vitest";
import { mapNetworkError, toApiError } from "./baileys/errors.ts";
import { Boom } from "./baileys/test/testing.ts";
import { apiErrorOfGraph, GRAPH_ERRORS } from "./cloud/errors.ts";
import { GraphError } from "./cloud/graph.ts";
import { sendInFlightLost } from "./in-flight.ts";
import { simError } from "./sim/errors.ts";

/**
 * The failure table (contracts failures.ts) walked: each class answers as spec 7 says a client
 * reads it (retry 429/502/503/504 after Retry-After, never repeat another 4xx), and every provider's
 * errors land in one of its classes with that class's retry rule.
 */

const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const kinds = Object.keys(FAILURES) as FailureKind[];

/** The classes an answer can belong to: same code, and a Retry-After exactly when they are retryable. */
function classesOf(err: ApiError): FailureKind[] {
  return kinds.filter((k) => {
    const c = FAILURES[k];
    const hasWait = typeof err.retryAfter === "number" && err.retryAfter > 0;
    return c.code === err.code && (c.retryable ? hasWait : err.retryAfter === undefined);
  });
}

describe("the failure table", () => {
  it.each(kinds)(
    "%s: retryable exactly when its status tells a client to retry; a retryable class carries Retry-After",
    (kind) => {
      const c: { code: keyof typeof ERROR_STATUS; retryable: boolean; retryAfter?: number } = FAILURES[kind];
      const status = failureStatus(kind);
      expect(status).toBe(ERROR_STATUS[c.code]);
      expect(c.retryable).toBe(RETRY_STATUSES.has(status));
      if (c.retryable) expect(c.retryAfter).toBeGreaterThan(0);
      const err = failure(kind, "x");
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(status);
      expect(err.retryAfter).toBe(c.retryable ? c.retryAfter : undefined);
    },
  );

  it("the transient conditions of the connection are 503 or 504, never a 4xx", () => {
    for (const kind of ["lease_lost", "owner_missing", "connection_closed", "reconnecting"] as const) {
      expect(failureStatus(kind)).toBe(503);
    }
    expect(failureStatus("send_outcome_unknown")).toBe(504);
    expect(sendInFlightLost()).toMatchObject({ code: "network_timeout", status: 504, retryAfter: 2 });
  });

  it("an instance not where a route needs it: STARTING is 503 with its next attempt; otherwise 422 saying why", () => {
    const now = Date.parse("2026-11-27T12:00:00Z");
    const starting = notInStatus(
      {
        connectionStatus: "STARTING",
        statusReason: {
          reason: "network_unreachable",
          detail: "getaddrinfo ENOTFOUND web.whatsapp.com",
          retryAt: "2026-11-27T12:00:20Z",
        },
      },
      "O QR code exige connectionStatus SCAN_QR_CODE",
      { connectionStatus: "x" },
      now,
    );
    expect(starting).toMatchObject({ code: "network_unavailable", status: 503, retryAfter: 20 });
    expect(starting.message).toMatch(/STARTING \(network_unreachable: getaddrinfo ENOTFOUND web\.whatsapp\.com\)/);
    const failed = notInStatus(
      { connectionStatus: "FAILED", statusReason: { reason: "logged_out", detail: "device_removed", retryAt: null } },
      "Número não conectado",
      {},
      now,
    );
    expect(failed).toMatchObject({ code: "instance_not_connected", status: 422, retryAfter: undefined });
    expect(failed.message).toMatch(/FAILED \(logged_out: device_removed\)/);
  });
});

describe("every provider maps into the table", () => {
  it("Baileys: closed connections and a lost lease are 503, timeouts 504, rate limits 502 with Retry-After, refusals 422", () => {
    const cases: [unknown, FailureKind][] = [
      [new StaleLeaseError("i1"), "lease_lost"],
      [new Boom("Connection Closed", { statusCode: 428 }), "connection_closed"],
      [new Boom("Connection Terminated", { statusCode: 428 }), "connection_closed"],
      [new Boom("Connection was lost", { statusCode: 408 }), "connection_closed"],
      [new Boom("Timed Out", { statusCode: 408 }), "network_timeout"],
      [new Boom("rate-overlimit", { statusCode: 500, data: 429 }), "network_rate_limited"],
      [new Boom("not-authorized", { statusCode: 500, data: 401 }), "network_refused"],
      [new Boom("item-not-found", { statusCode: 500, data: 404 }), "network_refused"],
      [new Boom("internal-server-error", { statusCode: 500, data: 500 }), "network_error"],
      [new Error("something odd"), "network_error"],
    ];
    for (const [err, kind] of cases) {
      const mapped = mapNetworkError(err);
      expect({ err: String(err), kinds: classesOf(mapped) }).toEqual({
        err: String(err),
        kinds: expect.arrayContaining([kind]),
      });
    }
    expect(classesOf(toApiError(new Boom("Connection Closed", { statusCode: 428 })))).toContain("connection_closed");
    expect(classesOf(toApiError(new Boom("Timed Out", { statusCode: 408 })))).toContain("network_timeout");
  });

  it("simnet: every refusal code", () => {
    const codes = [
      "too_many_attempts",
      "not_pairing",
      "not_open",
      "invalid_passkey",
      "not_on_network",
      "network_rejected",
      "restricted",
      "blocked",
      "invalid_target",
      "not_found",
      "wrong_number",
      "bad_request",
      "validation_error",
      "rate_overlimit",
      "something_new",
    ];
    for (const code of codes) {
      const err = simError("send", { message: { type: "text" } }, code);
      expect({ code, kinds: classesOf(err).length > 0 }).toEqual({ code, kinds: true });
    }
    expect(simError("send", {}, "not_open")).toMatchObject({ status: 503 });
    expect(simError("send", {}, "rate_overlimit")).toMatchObject({ status: 502, retryAfter: 5 });
  });

  it("the operator: every code it documents, its bare HTTP statuses and transport failures", () => {
    for (const code of Object.keys(GRAPH_ERRORS).map(Number)) {
      const err = apiErrorOfGraph(new GraphError(400, code, "msg", null, null));
      expect({ code, kinds: classesOf(err).length > 0 }).toEqual({ code, kinds: true });
    }
    for (const status of [400, 401, 403, 404, 408, 429, 500, 502, 503, 504]) {
      const err = apiErrorOfGraph(new GraphError(status, null, "page", null, null));
      expect({ status, kinds: classesOf(err).length > 0 }).toEqual({ status, kinds: true });
    }
    expect(classesOf(apiErrorOfGraph(new GraphError(0, null, "timeout", null, null, true)))).toContain(
      "network_timeout",
    );
    expect(classesOf(apiErrorOfGraph(new GraphError(0, null, "ECONNREFUSED", null, null, true)))).toContain(
      "operator_unavailable",
    );
    // The operator's own Retry-After wins over the class's.
    expect(apiErrorOfGraph(new GraphError(429, null, "slow down", null, null, false, 17))).toMatchObject({
      status: 429,
      retryAfter: 17,
    });
  });
});
