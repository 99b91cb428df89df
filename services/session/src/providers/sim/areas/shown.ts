import { phoneOf } from "../../addressing.ts";
import type { ProviderContext } from "../../contract.ts";

/**
 * How the sim areas show a person simnet names (a caller, a group member, a contact's facts): by
 * number when the instance knows the privacy id's (spec 1 rule 3), with `phone` filled from it when
 * simnet left it empty. One helper for calls.ts, contacts.ts and groups.ts.
 */
export async function shownContact<C extends { id: string; phone: string }>(
  ctx: Pick<ProviderContext, "identity">,
  c: C,
): Promise<C> {
  const id = await ctx.identity.rewrite(c.id);
  return { ...c, id, phone: c.phone || phoneOf(id) };
}
