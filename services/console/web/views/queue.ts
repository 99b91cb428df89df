import type { QueueItem, QueuePage, QueueSettings } from "@gw/contracts";
import { call } from "../api.ts";
import { fill, h } from "../dom.ts";
import { act, inlineError, showError, showNotice } from "../notify.ts";
import { queueItemWorkflowId, queueWorkflowId, temporalLink } from "../temporal.ts";
import { badge, button, confirmed, facts, section, table } from "../widgets.ts";
import type { Tab } from "./page.ts";

const REFRESH_MS = 2000;

/** The send queue: its settings, pause and resume, its items with cancel, and their workflows. */
export const renderQueue: Tab = (root, page) => {
  const base = `/v1/instances/${page.id}/queue`;
  const head = h("div", { "data-testid": "queue-settings" });
  const items = h("div", { "data-testid": "queue-items" });
  const status = h(
    "select",
    { "data-testid": "queue-status" },
    [
      ["", "pending, in send order"],
      ["all", "all (7 days)"],
      ["sent", "sent"],
      ["failed", "failed"],
      ["expired", "expired"],
      ["cancelled", "cancelled"],
    ].map(([v, l]) => h("option", { value: v }, l)),
  );
  const failure = inlineError();
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const post = (path: string, note: string) => (ev: Event) =>
    act(ev.currentTarget as HTMLButtonElement, async () => {
      await call(page.cred, "POST", `${base}/${path}`);
      showNotice(note);
      await load();
    });

  function drawSettings(s: QueueSettings): void {
    fill(
      head,
      facts([
        ["Mode", s.mode],
        ["State", badge(s.paused ? "paused" : "running", "queue-state")],
        ["Pending", String(s.pending)],
        ["Delay between sends", `${s.delayMin}–${s.delayMax} s`],
        ["Expires after", `${s.ttlHours} h`],
        ["Workflow", temporalLink(page.ctx.settings, queueWorkflowId(page.id), queueWorkflowId(page.id))],
      ]),
      h(
        "div",
        { class: "actions" },
        s.paused
          ? button("Resume", post("resume", "Queue resumed"), { "data-testid": "queue-resume" })
          : button("Pause", post("pause", "Queue paused: nothing leaves it"), { "data-testid": "queue-pause" }),
        button(
          "Cancel every queued item",
          (ev) => {
            if (!confirmed("Cancel every item still queued?")) return;
            void act(ev.currentTarget as HTMLButtonElement, async () => {
              await call(page.cred, "DELETE", base);
              await load();
            });
          },
          { class: "danger" },
        ),
      ),
    );
  }

  function cancel(item: QueueItem) {
    return (ev: Event) =>
      act(ev.currentTarget as HTMLButtonElement, async () => {
        await call(page.cred, "DELETE", `${base}/${item.id}`);
        showNotice(`Cancelled ${item.id}`);
        await load();
      });
  }

  function drawItems(p: QueuePage): void {
    const rows = p.data.map((i) => [
      h("code", {}, i.id),
      badge(i.status),
      i.route,
      i.chatId,
      i.position === null ? "—" : String(i.position),
      String(i.attempts),
      new Date(i.createdAt).toLocaleString(),
      i.error ?? "",
      h(
        "span",
        { class: "row-actions" },
        i.status === "queued"
          ? button("Cancel", cancel(i), { class: "small danger", "data-testid": `cancel-${i.id}` })
          : null,
        temporalLink(page.ctx.settings, queueItemWorkflowId(i.id), "workflow"),
      ),
    ]);
    fill(
      items,
      table(["Id", "Status", "Route", "Chat", "Position", "Attempts", "Created", "Error", ""], rows, {
        empty: "The queue is empty.",
      }),
      p.nextCursor ? h("p", { class: "muted small" }, "More items: narrow the status.") : null,
    );
  }

  async function load(): Promise<void> {
    const [settings, list] = await Promise.all([
      call<QueueSettings>(page.cred, "GET", `${base}/settings`),
      call<QueuePage>(page.cred, "GET", base, { query: { status: status.value || undefined, limit: 100 } }),
    ]);
    drawSettings(settings);
    drawItems(list);
  }

  const loop = async () => {
    if (stopped) return;
    await load().then(failure.clear, failure.show);
    if (!stopped) timer = setTimeout(loop, REFRESH_MS);
  };
  status.addEventListener("change", () => void load().catch(showError));
  root.replaceChildren(
    section("Queue", failure.el, head),
    section("Items", h("div", { class: "toolbar" }, status), items),
  );
  void loop();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
};
