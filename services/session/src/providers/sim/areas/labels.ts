import {
  ApiError,
  labelChatNotFound,
  labelColorHex,
  labelNotFound,
  type ProviderLabel,
  personalAccountError,
} from "@gw/contracts";
import type { SimAreaModule } from "../area.ts";

/**
 * Labels on simnet (services/simnet/src/labels.ts): each operation is simnet's `labels.*` request.
 * simnet refuses a personal account (`not_business`), an unknown label (`not_found`) and a chat it
 * cannot resolve (`invalid_target`); they become the spec's errors here. simnet announces every
 * change (the API's and the phone's) as `label.*` events with the palette index only: the hex is
 * added here, and a chat shown by privacy id is shown by number when the instance knows it.
 */
export const simLabels: SimAreaModule = (area) => {
  const refusals = (extra: Record<string, () => ApiError>) => ({
    not_business: personalAccountError,
    ...extra,
  });
  const ask = <T>(op: string, args: unknown, errors: Record<string, () => ApiError> = {}) =>
    area.request(op, args, refusals(errors)) as Promise<T>;

  const withHex = (l: unknown) => {
    const label = l as ProviderLabel | null;
    return label ? { ...label, colorHex: labelColorHex(label.color) } : null;
  };
  area.onEvent("label.upsert", async (p) => ({ ...p, colorHex: labelColorHex(Number(p.color)) }));
  area.onEvent("label.deleted", async (p) => ({ ...p, colorHex: labelColorHex(Number(p.color)) }));
  const chatEvent = async (p: Record<string, unknown>) => {
    const raw = String(p.chatId ?? "");
    const chatId = await area.ctx.identity.rewrite(raw);
    return {
      labelId: p.labelId,
      chatId,
      chatLid: raw.endsWith("@lid") ? raw : null,
      label: withHex(p.label),
      timestamp: p.timestamp,
    };
  };
  area.onEvent("label.chat.added", chatEvent);
  area.onEvent("label.chat.deleted", chatEvent);

  const rewriteAll = (ids: string[]) => Promise.all(ids.map((id) => area.ctx.identity.rewrite(id)));

  return {
    "labels.list": () => ask<ProviderLabel[]>("labels.list", {}),
    "labels.create": (input) => ask<ProviderLabel>("labels.create", input),
    "labels.update": (input) =>
      ask<ProviderLabel>("labels.update", input, { not_found: () => labelNotFound(input.id) }),
    "labels.delete": (input) => ask("labels.delete", input, { not_found: () => labelNotFound(input.id) }),
    "labels.chatLabels": (input) =>
      ask<ProviderLabel[]>("labels.chat-labels", input, { invalid_target: () => labelChatNotFound(input.chatId) }),
    "labels.setChatLabels": async (input) => {
      try {
        return await ask<ProviderLabel[]>("labels.set-chat-labels", input, {
          invalid_target: () => labelChatNotFound(input.chatId),
        });
      } catch (err) {
        if (!(err instanceof ApiError) || (err as { simCode?: string }).simCode !== "not_found") throw err;
        // simnet names no field: find which of the asked labels the account lacks.
        const known = new Set((await ask<ProviderLabel[]>("labels.list", {})).map((l) => l.id));
        const unknown = input.labelIds.filter((id) => !known.has(id));
        throw labelNotFound(unknown.join(", ") || input.labelIds.join(", "), "labels");
      }
    },
    "labels.labelChats": async (input) =>
      rewriteAll(await ask<string[]>("labels.label-chats", input, { not_found: () => labelNotFound(input.id) })),
  };
};
