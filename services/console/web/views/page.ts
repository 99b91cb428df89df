import type { Instance } from "@gw/contracts";
import type { Credential } from "../api.ts";
import type { Cleanup, Ctx } from "../context.ts";
import type { Live } from "../live.ts";

/** One instance's screen, as its tabs see it. */
export interface InstancePage {
  ctx: Ctx;
  id: string;
  /** The instance's own token (its routes take no other). */
  cred: Credential;
  live: Live;
  /** The instance as last read. */
  instance(): Instance;
  /** Called with the instance each time it is read again (a status change, an action). */
  onChange(fn: (i: Instance) => void): () => void;
  /** Reads the instance again now. */
  refresh(): Promise<Instance>;
}

export type Tab = (root: HTMLElement, page: InstancePage) => Cleanup | undefined;
