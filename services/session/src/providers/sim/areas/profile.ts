import type { AccountInfo } from "@gw/contracts";
import type { SimAreaModule } from "../area.ts";

type Done = Record<string, never>;

/**
 * Profile on simnet (services/simnet/src/profile.ts): each operation is simnet's `profile.*`. A new
 * name, set here, by another device of the account or on the phone, arrives as a `profile` frame:
 * it becomes the instance's account (its `pushName`), as Baileys' own creds update does.
 */
export const simProfile: SimAreaModule = (area) => {
  area.onFrame("profile", (f) => {
    const me = f.me as Partial<AccountInfo> | undefined;
    if (typeof me?.phone !== "string" || typeof me.pushName !== "string") return;
    area.ctx.emit({ type: "account", account: { phone: me.phone, lid: me.lid ?? "", pushName: me.pushName } });
  });
  const call = <T>(op: string, args: unknown) => area.request(op, args) as Promise<T>;
  return {
    "profile.get": () =>
      call<{ phone: string; lid: string | null; name: string; about: string | null }>("profile.get", {}),
    "profile.setName": ({ name }) => call<Done>("profile.set-name", { name }),
    "profile.setStatus": ({ status }) => call<Done>("profile.set-status", { status }),
    "profile.setPicture": (picture) => call<Done>("profile.set-picture", { picture }),
    "profile.removePicture": () => call<Done>("profile.remove-picture", {}),
  };
};
