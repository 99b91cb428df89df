import type { Instance, QrResponse } from "@gw/contracts";
import { type Credential, call } from "../api.ts";
import { clock, fill, formValues, h } from "../dom.ts";
import { act, describeError } from "../notify.ts";
import { button, section } from "../widgets.ts";
import type { Tab } from "./page.ts";

/** The QR is read again this often while the instance waits to be paired (it changes every ~20 s). */
const QR_POLL_MS = 1000;

/**
 * Pairing a standard instance: the QR code as it changes, or a pairing code to type on the phone;
 * the screen follows the instance's status (from the live events), so WORKING shows without a reload.
 */
export const renderPairing: Tab = (root, page) => {
  let shown = "";
  let qrTimer: ReturnType<typeof setTimeout> | undefined;
  let qrValue = "";
  let qrChanges = 0;
  const qrImg = h("img", { class: "qr", alt: "QR code to scan with the phone", "data-testid": "qr" });
  const qrInfo = h("p", { class: "muted small", "data-testid": "qr-info" });
  const qrError = h("div", { class: "inline-error" });

  async function pollQr(): Promise<void> {
    try {
      const qr = await call<QrResponse>(page.cred, "GET", `/v1/instances/${page.id}/qr-code`, {
        query: { format: "image" },
      });
      qrError.replaceChildren();
      if (qr.value !== qrValue) {
        qrValue = qr.value;
        qrChanges++;
        qrImg.src = `data:${qr.mimetype};base64,${qr.data}`;
        qrImg.dataset.changes = String(qrChanges);
        qrInfo.textContent = `QR updated at ${clock(Date.now())}; it changes every few seconds until scanned.`;
      }
    } catch (err) {
      // The status may have moved on (paired, timed out): the status event redraws the screen.
      fill(qrError, describeError(err));
    }
    if (shown === "SCAN_QR_CODE") qrTimer = setTimeout(pollQr, QR_POLL_MS);
  }

  function draw(i: Instance): void {
    if (i.connectionStatus === shown) return;
    shown = i.connectionStatus;
    clearTimeout(qrTimer);
    switch (i.connectionStatus) {
      case "WORKING":
        fill(
          root,
          section(
            "Paired",
            h("p", { "data-testid": "paired" }, `Connected as +${i.phone}`, i.pushName ? ` (${i.pushName})` : ""),
          ),
        );
        return;
      case "SCAN_QR_CODE":
        qrValue = "";
        fill(
          root,
          section(
            "Pair a phone",
            h(
              "div",
              { class: "pairing" },
              h("div", {}, h("h3", {}, "Scan the QR code"), qrImg, qrInfo, qrError),
              h("div", {}, h("h3", {}, "Or type a code on the phone"), pairingCodeForm(page.cred, page.id)),
            ),
          ),
        );
        void pollQr();
        return;
      case "STARTING":
        fill(root, section("Pairing", h("p", { class: "muted" }, "Connecting to the network…")));
        return;
      default:
        fill(
          root,
          section(
            "Pairing",
            h("p", {}, `The instance is ${i.connectionStatus}: start it to show a QR code.`),
            button("Start", (ev) =>
              act(ev.currentTarget as HTMLButtonElement, async () => {
                await call(page.cred, "POST", `/v1/instances/${page.id}/start`);
                await page.refresh();
              }),
            ),
          ),
        );
    }
  }

  const off = page.onChange(draw);
  draw(page.instance());
  return () => {
    off();
    shown = "";
    clearTimeout(qrTimer);
  };
};

function pairingCodeForm(cred: Credential, id: string): HTMLElement {
  const out = h("div", { class: "pairing-code-out" });
  const submit = h("button", { type: "submit", "data-testid": "get-pairing-code" }, "Get a code");
  const form = h(
    "form",
    { class: "inline-form" },
    h(
      "label",
      { class: "field" },
      h("span", {}, "Phone number"),
      h("input", {
        name: "phoneNumber",
        placeholder: "5511999990000",
        inputmode: "tel",
        required: true,
        "data-testid": "pairing-phone",
      }),
    ),
    submit,
    out,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const { phoneNumber } = formValues(form);
    void act(submit, async () => {
      const { code } = await call<{ code: string }>(cred, "POST", `/v1/instances/${id}/pairing-code`, {
        json: { phoneNumber },
      });
      fill(
        out,
        h("p", {}, "On the phone: Linked devices → Link with phone number, then type"),
        h("p", { class: "code", "data-testid": "pairing-code" }, `${code.slice(0, 4)}-${code.slice(4)}`),
      );
    });
  });
  return form;
}
