import { ApiError } from "@gw/contracts";
import { assertNodeErrorFree, type BinaryNode, DisconnectReason, promiseTimeout } from "@whiskeysockets/baileys";
import { describe, expect, it } from "vitest";
import { mapNetworkError } from "./errors.ts";
import { Boom } from "./test/testing.ts";

/** Network errors as Baileys builds them (server `<error>` nodes, its own Booms) as the spec's ApiErrors (errors.ts). */

describe("network errors", () => {
  const serverError = (code: string, text: string): unknown => {
    const node: BinaryNode = {
      tag: "iq",
      attrs: { type: "error" },
      content: [{ tag: "error", attrs: { code, text } }],
    };
    try {
      assertNodeErrorFree(node);
    } catch (err) {
      return err;
    }
    throw new Error("no error thrown");
  };

  it("server <error> nodes (Boom with the code in data): 4xx rejected, 429 transient, 5xx network_error", () => {
    const forbidden = mapNetworkError(serverError("403", "forbidden"));
    expect(forbidden.code).toBe("network_rejected");
    expect(forbidden.message).toMatch(/forbidden/);
    expect(mapNetworkError(serverError("401", "not-authorized")).code).toBe("network_rejected");
    expect(mapNetworkError(serverError("404", "item-not-found")).code).toBe("network_rejected");
    expect(mapNetworkError(serverError("406", "not-acceptable")).code).toBe("network_rejected");
    const limited = mapNetworkError(serverError("429", "rate-overlimit"));
    expect(limited.code).toBe("network_error");
    expect(limited.retryAfter).toBe(5);
    expect(mapNetworkError(serverError("500", "internal-server-error")).code).toBe("network_error");
  });

  it("Baileys' own Booms: timeouts, closed connections (503, was 422), 4xx statuses, others", async () => {
    const timeout = await promiseTimeout(5, () => {}).catch((e: unknown) => e);
    expect(mapNetworkError(timeout).code).toBe("network_timeout");
    expect(mapNetworkError(new Boom("Timed Out", { statusCode: DisconnectReason.timedOut })).code).toBe(
      "network_timeout",
    );
    for (const closed of [
      new Boom("Connection Closed", { statusCode: DisconnectReason.connectionClosed }),
      new Boom("Connection was lost", { statusCode: DisconnectReason.connectionLost }),
      new Boom("Connection Terminated by Server", { statusCode: DisconnectReason.connectionClosed }),
    ]) {
      // Nothing reached the network and the instance reconnects: transient (503, Retry-After), not final.
      expect(mapNetworkError(closed)).toMatchObject({ code: "network_unavailable", status: 503, retryAfter: 2 });
    }
    expect(mapNetworkError(new Boom("Invalid media type", { statusCode: 400 })).code).toBe("network_rejected");
    expect(mapNetworkError(new Boom("Media upload failed on all hosts", { statusCode: 500 })).code).toBe(
      "network_error",
    );
    // an unanswered group query: the parser finds no response node
    expect(
      mapNetworkError(new Boom("Invalid group metadata response: missing <group> node", { data: undefined })).code,
    ).toBe("network_timeout");
    expect(mapNetworkError(new Error("boom")).code).toBe("network_error");
    const own = new ApiError("validation_error", "x", { a: "b" });
    expect(mapNetworkError(own)).toBe(own);
  });
});
