import { call } from "../api.ts";
import { fill, formValues, h } from "../dom.ts";
import { act } from "../notify.ts";
import { queueItemWorkflowId, temporalLink } from "../temporal.ts";
import { field, jsonBlock, section } from "../widgets.ts";
import type { Tab } from "./page.ts";

/** A test text message, sent now or through the queue (`X-Queue: true`). */
export const renderSend: Tab = (root, page) => {
  const result = h("div", { "data-testid": "send-result" });
  const submit = h("button", { type: "submit", class: "primary", "data-testid": "send" }, "Send");
  const form = h(
    "form",
    { class: "inline-form" },
    field(
      "To",
      h("input", {
        name: "chatId",
        required: true,
        placeholder: "5511999990000 or …@c.us / @g.us",
        "data-testid": "send-to",
      }),
    ),
    field("Text", h("textarea", { name: "text", required: true, rows: 3, "data-testid": "send-text" })),
    h(
      "label",
      { class: "check" },
      h("input", { type: "checkbox", name: "queue", value: "yes", "data-testid": "send-queue" }),
      " through the queue",
    ),
    submit,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const v = formValues(form);
    void act(submit, async () => {
      const queued = v.queue === "yes";
      const out = await call<{ id: string; status: string }>(
        page.cred,
        "POST",
        `/v1/instances/${page.id}/messages/text`,
        {
          json: { chatId: v.chatId, text: v.text },
          headers: queued ? { "x-queue": "true" } : {},
        },
      );
      fill(
        result,
        h(
          "p",
          {},
          queued ? "Queued: " : "Sent: ",
          h("code", {}, out.id),
          queued
            ? [" · ", temporalLink(page.ctx.settings, queueItemWorkflowId(out.id), "its workflow in Temporal")]
            : null,
        ),
        jsonBlock(out),
      );
    });
  });
  root.replaceChildren(section("Send a test message", form, result));
  return undefined;
};
