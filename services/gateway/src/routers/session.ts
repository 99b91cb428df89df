import {
  ApiError,
  type ConnectionStatus,
  cappingSchema,
  deviceStillLinked,
  type ErrorCode,
  type Instance,
  instanceEnvelopeSchema,
  logoutInput,
  meSchema,
  notInStatus,
  pairingCodeInput,
  passkeyAssertionInput,
  passkeyChallengeSchema,
  qrResponseSchema,
  type StatusCause,
  statusReasonOf,
  successSchema,
  timelockSchema,
} from "@gw/contracts";
import { clearAuthStateUnowned } from "@gw/platform";
import { AVAILABLE_PROVIDERS } from "@gw/session";
import QRCode from "qrcode";
import { z } from "zod";
import type { Context } from "../trpc/context.ts";
import { instanceProcedure, router } from "../trpc/init.ts";

const tags = ["Connection"];
const pairingTags = ["Pairing"];

/**
 * Routes that need the instance in a given state: otherwise `422 instance_not_connected`, or, while
 * it is STARTING (it gets somewhere on its own), `503 network_unavailable` with Retry-After; the
 * message says why it is where it is (`statusReason`).
 */
function requireStatus(instance: Instance, wanted: ConnectionStatus, what: string): void {
  if (instance.connectionStatus === wanted) return;
  throw notInStatus(instance, `${what} exige connectionStatus ${wanted}`, {
    connectionStatus: `esperado ${wanted}, atual ${instance.connectionStatus}`,
  });
}

/** Writes a status while no pod owns the instance, with its `session.status` event. */
async function setIdleStatus(
  ctx: Context,
  id: string,
  fields: Parameters<Context["platform"]["instances"]["setConnection"]>[2],
  cause: StatusCause | null = null,
) {
  const { previous, previousReason, instance } = await ctx.platform.instances.setConnection(id, null, {
    ...fields,
    ...(fields.connectionStatus ? { statusReason: statusReasonOf(cause) } : {}),
  });
  if (fields.connectionStatus && (previous !== fields.connectionStatus || (cause && cause.reason !== previousReason))) {
    await ctx.platform.events.sessionStatus(instance, fields.connectionStatus, previous, cause);
  }
  return instance;
}

/** How long a stopped instance's logout waits for a pod to remove its device on the network. */
const LOGOUT_WAIT_MS = 15_000;

/**
 * The logout of an instance no pod holds (stopped): a paired one is taken by a pod to remove its
 * device on the network, never started (`logoutPending`, session ownership/); when none has done
 * it within LOGOUT_WAIT_MS, the pairing is wiped here only and `session.status` says the phone
 * must remove the device (docs/lifecycle.md "Logout").
 */
