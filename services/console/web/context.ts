import type { Session } from "./session.ts";

/** /console/config.json (the server's ConsoleSettings). */
export interface Settings {
  temporalUiUrl: string;
  temporalNamespace: string;
}

export interface Ctx {
  session: Session;
  settings: Settings;
  /** Goes to a screen (a `#/…` route); the tokens never enter it. */
  go(route: string): void;
}

/** A screen: draws into `root`; returns what stops its timers and streams when it is left. */
export type Cleanup = () => void;
export type View = (root: HTMLElement, ctx: Ctx) => Cleanup | undefined;
