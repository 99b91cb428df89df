// What a feature area of the simulated network is (SimnetArea): its wire operations and its
// control API routes. The registry's type, in a file of its own below the list (index.ts) and
// the areas, which both import it.
import type { FastifyInstance } from "fastify";
import type { SimnetState } from "../state/state.ts";
import type { OpDef } from "../wire/op-kit.ts";

export interface SimnetArea {
  name: string;
  /** Operations a connected device asks for (`request.op`), e.g. `labels.list`. */
  ops?: Record<string, OpDef>;
  /** The area's control API routes (under `/simnet`, Bearer ADMIN_TOKEN). */
  control?(app: FastifyInstance, state: SimnetState): void;
}
