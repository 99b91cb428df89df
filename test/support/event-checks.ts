// Shared by the event-schema tests: what a signed delivery must be (spec 6.1–6.3 and the kind's schema).
import { type EventKind, eventEnvelopeSchemaOf } from "@gw/contracts";
import { verify } from "@gw/webhook-verify";
import { expect } from "vitest";
import { until } from "./e2e-helpers.ts";
import type { Received, Receiver } from "./receiver.ts";

export type Payload = Record<string, any>;

/** Why a delivery is not what the spec and the schemas say: its signature, headers, envelope. */
export function deliveryProblems(d: Received, secret: string): string[] {
  const out: string[] = [];
  const header = (name: string) => d.headers[name] as string | undefined;
  const signed = verify({ header: header("x-service-signature"), rawBody: d.rawBody, secret });
  if (!signed.ok) out.push(`signature: ${signed.reason}`);
  if (header("x-service-event") !== d.envelope.event) out.push(`X-Service-Event ${header("x-service-event")}`);
  if (header("x-service-event-id") !== d.envelope.id) out.push(`X-Service-Event-Id ${header("x-service-event-id")}`);
  if (!/^dlv_[0-9a-z]{26}$/.test(header("x-service-delivery") ?? "")) out.push("X-Service-Delivery");
  const parsed = eventEnvelopeSchemaOf(d.envelope.event).safeParse(d.envelope);
  if (!parsed.success) {
    for (const i of parsed.error.issues) out.push(`${i.path.join(".") || "(envelope)"}: ${i.message}`);
    out.push(`payload: ${JSON.stringify(d.envelope.payload).slice(0, 2_000)}`);
  }
  return out;
}

/** The payload of the first delivery of `kind` that `match` accepts, once it arrived; checked. */
export async function checkedDelivery(
  rx: Receiver,
  secret: string,
  kind: EventKind,
  match: (p: Payload) => boolean = () => true,
): Promise<Payload> {
  const got = await until(
    async () => rx.received.find((d) => d.envelope.event === kind && match(d.envelope.payload as Payload)),
    `a ${kind} delivery`,
    20_000,
  );
  expect(deliveryProblems(got, secret), `${kind} ${got.envelope.id}`).toEqual([]);
  return got.envelope.payload as Payload;
}
