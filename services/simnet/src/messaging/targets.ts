// Who a chat id or a number is on the network: the target of a send (an account or a group),
// whether a number is on the network, and a group's metadata as a viewer sees it.
import { SimnetError } from "../errors.ts";
import { phoneDigits } from "../ids.ts";
import type { Account, Group } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import type { GroupMetadata } from "../wire/protocol.ts";

export type Target = { kind: "user"; acc: Account; chatId: string } | { kind: "group"; group: Group; chatId: string };

/** `to` as digits (ninth-digit tolerant), `<digits>@c.us`, `<digits>@lid` or `<digits>@g.us`. */
export function resolveTarget(state: SimnetState, to: string): Target {
  if (to.endsWith("@g.us")) {
    const group = state.groups.get(to);
    if (!group) throw new SimnetError("not_on_network", `no group ${to}`);
    return { kind: "group", group, chatId: group.id };
  }
  if (to.endsWith("@lid")) {
    const acc = state.accountsByLid.get(to);
    if (!acc) throw new SimnetError("not_on_network", `no account has the lid ${to}`);
    return { kind: "user", acc, chatId: acc.lid };
  }
  if (!phoneDigits(to)) throw new SimnetError("bad_request", `not a chat id: ${to}`);
  const acc = state.findAccount(to);
  if (!acc) throw new SimnetError("not_on_network", `${to} is not on the network`);
  return { kind: "user", acc, chatId: `${acc.phone}@c.us` };
}

export function checkExists(
  state: SimnetState,
  viewerPhone: string | null,
  raw: string,
): { exists: boolean; chatId: string | null; lid: string | null } {
  if (!phoneDigits(raw)) throw new SimnetError("bad_request", `not a phone number: ${raw}`);
  const acc = state.findAccount(raw);
  if (!acc) return { exists: false, chatId: null, lid: null };
  return {
    exists: true,
    chatId: `${acc.phone}@c.us`,
    lid: state.phoneVisible(acc, viewerPhone) ? acc.lid : null,
  };
}

export function groupMetadata(state: SimnetState, group: Group, viewerPhone: string | null): GroupMetadata {
  return {
    id: group.id,
    subject: group.subject,
    onlyAdminsCanSend: group.onlyAdminsCanSend,
    creation: group.creation,
    participants: [...group.participants].flatMap((p) => {
      const acc = state.accounts.get(p);
      return acc ? [{ ...state.peer(acc, viewerPhone), admin: group.admins.has(p) }] : [];
    }),
  };
}
