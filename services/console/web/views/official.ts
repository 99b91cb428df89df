import type { Instance, PhoneNumberInfo } from "@gw/contracts";
import { call } from "../api.ts";
import { clock, fill, h } from "../dom.ts";
import { act, describeError } from "../notify.ts";
import { badge, button, facts, section } from "../widgets.ts";
import type { Tab } from "./page.ts";

/**
 * An official instance: the operator's view of its number (quality, limits, name status) and a
 * credential check. There is no connection to keep: starting or restarting is the check (the
 * gateway asks the operator for the number; WORKING while it accepts the credentials, FAILED
 * with the operator's reason otherwise: docs/official.md), so the check restarts the instance
 * and its outcome arrives as the next status change.
 */
export const renderOfficial: Tab = (root, page) => {
  const numberBox = h("div", { "data-testid": "phone-number" });
  const checkBox = h("div", { "data-testid": "credential-check" });
  /** A check asked for and not answered yet: a restart goes through STARTING to WORKING or FAILED. */
  let checking = false;
  let checkedAt = "";
  let lastStatus = "";

  async function loadNumber(): Promise<void> {
    try {
      const n = await call<PhoneNumberInfo>(page.cred, "GET", `/v1/instances/${page.id}/phone-number`);
      fill(
        numberBox,
        facts([
          ["Number", n.displayPhoneNumber],
          ["Verified name", n.verifiedName],
          ["Name status", n.nameStatus],
          ["Quality", badge(n.qualityRating)],
          ["Messaging limit", n.messagingLimitTier],
          ["Throughput", n.throughput],
          ["Status", n.status],
          ["Code verification", n.codeVerificationStatus],
          ["Platform", n.platformType],
        ]),
      );
    } catch (err) {
      fill(numberBox, h("div", { class: "inline-error" }, describeError(err)));
    }
  }

  function verdict(i: Instance): HTMLElement | string {
    if (checking) return "checking with the operator…";
    if (i.connectionStatus === "WORKING") return h("span", { class: "ok" }, `accepted by the operator${checkedAt}`);
    if (!i.statusReason) return `${i.connectionStatus} (checked when the instance starts)`;
    const { reason, detail } = i.statusReason;
    return h("span", { class: "bad" }, `${i.connectionStatus}: ${reason}${detail ? ` — ${detail}` : ""}${checkedAt}`);
  }

  async function check(): Promise<void> {
    checking = true;
    drawCheck(page.instance());
    try {
      await call(page.cred, "POST", `/v1/instances/${page.id}/restart`);
    } catch (err) {
      checking = false;
      drawCheck(page.instance());
      throw err;
    }
    await page.refresh();
  }

  function drawCheck(i: Instance): void {
    if (checking && (i.connectionStatus === "WORKING" || i.connectionStatus === "FAILED")) {
      checking = false;
      checkedAt = ` (checked at ${clock(Date.now())})`;
    }
    // The operator's number data is read again each time the instance becomes WORKING.
    if (i.connectionStatus === "WORKING" && lastStatus !== "WORKING") void loadNumber();
    lastStatus = i.connectionStatus;
    const cloud = i.cloud;
    fill(
      checkBox,
      facts([
        ["Phone number id", cloud?.phoneNumberId ?? ""],
        ["WABA id", cloud?.wabaId ?? ""],
        ["API base URL", cloud?.apiBaseUrl ?? ""],
        ["Credentials", verdict(i)],
      ]),
      button("Check credentials now", (ev) => act(ev.currentTarget as HTMLButtonElement, check), {
        "data-testid": "check-credentials",
      }),
    );
  }

  root.replaceChildren(section("Operator number", numberBox), section("Credentials", checkBox));
  const off = page.onChange(drawCheck);
  drawCheck(page.instance());
  if (lastStatus !== "WORKING") void loadNumber();
  return off;
};
