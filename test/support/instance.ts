import { DEFAULT_SETTINGS, type Instance } from "@gw/contracts";

/**
 * An instance record for tests that need one in memory (no store): standard, paid, stopped,
 * the default settings; `over` replaces whole fields.
 */
export function instanceRecord(over: Partial<Instance> & Pick<Instance, "id">): Instance {
  return {
    name: "test",
    accountId: "a1",
    kind: "standard",
    phone: "",
    pushName: "",
    provider: "sim",
    connectionStatus: "STOPPED",
    billingStatus: "active",
    cancelAtPeriodEnd: false,
    currentPeriodEnd: null,
    graceUntil: null,
    provisionedAt: null,
    createdAt: new Date().toISOString(),
    suspendedAt: null,
    trialEndsAt: null,
    settings: DEFAULT_SETTINGS,
    ...over,
  };
}

let seq = 0;

/**
 * A paired, WORKING instance with a fresh id (`prefix` + a sequence + a random tail) and the
 * default settings, `storage` merged into the storage settings; `over` replaces whole fields.
 */
export function workingInstance(
  prefix: string,
  over: Partial<Instance> = {},
  storage: Partial<Instance["settings"]["storage"]> = {},
): Instance {
  seq++;
  return instanceRecord({
    id: `${prefix}${String(seq).padStart(6, "0")}${Math.random().toString(36).slice(2, 8)}`,
    phone: "5511900000000",
    pushName: "Me",
    connectionStatus: "WORKING",
    settings: { ...DEFAULT_SETTINGS, storage: { ...DEFAULT_SETTINGS.storage, ...storage } },
    ...over,
  });
}
