import * as crypto from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  sign,
  type VerifyOptions,
  verify,
  verifyOrThrow,
  WebhookVerificationError,
} from "./index.ts";

// Wrap timingSafeEqual to check that it is what compares signatures, always on equal lengths.
vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:crypto")>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const SECRET = "whsec_test";
const T = 1_700_000_000;
const BODY = '{"event":"message","id":"evt_1","text":"olá 👋"}';
// Independent vector: printf '%s' '1700000000.<BODY>' | openssl dgst -sha256 -hmac whsec_test
const BODY_V1 = "c322b505a4387e40fd741700b419ac0f9e533c4cf235cb18f63d7c6671fd8dac";
const EMPTY_V1 = "5967f3c560522fa40cf2876ebc3c3a08551dd6959aaade3b413460591895bdcc";

const check = (header: VerifyOptions["header"], extra: Partial<VerifyOptions> = {}) =>
  verify({ header, rawBody: BODY, secret: SECRET, now: T, ...extra });

afterEach(() => {
  vi.useRealTimers();
  vi.mocked(crypto.timingSafeEqual).mockClear();
});

describe("sign", () => {
  it("produces exactly t=<seconds>,v1=<lowercase hex of HMAC-SHA256(secret, `t.body`)>", () => {
    expect(sign(SECRET, BODY, T)).toBe(`t=${T},v1=${BODY_V1}`);
    expect(sign(SECRET, Buffer.from(BODY, "utf8"), T)).toBe(`t=${T},v1=${BODY_V1}`);
    expect(sign(SECRET, "", T)).toBe(`t=${T},v1=${EMPTY_V1}`);
  });

  it("defaults the timestamp to the current unix second", () => {
    vi.useFakeTimers({ now: T * 1000 + 999 });
    expect(sign(SECRET, BODY)).toBe(`t=${T},v1=${BODY_V1}`);
  });

  it("emits one v1 per secret, in order, when given several", () => {
    const header = sign(["new", "old"], BODY, T);
    expect(header).toBe(`t=${T},v1=${sign("new", BODY, T).split("v1=")[1]},v1=${sign("old", BODY, T).split("v1=")[1]}`);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])("rejects timestamp %s", (t) => {
    expect(() => sign(SECRET, BODY, t)).toThrow(RangeError);
  });

  it.each([[""], [[]], [["ok", ""]]])("rejects empty secret %j", (secret) => {
    expect(() => sign(secret as string, BODY, T)).toThrow(TypeError);
  });
});

