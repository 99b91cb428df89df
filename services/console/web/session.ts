import type { Credential } from "./api.ts";

/**
 * Who signed in, kept in this tab's sessionStorage: it survives a reload and dies with the tab.
 * Never localStorage (shared by every tab and kept on disk for good) and never the URL.
 */
export type Session = { kind: "admin"; token: string } | { kind: "instance"; instanceId: string; token: string };

const SESSION_KEY = "gw.console.session";
/** Instance tokens an admin session learned (created here, pasted, rotated): id → token. */
const TOKENS_KEY = "gw.console.instance-tokens";

function read<T>(key: string): T | null {
  try {
    const raw = sessionStorage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

export const loadSession = (): Session | null => read<Session>(SESSION_KEY);

export function saveSession(s: Session): void {
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
}

export function signOut(): void {
  sessionStorage.removeItem(SESSION_KEY);
  sessionStorage.removeItem(TOKENS_KEY);
}

const tokens = (): Record<string, string> => read<Record<string, string>>(TOKENS_KEY) ?? {};

export function rememberToken(instanceId: string, token: string): void {
  sessionStorage.setItem(TOKENS_KEY, JSON.stringify({ ...tokens(), [instanceId]: token }));
}

export function forgetToken(instanceId: string): void {
  const { [instanceId]: _, ...rest } = tokens();
  sessionStorage.setItem(TOKENS_KEY, JSON.stringify(rest));
}

/**
 * The token that opens an instance's routes: the admin token does not (they take the
 * instance's own), so an admin session uses the ones it learned.
 */
export function instanceCredential(s: Session, instanceId: string): Credential | null {
  if (s.kind === "instance") return s.instanceId === instanceId ? { kind: "instance", token: s.token } : null;
  const token = tokens()[instanceId];
  return token ? { kind: "instance", token } : null;
}

/** Every instance whose token this session holds. */
export function knownInstances(s: Session): { instanceId: string; cred: Credential }[] {
  if (s.kind === "instance") return [{ instanceId: s.instanceId, cred: { kind: "instance", token: s.token } }];
  return Object.entries(tokens()).map(([instanceId, token]) => ({ instanceId, cred: { kind: "instance", token } }));
}

export const adminCredential = (s: Session): Credential | null =>
  s.kind === "admin" ? { kind: "admin", token: s.token } : null;
