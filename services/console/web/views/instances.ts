import type { Instance } from "@gw/contracts";
import { type Credential, call } from "../api.ts";
import type { View } from "../context.ts";
import { fill, formValues, h } from "../dom.ts";
import { act, inlineError, showLasting, showNotice } from "../notify.ts";
import { adminCredential, forgetToken, instanceCredential, rememberToken } from "../session.ts";
import { badge, confirmed, field, section, table } from "../widgets.ts";

const REFRESH_MS = 3000;

/** The admin's list of instances (status, kind, number, billing), with create and delete. */
export const renderInstances: View = (root, ctx) => {
  const admin = adminCredential(ctx.session);
  if (!admin) {
    ctx.go(ctx.session.kind === "instance" ? `#/i/${ctx.session.instanceId}` : "#/");
    return undefined;
  }
  const list = h("div", { "data-testid": "instances" }, h("p", { class: "muted" }, "Loading…"));
  const more = h("p", { class: "muted small" });
  const failure = inlineError();
  let stopped = false;

  async function refresh(): Promise<void> {
    const page = await call<{ data: Instance[]; nextCursor: string | null }>(admin!, "GET", "/v1/admin/instances", {
      query: { limit: 500 },
    });
    const rows = page.data.map((i) => [
      h("a", { href: `#/i/${i.id}`, "data-testid": `open-${i.id}` }, i.name),
      h("code", {}, i.id),
      `${i.kind} · ${i.provider}`,
      badge(i.connectionStatus, `status-${i.id}`),
      i.phone ? `+${i.phone}` : "—",
      badge(i.billingStatus),
      instanceCredential(ctx.session, i.id) ? "held" : "—",
      h(
        "button",
        {
          type: "button",
          class: "danger small",
          onclick: (ev: Event) => remove(ev.currentTarget as HTMLButtonElement, i),
        },
        "Delete",
      ),
    ]);
    fill(
      list,
      table(["Name", "Id", "Kind", "Status", "Number", "Billing", "Token", ""], rows, { empty: "No instance yet." }),
    );
    more.textContent = page.nextCursor ? "Showing the first 500 instances." : "";
  }

  function remove(button: HTMLButtonElement, i: Instance): void {
    if (!confirmed(`Delete ${i.name} (${i.id})? Its token stops working at once.`)) return;
    void act(button, async () => {
      await call(admin!, "DELETE", `/v1/admin/instances/${i.id}`);
      forgetToken(i.id);
      showNotice(`Deleted ${i.name}.`);
      await refresh();
    });
  }

  const loop = async () => {
    if (stopped) return;
    await refresh().then(failure.clear, failure.show);
    if (!stopped) timer = setTimeout(loop, REFRESH_MS);
  };
  let timer = setTimeout(loop, 0);

  root.replaceChildren(
    section("Instances", failure.el, list, more),
    section("Create an instance", createForm(ctx.go, admin)),
  );
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
};

function createForm(go: (route: string) => void, admin: Credential): HTMLFormElement {
  const kind = h(
    "select",
    { name: "kind", "data-testid": "create-kind" },
    h("option", { value: "standard" }, "standard"),
    h("option", { value: "official" }, "official"),
  );
  const provider = h(
    "select",
    { name: "provider", "data-testid": "create-provider" },
    ["baileys", "sim"].map((p) => h("option", { value: p }, p)),
  );
  const cloudInput = (name: string, type = "text") => h("input", { name, type, autocomplete: "off" });
  const cloud = h(
    "fieldset",
    { class: "cloud", hidden: true },
    h("legend", {}, "Operator credentials"),
    field("Phone number id", cloudInput("phoneNumberId")),
    field("WABA id", cloudInput("wabaId")),
    field("Access token", cloudInput("accessToken", "password")),
    field("App secret", cloudInput("appSecret", "password")),
    field("API base URL", cloudInput("apiBaseUrl"), "Optional: the Graph root with its version (a mock, say)."),
  );
  const providerField = field("Provider", provider);
  kind.addEventListener("change", () => {
    cloud.hidden = kind.value !== "official";
    providerField.hidden = kind.value === "official";
  });
  const submit = h("button", { type: "submit", class: "primary", "data-testid": "create" }, "Create");
  const form = h(
    "form",
    { class: "inline-form" },
    field("Name", h("input", { name: "name", required: true, "data-testid": "create-name" })),
    field("Kind", kind),
    providerField,
    cloud,
    submit,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const v = formValues(form);
    const body =
      v.kind === "official"
        ? {
            name: v.name,
            kind: "official",
            cloud: {
              phoneNumberId: v.phoneNumberId,
              wabaId: v.wabaId,
              accessToken: v.accessToken,
              appSecret: v.appSecret,
              ...(v.apiBaseUrl ? { apiBaseUrl: v.apiBaseUrl } : {}),
            },
          }
        : { name: v.name, kind: "standard", provider: v.provider };
    void act(submit, async () => {
      const out = await call<{ instance: Instance; token: string }>(admin, "POST", "/v1/admin/instances", {
        json: body,
      });
      rememberToken(out.instance.id, out.token);
      showLasting(
        `Created ${out.instance.name}. Its token, shown once (kept in this tab only): `,
        h("code", { "data-testid": "new-token" }, out.token),
      );
      go(`#/i/${out.instance.id}`);
    });
  });
  return form;
}
