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
