import type { Instance } from "@gw/contracts";
import { type Credential, call } from "../api.ts";
import type { Cleanup, Ctx } from "../context.ts";
import { fill, h } from "../dom.ts";
import { openLive } from "../live.ts";
import { showError } from "../notify.ts";
import { adminCredential, instanceCredential } from "../session.ts";
import { badge, facts, section } from "../widgets.ts";
import { renderEvents } from "./events.ts";
import { lifecycleActions } from "./lifecycle.ts";
import { renderOverview } from "./overview.ts";
import type { InstancePage, Tab } from "./page.ts";
import { renderQueue } from "./queue.ts";
import { renderSend } from "./send.ts";
import { renderTokenNeeded } from "./token-needed.ts";
import { renderWebhooks } from "./webhooks.ts";

const TABS: [string, string, Tab][] = [
  ["overview", "Overview", renderOverview],
  ["events", "Live events", renderEvents],
  ["send", "Send", renderSend],
  ["queue", "Queue", renderQueue],
  ["webhooks", "Webhooks", renderWebhooks],
];

/** Backstop for a missed status event: the instance is read again this often anyway. */
const REFRESH_MS = 10_000;

/** An open instance screen: its tab changes without reconnecting its live events. */
export interface InstanceScreen {
  id: string;
  show(tab: string): void;
  close(): void;
}

/** `#/i/{id}/{tab}`: one instance, its facts and lifecycle actions, and a tab. */
export function openInstance(root: HTMLElement, ctx: Ctx, id: string, tabName: string): InstanceScreen | undefined {
  const cred = instanceCredential(ctx.session, id);
  if (!cred) {
    renderTokenNeeded(root, ctx, id);
    return undefined;
  }
  let current: Instance | undefined;
  const listeners = new Set<(i: Instance) => void>();
  const header = h("div", { class: "instance-header" }, h("p", { class: "muted" }, "Loading…"));
  const liveMode = h("span", { class: "live-mode", "data-testid": "live-mode" });
  const nav = h("nav", { class: "tabs" });
  const body = h("div", {});
  const live = openLive({ kind: "instance", instanceId: id, cred });
  live.onMode((mode, why) => {
    liveMode.textContent =
      mode === "stream" ? "live: stream" : mode === "polling" ? "live: polling (2 s)" : `live: ${mode}`;
    liveMode.title = why ?? "";
  });

  const page: InstancePage = {
    ctx,
    id,
    cred,
    live,
    instance: () => current!,
    onChange(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    async refresh() {
      const { instance } = await call<{ instance: Instance }>(cred, "GET", `/v1/instances/${id}`);
      current = instance;
      drawHeader(header, page, cred);
      for (const fn of listeners) fn(instance);
      return instance;
    },
  };

  // A status change refreshes everything that shows the instance, without a reload.
  const unsubscribe = live.subscribe((e) => {
    if (e.event === "session.status") void page.refresh().catch(showError);
  });
  const backstop = setInterval(() => void page.refresh().catch(() => {}), REFRESH_MS);
  let tabCleanup: Cleanup | undefined;
  let closed = false;
  let wanted = tabName;
  const loaded = page.refresh();

  function show(name: string): void {
    wanted = name;
    const tab = TABS.find(([n]) => n === name) ?? TABS[0]!;
    fill(
      nav,
      TABS.map(([n, label]) =>
        h("a", { href: `#/i/${id}/${n}`, class: n === tab[0] ? "active" : "", "data-testid": `tab-${n}` }, label),
      ),
      liveMode,
    );
    loaded
      .then(() => {
        if (closed || wanted !== name) return;
        tabCleanup?.();
        body.replaceChildren();
        tabCleanup = tab[2](body, page);
      })
      .catch((err) => {
        showError(err);
        fill(body, h("p", { class: "muted" }, "This instance could not be read with the token held."));
      });
  }

  root.replaceChildren(header, nav, body);
  show(tabName);
  return {
    id,
    show,
    close() {
      closed = true;
      clearInterval(backstop);
      unsubscribe();
      live.close();
      tabCleanup?.();
    },
  };
}

function drawHeader(header: HTMLElement, page: InstancePage, cred: Credential): void {
  const i = page.instance();
  const admin = adminCredential(page.ctx.session);
  fill(
    header,
    section(
      `${i.name}`,
      h("div", { class: "status-line" }, badge(i.connectionStatus, "instance-status"), h("code", {}, i.id)),
      facts([
        ["Kind", `${i.kind} · ${i.provider}`],
        ["Number", i.phone ? `+${i.phone}` : ""],
        ["Name on the network", i.pushName],
        ["Billing", badge(i.billingStatus)],
        [
          "Why not working",
          i.statusReason ? `${i.statusReason.reason}${i.statusReason.detail ? `: ${i.statusReason.detail}` : ""}` : "",
        ],
      ]),
      lifecycleActions(page, cred, admin),
    ),
  );
}
