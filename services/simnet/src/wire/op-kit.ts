// The kit of wire operations (`request.op`): what an operation gets, and how it is declared.
// wire.ts dispatches them; every feature area adds its own (areas/index.ts).
import { z } from "zod";
import { SimnetError } from "../errors.ts";
import type { Origin } from "../messaging/types.ts";
import type { Account, Connection, Device } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";

export interface OpContext {
  state: SimnetState;
  conn: Connection;
}
export interface OpenContext extends OpContext {
  acc: Account;
  device: Device;
  origin: Origin;
}

export interface OpDef {
  phase: "pairing" | "open";
  run(ctx: OpContext, args: unknown): unknown;
}

export function parseArgs<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) throw new SimnetError("bad_request", z.prettifyError(parsed.error));
  return parsed.data;
}

export function pairingOp<S extends z.ZodType>(schema: S, run: (ctx: OpContext, args: z.infer<S>) => unknown): OpDef {
  return { phase: "pairing", run: (ctx, raw) => run(ctx, parseArgs(schema, raw)) };
}

export function openOp<S extends z.ZodType>(schema: S, run: (ctx: OpenContext, args: z.infer<S>) => unknown): OpDef {
  return {
    phase: "open",
    run: (ctx, raw) => {
      const device = ctx.conn.deviceId ? ctx.state.devices.get(ctx.conn.deviceId) : undefined;
      const acc = device ? ctx.state.accounts.get(device.phone) : undefined;
      if (!device || !acc) throw new SimnetError("not_open", "this connection has no device");
      return run(
        { state: ctx.state, conn: ctx.conn, acc, device, origin: { kind: "device", device } },
        parseArgs(schema, raw),
      );
    },
  };
}

/** A control API body or params (`422`-like `validation_error` with the issues). */
export function parseBody<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new SimnetError("validation_error", z.prettifyError(parsed.error), {
      issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  }
  return parsed.data;
}
