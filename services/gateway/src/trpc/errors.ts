import type { ErrorCode } from "@gw/contracts";

/**
 * What a route that asks the network can answer beyond its own codes: the connection is not open,
 * the network refused, failed, was out or too slow (spec 7; the providers map their failures to
 * these, e.g. providers/baileys/errors.ts).
 */
export const NETWORK_ERRORS: ErrorCode[] = [
  "instance_not_connected",
  "network_rejected",
  "network_error",
  "network_unavailable",
  "network_timeout",
];
