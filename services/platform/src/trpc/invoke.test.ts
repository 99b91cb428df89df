import { initTRPC, TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { compileProcedure } from "./invoke.ts";

type Ctx = { user: string | null; seen?: string[] };
const t = initTRPC.context<Ctx>().meta<{ tag?: string }>().create();

/** Each case runs through tRPC's own caller and through the compiled function: same answer or same error. */
async function both(procedure: unknown, ctx: Ctx, input: unknown) {
  const router = t.router({ p: procedure as ReturnType<typeof t.procedure.query> });
  const viaTrpc = await t
    .createCallerFactory(router)(ctx)
    .p(input as never)
    .then(
      (v) => ({ ok: true as const, v }),
      (e: unknown) => ({ ok: false as const, e }),
    );
  const viaCompiled = await compileProcedure<Ctx>(procedure, "p")(ctx, input).then(
    (v) => ({ ok: true as const, v }),
    (e: unknown) => ({ ok: false as const, e }),
  );
  return { viaTrpc, viaCompiled };
}

/** The error of a failed call. */
const errorOf = (r: { ok: boolean; e?: unknown } | { ok: boolean; v?: unknown }) =>
  (r as { e?: unknown }).e as TRPCError;

function sameError(a: { ok: boolean; e?: unknown }, b: { ok: boolean; e?: unknown }) {
  expect(a.ok).toBe(false);
  expect(b.ok).toBe(false);
  const x = a.e as TRPCError;
  const y = b.e as TRPCError;
  expect(y).toBeInstanceOf(TRPCError);
  expect(y.code).toBe(x.code);
  expect(y.message).toBe(x.message);
  expect((y.cause as Error | undefined)?.constructor).toBe((x.cause as Error | undefined)?.constructor);
  expect((y.cause as Error | undefined)?.message).toBe((x.cause as Error | undefined)?.message);
}

class Refused extends Error {}

const authed = t.procedure.input(z.object({ id: z.string() })).use(({ ctx, input, meta, next }) => {
  if (!ctx.user) throw new Refused(`no user for ${input.id}`);
  return next({ ctx: { seen: [`${meta?.tag}:${input.id}`] } });
});

describe("compileProcedure", () => {
  it("merges successive inputs, extends the context and answers what tRPC answers", async () => {
    const p = authed
      .meta({ tag: "m" })
      .input(z.object({ text: z.string(), n: z.number().default(3) }))
      .mutation(({ ctx, input }) => ({ ...input, user: ctx.user, seen: ctx.seen }));
    const { viaTrpc, viaCompiled } = await both(p, { user: "u" }, { id: "a", text: "hi", extra: 1 });
    expect(viaTrpc).toEqual({ ok: true, v: { id: "a", text: "hi", n: 3, user: "u", seen: ["m:a"] } });
    expect(viaCompiled).toEqual(viaTrpc);
  });

  it("throws BAD_REQUEST for input, before the middlewares after it", async () => {
    const p = authed.input(z.object({ text: z.string() })).query(() => "never");
    const r1 = await both(p, { user: "u" }, { id: "a" }); // text missing: the second parser
    sameError(r1.viaTrpc, r1.viaCompiled);
    expect(errorOf(r1.viaCompiled).code).toBe("BAD_REQUEST");
    const r2 = await both(p, { user: null }, { id: 5 }); // the first parser, before the middleware
    sameError(r2.viaTrpc, r2.viaCompiled);
  });

  it("wraps what a middleware or the resolver throws as tRPC does", async () => {
    const r1 = await both(
      authed.query(() => "x"),
      { user: null },
      { id: "a" },
    );
    sameError(r1.viaTrpc, r1.viaCompiled);
    expect(errorOf(r1.viaCompiled).cause).toBeInstanceOf(Refused);
    const r2 = await both(
      t.procedure.query(() => {
        throw new TRPCError({ code: "NOT_FOUND", message: "gone" });
      }),
      { user: null },
      undefined,
    );
    sameError(r2.viaTrpc, r2.viaCompiled);
  });

  it("gives a middleware the rest of the chain as a result object, and keeps what it returns", async () => {
    const seen: unknown[] = [];
    const p = t.procedure
      .use(async ({ next }) => {
        const result = await next();
        seen.push(result.ok ? "ok" : (result as { error: TRPCError }).error.code);
        return result;
      })
      .input(z.object({ fail: z.boolean() }))
      .query(({ input }) => {
        if (input.fail) throw new Refused("failed");
        return "fine";
      });
    const good = await both(p, { user: null }, { fail: false });
    expect(good.viaCompiled).toEqual(good.viaTrpc);
    const bad = await both(p, { user: null }, { fail: true });
    sameError(bad.viaTrpc, bad.viaCompiled);
    expect(seen).toEqual(["ok", "ok", "INTERNAL_SERVER_ERROR", "INTERNAL_SERVER_ERROR"]);
  });

  it("validates the output as tRPC does", async () => {
    const p = t.procedure
      .input(z.object({ n: z.number() }))
      .output(z.object({ n: z.number().max(5) }))
      .query(({ input }) => ({ n: input.n, dropped: true }));
    const good = await both(p, { user: null }, { n: 2 });
    expect(good.viaCompiled).toEqual({ ok: true, v: { n: 2 } });
    expect(good.viaCompiled).toEqual(good.viaTrpc);
    const bad = await both(p, { user: null }, { n: 9 });
    sameError(bad.viaTrpc, bad.viaCompiled);
    expect(errorOf(bad.viaCompiled).message).toBe("Output validation failed");
  });

  it("refuses a middleware that does not call next", async () => {
    const p = t.procedure.use((() => undefined) as never).query(() => "x");
    const r = await both(p, { user: null }, undefined);
    sameError(r.viaTrpc, r.viaCompiled);
  });
});