async function logoutUnowned(ctx: Context, instance: Instance): Promise<void> {
  const { redis, keys } = ctx.platform;
  if (instance.phone) {
    await redis.multi().sadd(keys.logoutPending, instance.id).sadd(keys.running, instance.id).exec();
    await ctx.sessions.kick();
    const until = Date.now() + LOGOUT_WAIT_MS;
    while (Date.now() < until) {
      if (!(await redis.sismember(keys.logoutPending, instance.id))) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    await redis.multi().srem(keys.logoutPending, instance.id).srem(keys.running, instance.id).exec();
  }
  await clearAuthStateUnowned(redis, keys, instance.id);
  const why = instance.phone ? deviceStillLinked("no session server could reach the network in time") : null;
  await setIdleStatus(ctx, instance.id, { connectionStatus: "STOPPED", phone: "", pushName: "" }, why);
}

async function start(ctx: Context, instance: Instance): Promise<Instance> {
  if (!(AVAILABLE_PROVIDERS as readonly string[]).includes(instance.provider)) {
    throw new ApiError("not_supported_by_provider", `O provedor ${instance.provider} ainda não está disponível.`);
  }
  await ctx.platform.redis.sadd(ctx.platform.keys.running, instance.id);
  let current = instance;
  if (instance.connectionStatus === "STOPPED" || instance.connectionStatus === "FAILED") {
    current = await setIdleStatus(ctx, instance.id, { connectionStatus: "STARTING" });
  }
  await ctx.sessions.kick();
  return current;
}

/** Pairing routes (spec 4.2; standard instances, the capability table): in SCAN_QR_CODE; the owner answers. */
async function pairingOwner(ctx: Context & { instance: Instance }, what: string) {
  requireStatus(ctx.instance, "SCAN_QR_CODE", what);
  return ctx.sessions.owner(ctx.instance.id);
}

/** Account information: the connection must be WORKING; the owner answers. */
async function workingOwner(ctx: Context & { instance: Instance }, what: string) {
  requireStatus(ctx.instance, "WORKING", what);
  return ctx.sessions.owner(ctx.instance.id);
}

const pairingStep = (method: "GET" | "POST", path: string, summary: string, errors: ErrorCode[] = []) =>
  instanceProcedure.meta({
    auth: "instance",
    errors: ["instance_not_connected", "network_unavailable", ...errors],
    openapi: { method, path: `/instances/{instanceId}/${path}`, tags: pairingTags, summary },
  });

const accountInfo = (path: string, summary: string) =>
  instanceProcedure.meta({
    auth: "instance",
    errors: ["instance_not_connected", "network_unavailable", "network_timeout"],
    openapi: { method: "GET", path: `/instances/{instanceId}/${path}`, tags, summary },
  });

const lifecycle = (path: string, summary: string, description: string) =>
  instanceProcedure.meta({
    auth: "instance",
    errors: ["network_unavailable"],
    openapi: { method: "POST", path: `/instances/{instanceId}/${path}`, tags, summary, description },
  });

/** Spec 4.1 connection routes, 4.2 pairing, and the account info routes; docs/lifecycle.md. */
export const sessionRouter = router({
  start: lifecycle(
    "start",
    "Turn the connection on",
    "STOPPED/FAILED → STARTING, then SCAN_QR_CODE (unpaired) or WORKING (paired, no QR).",
  )
    .output(instanceEnvelopeSchema)
    .mutation(async ({ ctx }) => ({ instance: await start(ctx, ctx.instance) })),

  stop: lifecycle("stop", "Turn the connection off, keeping the pairing", "→ STOPPED; a later start needs no QR.")
    .output(instanceEnvelopeSchema)
    .mutation(async ({ ctx }) => {
      const { id } = ctx.instance;
      await ctx.platform.redis.srem(ctx.platform.keys.running, id);
      const owner = await ctx.sessions.ownerIfAny(id);
      if (owner) await owner.stop(id);
      else await setIdleStatus(ctx, id, { connectionStatus: "STOPPED" });
      return { instance: await ctx.platform.instances.require(id) };
    }),

  restart: lifecycle(
    "restart",
    "Restart the connection",
    "Reconnects (→ STARTING → WORKING or SCAN_QR_CODE); a stopped instance starts.",
  )
    .output(instanceEnvelopeSchema)
    .mutation(async ({ ctx }) => {
      const { id } = ctx.instance;
      const running = await ctx.platform.redis.sismember(ctx.platform.keys.running, id);
      if (!running) return { instance: await start(ctx, ctx.instance) };
      await (await ctx.sessions.owner(id)).restart(id);
      return { instance: await ctx.platform.instances.require(id) };
    }),

  logout: lifecycle(
    "logout",
    "Unpair: disconnect and remove the device on the phone",
    "→ STOPPED with the pairing wiped; the next start shows a QR. `apps.purge` is accepted (no session apps keep data yet).",
  )
    .input(logoutInput)
    .output(instanceEnvelopeSchema)
    .mutation(async ({ ctx }) => {
      const { id } = ctx.instance;
      await ctx.platform.redis.srem(ctx.platform.keys.running, id);
      const owner = await ctx.sessions.ownerIfAny(id);
      if (owner) await owner.logout(id);
      else await logoutUnowned(ctx, ctx.instance);
      return { instance: await ctx.platform.instances.require(id) };
    }),

  qrCode: pairingStep("GET", "qr-code", "The current QR code (SCAN_QR_CODE only; changes about every 20 s)")
    .input(z.object({ format: z.enum(["image", "raw"], "use format=image ou format=raw") }))
    .output(qrResponseSchema)
    .query(async ({ ctx, input }) => {
      const value = await (await pairingOwner(ctx, "O QR code")).qr(ctx.instance.id);
      if (input.format === "raw") return { data: "", mimetype: "text/plain", value };
      const png = await QRCode.toBuffer(value, { type: "png", margin: 2, width: 300, errorCorrectionLevel: "M" });
      return { data: png.toString("base64"), mimetype: "image/png", value };
    }),

  pairingCode: pairingStep(
    "POST",
    "pairing-code",
    "An 8-character code to type on the phone instead of scanning (SCAN_QR_CODE only)",
    // not_supported: `method` sms/voice, which standard instances cannot send the code by.
    ["too_many_attempts", "not_supported"],
  )
    .input(pairingCodeInput)
    .output(successSchema.extend({ code: z.string().meta({ description: "8 characters, valid a few minutes" }) }))
    .mutation(async ({ ctx, input }) => {
      const owner = await pairingOwner(ctx, "O código de pareamento");
      const method = input.method === "sms" || input.method === "voice" ? input.method : undefined;
      return { success: true as const, code: await owner.pairingCode(ctx.instance.id, input.phoneNumber, method) };
    }),

  passkeyChallenge: pairingStep("GET", "passkey/challenge", "Passkey challenge", ["not_supported"])
    .output(passkeyChallengeSchema)
    .query(async ({ ctx }) => (await pairingOwner(ctx, "O passkey")).passkeyChallenge(ctx.instance.id)),

  passkey: pairingStep("POST", "passkey", "Answer the passkey challenge", ["not_supported"])
    .input(passkeyAssertionInput)
    .output(successSchema)
    .mutation(async ({ ctx, input: { instanceId, ...assertion } }) => {
      await (await pairingOwner(ctx, "O passkey")).submitPasskey(instanceId, assertion);
      return { success: true as const };
    }),

  passkeyConfirmation: pairingStep("GET", "passkey/confirmation", "Passkey confirmation code", ["not_supported"])
    .output(z.object({ code: z.string() }))
    .query(async ({ ctx }) => (await pairingOwner(ctx, "O passkey")).passkeyConfirmation(ctx.instance.id)),

  passkeyConfirm: pairingStep("POST", "passkey/confirm", "Confirm the passkey pairing", ["not_supported"])
    .output(successSchema)
    .mutation(async ({ ctx }) => {
      await (await pairingOwner(ctx, "O passkey")).confirmPasskey(ctx.instance.id);
      return { success: true as const };
    }),

  me: accountInfo("me", "The connected account (spec 2.2)")
    .output(meSchema)
    .query(async ({ ctx }) => {
      const { id } = ctx.instance;
      const owner = await workingOwner(ctx, "Os dados da conta");
      // The operator has no quota or restriction of this shape: its number data is GET /phone-number.
      const official = ctx.instance.kind === "official";
      const [account, messageCapping, reachoutTimelock] = await Promise.all([
        owner.account(id),
        official ? null : owner.capping(id),
        official ? null : owner.timelock(id),
      ]);
      return {
        id: `${account.phone}@c.us`,
        jid: `${account.phone}@s.whatsapp.net`,
        lid: account.lid,
        pushName: account.pushName,
        messageCapping,
        reachoutTimelock,
      };
    }),

  capping: accountInfo("capping", "New-conversation quota (spec 2.3)")
    .output(cappingSchema)
    .query(async ({ ctx }) => (await workingOwner(ctx, "A cota")).capping(ctx.instance.id)),

  timelock: accountInfo("timelock", "Contact restriction (spec 2.4)")
    .output(timelockSchema)
    .query(async ({ ctx }) => (await workingOwner(ctx, "A restrição")).timelock(ctx.instance.id)),
});
