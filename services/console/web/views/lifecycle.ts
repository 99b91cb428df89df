import type { Instance } from "@gw/contracts";
import { type Credential, call } from "../api.ts";
import { h } from "../dom.ts";
import { act, showLasting, showNotice } from "../notify.ts";
import { forgetToken, rememberToken } from "../session.ts";
import { confirmed } from "../widgets.ts";
import type { InstancePage } from "./page.ts";

/** Start, stop, restart, log out (instance token); rotate the token and delete (admin token). */
export function lifecycleActions(page: InstancePage, cred: Credential, admin: Credential | null): HTMLElement {
  const i = page.instance();
  const step = (label: string, path: string, ask?: string) =>
    h(
      "button",
      {
        type: "button",
        "data-testid": `action-${path}`,
        onclick: (ev: Event) => {
          if (ask && !confirmed(ask)) return;
          void act(ev.currentTarget as HTMLButtonElement, async () => {
            const out = await call<{ instance: Instance }>(cred, "POST", `/v1/instances/${page.id}/${path}`);
            showNotice(`${label}: ${out.instance.connectionStatus}`);
            await page.refresh();
          });
        },
      },
      label,
    );
  const adminActions = admin
    ? [
        h(
          "button",
          {
            type: "button",
            onclick: (ev: Event) => {
              if (!confirmed(`Rotate the token of ${i.name}? The current one is refused at once, everywhere.`)) return;
              void act(ev.currentTarget as HTMLButtonElement, async () => {
                const { token } = await call<{ token: string }>(admin, "POST", `/v1/admin/instances/${page.id}/token`);
                rememberToken(page.id, token);
                showLasting("New token (shown once, kept in this tab only): ", h("code", {}, token));
                page.ctx.go(`#/i/${page.id}/overview`);
              });
            },
          },
          "Rotate token",
        ),
        h(
          "button",
          {
            type: "button",
            class: "danger",
            "data-testid": "action-delete",
            onclick: (ev: Event) => {
              if (!confirmed(`Delete ${i.name} (${i.id})? Its token stops working at once.`)) return;
              void act(ev.currentTarget as HTMLButtonElement, async () => {
                await call(admin, "DELETE", `/v1/admin/instances/${page.id}`);
                forgetToken(page.id);
                showNotice(`Deleted ${i.name}.`);
                page.ctx.go("#/");
              });
            },
          },
          "Delete",
        ),
      ]
    : [];
  return h(
    "div",
    { class: "actions" },
    step("Start", "start"),
    step("Stop", "stop"),
    step("Restart", "restart"),
    step(
      "Log out",
      "logout",
      `Log ${i.name} out? The device is removed from the phone; pairing again needs a new scan.`,
    ),
    adminActions,
  );
}
