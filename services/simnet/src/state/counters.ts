// The network's counters (what the control API's `/simnet/stats` shows) and the faults a test has
// injected (outage, slow answers, rate limits, unreachable instances): fresh ones at start and on
// every reset.

export function newStats() {
  return {
    /** WebSocket upgrades accepted. */
    connectionsAccepted: 0,
    /** `open` frames sent (authenticated connections, after pairing or with creds). */
    connectionsOpened: 0,
    /** Times a device connected while another socket of the same device was open. */
    conflicts: 0,
    conflictLog: [] as { deviceId: string; instanceId: string | null; at: number }[],
    /** Times an instance connected while another socket of the same instance id was open. */
    instanceOverlaps: 0,
    /** Upgrades refused during an outage. */
    refusedUpgrades: 0,
    messagesSent: 0,
  };
}

/**
 * `rateLimitSends`: how many of the next sends the network refuses with `rate_overlimit`, of
 * any account; `rateLimitedPhones`: the same, counted per sending account.
 */
export function newFaults() {
  return {
    outageUntil: 0,
    outageTimer: null as NodeJS.Timeout | null,
    slowMs: 0,
    /** A device's session opens this long after its hello: a slow handshake, for handover tests. */
    openDelayMs: 0,
    rateLimitSends: 0,
    rateLimitedPhones: new Map<string, number>(),
    /**
     * Instance ids (the `?instance=` of the upgrade) the network cannot be reached from, until when
     * (ms): the connection is reset before any answer, as a DNS or routing failure looks.
     */
    unreachable: new Map<string, number>(),
  };
}
