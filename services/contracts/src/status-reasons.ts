/**
 * A logout that could not reach the network: the pairing is wiped here, and the device stays in
 * the phone's "Linked devices" until removed there (docs/lifecycle.md "Logout"). The `reason` of
 * the STOPPED status every provider reports then.
 */
export const DEVICE_STILL_LINKED = "device_still_linked";

export function deviceStillLinked(why: string): string {
  return `${DEVICE_STILL_LINKED}: ${why}; remove it on the phone (Linked devices)`;
}
