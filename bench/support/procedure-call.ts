// node --import tsx bench/support/procedure-call.ts — µs per procedure call through tRPC's own
// call (what the REST binding and the pod's `/rpc` did until the eleventh round) against the same
// procedure compiled once (services/platform/src/trpc/invoke.ts), in one process, alternating
// rounds: the gateway's text send (instanceProcedure's input + middleware, the route's body schema,
// its output union; the resolver answers at once, the instance comes from a stub cache) and the
// pod's `send` (through `createCaller`, as the pod called it). CPU work only, no I/O: what the
// change saves per call, free of the machine's noise that end-to-end runs carry.
// Relative imports: the workspace packages (and zod) resolve from the services, not from bench/.
import { queueItemSchema, sendBodies, sendResponseSchema } from "../../services/contracts/src/index.ts";
import { z } from "../../services/gateway/node_modules/zod/index.js";
import { instanceProcedure } from "../../services/gateway/src/trpc/init.ts";
import { compileProcedure } from "../../services/platform/src/trpc/invoke.ts";
import { sessionRouter } from "../../services/session/src/rpc.ts";

const instanceId = "i0123456789abcdef01234567";
const instance = {
  id: instanceId,
  kind: "standard",
  provider: "sim",
  billingStatus: "active",
  provisionedAt: "2026-01-01T00:00:00.000Z",
  connectionStatus: "WORKING",
};
const ctx = {
  caller: { kind: "instance", instanceId },
  platform: { instanceCache: { get: async () => instance } },
  http: { headers: {} },
} as never;
const result = { chatId: "15550000001@c.us", id: "true_15550000001@c.us_3EB0ABCDEF", status: "sent" };
const gatewaySend = instanceProcedure
  .meta({
    auth: "instance",
    successStatus: 201,
    openapi: { method: "POST", path: "/instances/{instanceId}/messages/text" },
  })
  .input(sendBodies.text as unknown as z.ZodObject)
  .output(z.union([sendResponseSchema.extend({ success: z.literal(true) }), sendResponseSchema, queueItemSchema]))
  .mutation(() => result);
const gatewayInput = { instanceId, chatId: "15550000001@c.us", text: "Olá! Esta é uma mensagem de teste." };
const viaTrpcGateway = (input: unknown) =>
  (gatewaySend as unknown as (o: object) => Promise<unknown>)({
    ctx,
    getRawInput: async () => input,
    path: "messages.sendText",
    type: "mutation",
    signal: undefined,
    batchIndex: 0,
  });
const compiledGateway = compileProcedure<object>(gatewaySend, "messages.sendText");

const api = { send: async () => ({ id: "3EB0ABCDEF", chatId: "15550000001@c.us" }) };
const podInput = { instanceId, chatId: "15550000001@c.us", content: { type: "text", text: "Olá!" } };
const caller = sessionRouter.createCaller({ api } as never);
const compiledPod = compileProcedure<object>(sessionRouter._def.procedures.send, "send");

async function perCall(fn: () => Promise<unknown>, n: number): Promise<number> {
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / n;
}

const N = 20_000;
const cases: [string, () => Promise<unknown>][] = [
  ["gateway sendText, tRPC's call", () => viaTrpcGateway(gatewayInput)],
  ["gateway sendText, compiled", () => compiledGateway(ctx, gatewayInput)],
  ["pod send, createCaller", () => caller.send(podInput as never)],
  ["pod send, compiled", () => compiledPod({ api }, podInput)],
];
for (const [, fn] of cases) await perCall(fn, N); // warm-up
const rounds: Record<string, number[]> = Object.fromEntries(cases.map(([name]) => [name, []]));
for (let r = 0; r < 5; r++) {
  for (const [name, fn] of cases) rounds[name]?.push(await perCall(fn, N));
}
for (const [name, xs] of Object.entries(rounds)) {
  const s = [...xs].sort((a, b) => a - b);
  console.log(
    `${name.padEnd(32)} median ${s[2]?.toFixed(2)} µs per call (rounds ${s.map((x) => x.toFixed(2)).join(", ")})`,
  );
}