describe("verify", () => {
  it("accepts what sign produced (round trip) and returns t", () => {
    expect(check(sign(SECRET, BODY, T))).toEqual({ ok: true, timestamp: T });
    expect(check(`t=${T},v1=${BODY_V1}`)).toEqual({ ok: true, timestamp: T });
  });

  it("round-trips random secrets and binary bodies", () => {
    for (let i = 0; i < 50; i++) {
      const secret = crypto.randomBytes(24).toString("base64url");
      const body = crypto.randomBytes(i * 37);
      const t = T + i;
      expect(verify({ header: sign(secret, body, t), rawBody: body, secret, now: t })).toEqual({
        ok: true,
        timestamp: t,
      });
    }
  });

  it("uses the system clock when now is not given", () => {
    vi.useFakeTimers({ now: (T + 10) * 1000 });
    expect(verify({ header: sign(SECRET, BODY, T), rawBody: BODY, secret: SECRET })).toEqual({
      ok: true,
      timestamp: T,
    });
    vi.setSystemTime((T + DEFAULT_TOLERANCE_SECONDS) * 1000);
    expect(verify({ header: sign(SECRET, BODY, T), rawBody: BODY, secret: SECRET })).toEqual({
      ok: false,
      reason: "stale_timestamp",
    });
  });

  describe("body", () => {
    it("rejects a body with one byte changed", () => {
      const header = sign(SECRET, BODY, T);
      const bytes = Buffer.from(BODY, "utf8");
      for (const index of [0, 10, bytes.length - 1]) {
        const tampered = Buffer.from(bytes);
        tampered[index]! ^= 0x01;
        expect(check(header, { rawBody: tampered })).toEqual({ ok: false, reason: "bad_signature" });
      }
      expect(check(header, { rawBody: BODY.replace("evt_1", "evt_2") })).toEqual({
        ok: false,
        reason: "bad_signature",
      });
      expect(check(header, { rawBody: BODY + "\n" })).toEqual({ ok: false, reason: "bad_signature" });
    });

    it("treats a string as UTF-8 and bytes as they are (non-ASCII content)", () => {
      const fromString = sign(SECRET, BODY, T);
      const utf8 = Buffer.from(BODY, "utf8");
      expect(utf8.length).toBeGreaterThan(BODY.length); // really multi-byte
      expect(check(fromString, { rawBody: utf8 })).toMatchObject({ ok: true });
      expect(check(sign(SECRET, utf8, T), { rawBody: BODY })).toMatchObject({ ok: true });
      // a plain Uint8Array, and a view into a larger buffer (byteOffset != 0)
      expect(check(fromString, { rawBody: new Uint8Array(utf8) })).toMatchObject({ ok: true });
      const padded = Buffer.concat([Buffer.from("xxxx"), utf8, Buffer.from("yyyy")]);
      expect(check(fromString, { rawBody: padded.subarray(4, 4 + utf8.length) })).toMatchObject({ ok: true });
      // the same text in another encoding is another body
      expect(check(fromString, { rawBody: Buffer.from(BODY, "latin1") })).toEqual({
        ok: false,
        reason: "bad_signature",
      });
    });

    it("rejects a re-serialized JSON body (spacing differs)", () => {
      const raw = '{ "id": "evt_1",  "event": "message", "payload": {"text": "olá"} }';
      const header = sign(SECRET, raw, T);
      const reserialized = JSON.stringify(JSON.parse(raw));
      expect(reserialized).not.toBe(raw);
      expect(check(header, { rawBody: raw })).toMatchObject({ ok: true });
      expect(check(header, { rawBody: reserialized })).toEqual({ ok: false, reason: "bad_signature" });
    });

    it("throws TypeError when given a parsed body instead of the raw one", () => {
      const header = sign(SECRET, BODY, T);
      for (const rawBody of [JSON.parse(BODY), {}, null, undefined, 42]) {
        expect(() => check(header, { rawBody })).toThrow(/JSON body parser/);
      }
    });
  });

  describe("secret", () => {
    it("rejects a wrong secret", () => {
      expect(check(sign("whsec_other", BODY, T))).toEqual({ ok: false, reason: "bad_signature" });
      expect(check(sign(SECRET, BODY, T), { secret: `${SECRET} ` })).toEqual({ ok: false, reason: "bad_signature" });
    });

    it("accepts any of several secrets (rotation)", () => {
      const byOld = sign("old", BODY, T);
      const byNew = sign("new", BODY, T);
      expect(check(byOld, { secret: ["new", "old"] })).toMatchObject({ ok: true });
      expect(check(byNew, { secret: ["new", "old"] })).toMatchObject({ ok: true });
      expect(check(byOld, { secret: ["new"] })).toEqual({ ok: false, reason: "bad_signature" });
    });

    it.each([[""], [[]], [["new", ""]], [undefined], [null]])("throws TypeError on secret %j", (secret) => {
      expect(() => check(sign(SECRET, BODY, T), { secret: secret as string })).toThrow(TypeError);
    });
  });

  describe("timestamp tolerance", () => {
    const header = sign(SECRET, BODY, T);

    it("rejects exactly 300 s in the past or the future, accepts 299 s", () => {
      expect(check(header, { now: T + 299 })).toEqual({ ok: true, timestamp: T });
      expect(check(header, { now: T + 300 })).toEqual({ ok: false, reason: "stale_timestamp" });
      expect(check(header, { now: T + 86_400 })).toEqual({ ok: false, reason: "stale_timestamp" });
      expect(check(header, { now: T - 299 })).toEqual({ ok: true, timestamp: T });
      expect(check(header, { now: T - 300 })).toEqual({ ok: false, reason: "stale_timestamp" });
      expect(check(header, { now: T + 299.999 })).toMatchObject({ ok: true });
    });

    it("takes another tolerance", () => {
      expect(check(header, { now: T + 59, toleranceSeconds: 60 })).toMatchObject({ ok: true });
      expect(check(header, { now: T + 60, toleranceSeconds: 60 })).toEqual({ ok: false, reason: "stale_timestamp" });
      expect(check(header, { now: T + 3599, toleranceSeconds: 3600 })).toMatchObject({ ok: true });
    });

    it("treats a millisecond t as stale (t is in seconds)", () => {
      const ms = sign(SECRET, BODY, T * 1000);
      expect(check(ms)).toEqual({ ok: false, reason: "stale_timestamp" });
    });

    it("reports a bad signature before a stale timestamp", () => {
      expect(check(sign("whsec_other", BODY, T - 3600))).toEqual({ ok: false, reason: "bad_signature" });
    });

    it("rejects a replayed signature under a fresh t", () => {
      const v1 = header.split("v1=")[1];
      expect(check(`t=${T + 3600},v1=${v1}`, { now: T + 3600 })).toEqual({ ok: false, reason: "bad_signature" });
    });

    it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])("throws RangeError on toleranceSeconds %s", (tol) => {
      expect(() => check(header, { toleranceSeconds: tol })).toThrow(RangeError);
    });

    it("throws TypeError on a non-finite now", () => {
      expect(() => check(header, { now: Number.NaN })).toThrow(TypeError);
    });
  });

  describe("header", () => {
    const v1 = BODY_V1;

    it.each([undefined, null, "", "   ", [] as string[]])("missing: %j", (header) => {
      expect(check(header)).toEqual({ ok: false, reason: "missing_header" });
    });

    it.each([
      ["only garbage", "garbage"],
      ["a lone hex string", v1],
      ["missing t", `v1=${v1}`],
      ["no v1", `t=${T}`],
      ["v1 empty", `t=${T},v1=`],
      ["t empty", `t=,v1=${v1}`],
      ["t not an integer", `t=${T}.5,v1=${v1}`],
      ["t negative", `t=-${T},v1=${v1}`],
      ["t signed", `t=+${T},v1=${v1}`],
      ["t with leading zero", `t=0${T},v1=${v1}`],
      ["t in exponent form", `t=1.7e9,v1=${v1}`],
      ["t hexadecimal", `t=0x6553f100,v1=${v1}`],
      ["t beyond safe integers", `t=99999999999999999999,v1=${v1}`],
      ["t twice", `t=${T},t=${T},v1=${v1}`],
      ["v1 not hex", `t=${T},v1=${"z".repeat(64)}`],
      ["v1 base64", `t=${T},v1=${Buffer.from(v1, "hex").toString("base64")}`],
      ["semicolon separators", `t=${T};v1=${v1}`],
      ["empty element", `t=${T},,v1=${v1}`],
      ["trailing comma", `t=${T},v1=${v1},`],
      ["key without value", `t=${T},v1=${v1},v0`],
      ["uppercase key", `T=${T},V1=${v1}`],
      ["space around =", `t = ${T},v1=${v1}`],
      ["space after =", `t=${T},v1= ${v1}`],
      ["space inside value", `t=${T},v1=${v1.slice(0, 10)} ${v1.slice(10)}`],
      ["JSON", JSON.stringify({ t: T, v1 })],
      ["two headers joined by Node", `t=${T},v1=${v1}, t=${T},v1=${v1}`],
      ["two headers as an array", [`t=${T},v1=${v1}`, `t=${T},v1=${v1}`]],
    ])("malformed: %s", (_name, header) => {
      expect(check(header)).toEqual({ ok: false, reason: "malformed_header" });
    });

    it("tolerates spaces or tabs around elements and around the header", () => {
      for (const header of [
        `t=${T}, v1=${v1}`,
        `  t=${T} ,\tv1=${v1}  `,
        `t=${T},v1=${v1.slice(0, 7)}0${v1.slice(8)}, v1=${v1}`,
        [`t=${T},v1=${v1}`],
      ]) {
        expect(check(header)).toEqual({ ok: true, timestamp: T });
      }
    });

    it("accepts uppercase hex", () => {
      expect(check(`t=${T},v1=${v1.toUpperCase()}`)).toMatchObject({ ok: true });
    });

    it("accepts if any of several v1 values matches", () => {
      const wrong = sign("whsec_other", BODY, T).split("v1=")[1];
      expect(check(`t=${T},v1=${wrong},v1=${v1}`)).toMatchObject({ ok: true });
      expect(check(`t=${T},v1=${v1},v1=${wrong}`)).toMatchObject({ ok: true });
      expect(check(`t=${T},v1=${wrong},v1=${wrong}`)).toEqual({ ok: false, reason: "bad_signature" });
      // what sign emits for several secrets, checked by a receiver that knows only one of them
      expect(check(sign(["whsec_next", SECRET], BODY, T))).toMatchObject({ ok: true });
    });

    it("ignores unknown schemes, but one v1 is required", () => {
      expect(check(`t=${T},v0=deadbeef,v1=${v1},v2=xyz+/=`)).toMatchObject({ ok: true });
      expect(check(`t=${T},v2=${v1}`)).toEqual({ ok: false, reason: "malformed_header" });
    });
  });

  describe("constant-time comparison", () => {
    it("compares with timingSafeEqual on equal-length buffers", () => {
      const spy = vi.mocked(crypto.timingSafeEqual);
      expect(check(sign(SECRET, BODY, T))).toMatchObject({ ok: true });
      expect(check(`t=${T},v1=${"0".repeat(64)}`)).toEqual({ ok: false, reason: "bad_signature" });
      expect(spy).toHaveBeenCalledTimes(2);
      for (const [a, b] of spy.mock.calls) expect((a as Uint8Array).length).toBe((b as Uint8Array).length);
    });

    it.each([1, 2, 62, 63, 65, 66, 128, 4096])("a v1 of %i hex digits is bad_signature, without throwing", (n) => {
      const spy = vi.mocked(crypto.timingSafeEqual);
      const candidate = (BODY_V1.repeat(64) + "0").slice(0, n);
      expect(() => check(`t=${T},v1=${candidate}`)).not.toThrow();
      expect(check(`t=${T},v1=${candidate}`)).toEqual({ ok: false, reason: "bad_signature" });
      expect(spy).not.toHaveBeenCalled();
    });

    it("a correct v1 with one digit appended or dropped is rejected", () => {
      expect(check(`t=${T},v1=${BODY_V1}0`)).toEqual({ ok: false, reason: "bad_signature" });
      expect(check(`t=${T},v1=${BODY_V1.slice(0, -1)}`)).toEqual({ ok: false, reason: "bad_signature" });
    });
  });
});

