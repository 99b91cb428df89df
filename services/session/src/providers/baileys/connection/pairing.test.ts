import { DisconnectReason } from "@whiskeysockets/baileys";
import { describe, expect, it } from "vitest";
import { silentSuite } from "../test/paired-rig.ts";
import { ready, type SessionRigOptions, sessionRig, sleep } from "../test/session-rig.ts";
import { apiError, Boom, storePairedCreds, waitFor } from "../test/testing.ts";

/**
 * Pairing codes (pairing.ts) on real Baileys sockets towards a silent local endpoint
 * (test/session-rig.ts): the wait for a ready socket, the rate limit, what is refused.
 */

const suite = silentSuite();
const rig = (opts: SessionRigOptions = {}) => sessionRig(suite, opts);

describe("Baileys session: pairing code", () => {
  it("waits for the socket to be ready, then asks Baileys for the code", async () => {
    const r = await rig({ pairingCodeLimit: { max: 2, windowMs: 60_000 } });
    expect((await apiError(r.session.requestPairingCode("5511999999999"))).code).toBe("instance_not_connected");
    await r.session.start();
    await ready(r);
    const pending = r.session.requestPairingCode("+55 (11) 99999-9999");
    await sleep(50);
    const before = suite.net.framesReceived();
    r.sock().ev.emit("connection.update", { qr: "2@ref,a,b,c,1" });
    const code = await pending;
    expect(code).toMatch(/^[0-9A-Z]{8}$/);
    await waitFor(() => expect(suite.net.framesReceived()).toBeGreaterThan(before)); // link_code_companion_reg went out
    expect(r.sock().authState.creds.me?.id).toBe("5511999999999@s.whatsapp.net");
    // nothing is paired yet, so nothing is stored
    expect(await r.store.readCreds()).toBeNull();

    expect(await r.session.requestPairingCode("5511999999999")).toMatch(/^[0-9A-Z]{8}$/);
    const limited = await apiError(r.session.requestPairingCode("5511999999999"));
    expect(limited.code).toBe("too_many_attempts");
    expect(limited.status).toBe(429);
    expect(limited.retryAfter).toBeGreaterThan(0);

    // a reconnect before the code was typed starts a clean registration (no half-set `me`)
    await r.sock().end(new Boom("Connection Terminated", { statusCode: DisconnectReason.connectionClosed }));
    await waitFor(() => expect(r.sockets).toHaveLength(2));
    expect(r.configs[1]!.auth.creds.me).toBeUndefined();
  });

  it("refuses SMS/voice delivery (501), bad numbers, and an already paired number", async () => {
    const store = await suite.h.storeFor(suite.h.newInstanceId());
    await storePairedCreds(store);
    const r = await rig({ store });
    const sms = await apiError(r.session.requestPairingCode("5511999999999", "sms"));
    expect(sms.code).toBe("not_supported");
    expect(sms.status).toBe(501);
    expect(sms.message).toMatch(/SMS/);
    expect((await apiError(r.session.requestPairingCode("12"))).code).toBe("validation_error");
    await r.session.start();
    expect((await apiError(r.session.requestPairingCode("5511999999999"))).code).toBe("bad_request");
  });

  it("times out when the socket never gets ready", async () => {
    const r = await rig({ pairingReadyTimeoutMs: 50 });
    await r.session.start();
    expect((await apiError(r.session.requestPairingCode("5511999999999"))).code).toBe("network_timeout");
  });
});
