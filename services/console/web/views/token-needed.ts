import type { Instance } from "@gw/contracts";
import { call } from "../api.ts";
import type { Ctx } from "../context.ts";
import { formValues, h } from "../dom.ts";
import { act, showError, showLasting } from "../notify.ts";
import { adminCredential, rememberToken } from "../session.ts";
import { badge, confirmed, facts, field, section } from "../widgets.ts";

/**
 * An admin on an instance whose token this tab does not hold. The instance routes take only
 * the instance's own token (the admin token opens /v1/admin only), so the operator pastes it or,
 * knowingly, rotates it: a new one is issued and the one its clients use stops working.
 */
export function renderTokenNeeded(root: HTMLElement, ctx: Ctx, id: string): undefined {
  const admin = adminCredential(ctx.session);
  const summary = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  if (admin) {
    call<{ instance: Instance }>(admin, "GET", `/v1/admin/instances/${id}`)
      .then(({ instance: i }) =>
        summary.replaceChildren(
          facts([
            ["Name", i.name],
            ["Status", badge(i.connectionStatus)],
            ["Kind", `${i.kind} · ${i.provider}`],
            ["Number", i.phone ? `+${i.phone}` : ""],
          ]),
        ),
      )
      .catch(showError);
  }
  const submit = h("button", { type: "submit", class: "primary" }, "Use this token");
  const form = h(
    "form",
    { class: "inline-form" },
    field("Instance token", h("input", { name: "token", type: "password", autocomplete: "off", required: true })),
    submit,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const token = formValues(form).token ?? "";
    void act(submit, async () => {
      await call({ kind: "instance", token }, "GET", `/v1/instances/${id}`);
      rememberToken(id, token);
      ctx.go(`#/i/${id}/overview`);
    });
  });
  const rotate = h("button", { type: "button", class: "danger" }, "Rotate its token");
  rotate.addEventListener("click", () => {
    if (!admin || !confirmed("Rotate this instance's token? The one its clients use is refused at once.")) return;
    void act(rotate, async () => {
      const { token } = await call<{ token: string }>(admin, "POST", `/v1/admin/instances/${id}/token`);
      rememberToken(id, token);
      showLasting("New token (shown once, kept in this tab only): ", h("code", {}, token));
      ctx.go(`#/i/${id}/overview`);
    });
  });
  root.replaceChildren(
    section(
      `Instance ${id}`,
      summary,
      h("p", {}, "Its routes take its own token, which this tab does not hold. Paste it, or rotate it."),
      form,
      admin ? rotate : null,
    ),
  );
  return undefined;
}
