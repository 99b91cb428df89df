import type { AccountInfo, EventKind, InboundMessage } from "@gw/contracts";
import { NETWORK_ACKS, type ProviderContext } from "../../contract.ts";
import type { SimAckFrame } from "../addressing.ts";
import type { SimArea } from "../area.ts";
import { type SimMessageFrame, simInbound } from "../inbound.ts";
import type { ServerFrame } from "./connection.ts";

/**
 * The sim session's event mapping: simnet's traffic frames (everything but the connection's own,
 * connection.ts) become provider events. Messages are emitted in the contract's inbound shape
 * (inbound.ts) after their addressing is learnt; acks go one at a time to the send side
 * (send.ts: a refusal may be retried on the other address first); `event` frames, already shaped
 * as spec 6.2 events, are emitted in order after the area's reshaping, if any; any other frame
 * type is an area's notification. The areas register those here (the hooks of {@link SimArea}).
 */

type FrameHandler = (frame: Record<string, unknown>) => void | Promise<void>;
type EventTransform = (payload: Record<string, unknown>) => Promise<Record<string, unknown>>;
type EventMessage = (payload: Record<string, unknown>) => InboundMessage | null;

export interface SimFramesDeps {
  /** A one-to-one message's addressing is learnt (send.ts). */
  learn(f: SimMessageFrame): Promise<void>;
  /** An ack that counts (send.ts). */
  ack(f: SimAckFrame): Promise<void>;
  /** Errors of the work done here (connection.ts). */
  onError(err: unknown): void;
}

export class SimFrames {
  /** Handlers of the feature areas' own simnet frames (providers/sim/areas/). */
  private readonly frameHandlers = new Map<string, FrameHandler>();
  private readonly eventTransforms = new Map<string, EventTransform>();
  private readonly eventMessages = new Map<string, EventMessage>();
  private readonly openHandlers: ((me: AccountInfo) => void | Promise<void>)[] = [];
  private eventChain: Promise<void> = Promise.resolve();
  /** Acks one at a time: a retry's lookup must not let a later ack overtake. */
  private ackChain: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: ProviderContext,
    private readonly deps: SimFramesDeps,
  ) {}

  /** What the areas register (their part of {@link SimArea}). */
  readonly hooks: Pick<SimArea, "onFrame" | "onEvent" | "onEventMessage" | "onOpen"> = {
    onFrame: (type, handler) => this.frameHandlers.set(type, handler),
    onEvent: (kind, transform) => this.eventTransforms.set(kind, transform),
    onEventMessage: (kind, toMessage) => this.eventMessages.set(kind, toMessage),
    onOpen: (handler) => this.openHandlers.push(handler),
  };

  /** The connection opened: the areas' work of a new connection (presence applied again), without holding up the frames. */
  opened(me: AccountInfo): void {
    for (const handler of this.openHandlers) {
      void Promise.resolve()
        .then(() => handler(me))
        .catch((err) => this.deps.onError(err));
    }
  }

  async onFrame(frame: ServerFrame): Promise<void> {
    switch (frame.type) {
      case "message": {
        const f = frame as unknown as SimMessageFrame;
        this.deps.learn(f).catch((err) => this.ctx.log.debug({ err }, "keeping a conversation's addressing failed"));
        this.ctx.emit({ type: "message", message: simInbound(f) });
        return;
      }
      case "ack": {
        const f = frame as unknown as SimAckFrame;
        if (!NETWORK_ACKS.has(f.status)) return;
        this.ackChain = this.ackChain.then(() => this.deps.ack(f)).catch((err) => this.deps.onError(err));
        return;
      }
      case "event": {
        // A spec 6.2 event simnet already shaped (labels, presence, groups, calls, …).
        const f = frame as { kind?: EventKind; payload?: Record<string, unknown> };
        const { kind, payload } = f;
        if (!kind || !payload) return;
        const transform = this.eventTransforms.get(kind);
        const message = this.eventMessages.get(kind)?.(payload) ?? null;
        // One after the other: a reshaping that waits (a Redis lookup) must not reorder events.
        this.eventChain = this.eventChain
          .then(async () =>
            this.ctx.emit(
              message
                ? { type: "message", message }
                : { type: "event", kind, payload: transform ? await transform(payload) : payload },
            ),
          )
          .catch((err) => this.deps.onError(err));
        return;
      }
      default:
        await this.frameHandlers.get(frame.type)?.(frame as Record<string, unknown>);
    }
  }
}