describe("verifyOrThrow", () => {
  it("returns t when valid", () => {
    expect(verifyOrThrow({ header: sign(SECRET, BODY, T), rawBody: BODY, secret: SECRET, now: T })).toBe(T);
  });

  it.each([
    ["missing_header", undefined],
    ["malformed_header", "nope"],
    ["bad_signature", sign("whsec_other", BODY, T)],
    ["stale_timestamp", sign(SECRET, BODY, T - DEFAULT_TOLERANCE_SECONDS)],
  ])("throws WebhookVerificationError %s", (reason, header) => {
    let caught: unknown;
    try {
      verifyOrThrow({ header, rawBody: BODY, secret: SECRET, now: T });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WebhookVerificationError);
    expect(caught).toBeInstanceOf(Error);
    expect(caught).toMatchObject({ name: "WebhookVerificationError", reason, statusCode: 401 });
    expect((caught as Error).message).not.toContain(SECRET);
  });
});

describe("node:http receiver (the README example)", () => {
  function readRawBody(req: IncomingMessage): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => resolve(Buffer.concat(chunks)));
      req.on("error", reject);
    });
  }

  it("accepts a signed delivery and refuses a tampered one", async () => {
    const received: unknown[] = [];
    const server = createServer(async (req, res) => {
      const rawBody = await readRawBody(req);
      const result = verify({ header: req.headers[SIGNATURE_HEADER], rawBody, secret: SECRET });
      if (!result.ok) {
        res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: result.reason }));
        return;
      }
      received.push(JSON.parse(rawBody.toString("utf8")));
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      const post = (body: string, header?: string) =>
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", ...(header ? { "X-Service-Signature": header } : {}) },
          body,
        });
      const ok = await post(BODY, sign(SECRET, BODY));
      expect(ok.status).toBe(204);
      expect(received).toEqual([JSON.parse(BODY)]);

      const tampered = await post(BODY.replace("olá", "ola"), sign(SECRET, BODY));
      expect(tampered.status).toBe(401);
      expect(await tampered.json()).toEqual({ error: "bad_signature" });

      const unsigned = await post(BODY);
      expect(await unsigned.json()).toEqual({ error: "missing_header" });
      expect(received).toHaveLength(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
