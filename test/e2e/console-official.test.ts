// The console on an official-gateway instance (issue 25 §2), in a real browser: created through
// the console's form against the operator mock, its number as the operator sees it, the
// credential check passing and then failing with the operator's reason; and signing in with
// that instance's own token, which opens that instance only.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleDriver, consoleDriver, launchBrowser, pageProblems, screenshotDir } from "../support/browser.ts";
import { ADMIN_TOKEN } from "../support/gateway.ts";
import { type OfficialRig, startOfficial } from "../support/official.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const digits = (n: number) => `${Date.now()}${process.pid}`.slice(-n);
const number = {
  phoneNumberId: `10${digits(13)}`,
  wabaId: `20${digits(13)}`,
  displayPhoneNumber: `5511${digits(9)}`,
  verifiedName: "Loja Oficial",
  accessToken: `EAAG${digits(12)}abcdef0123456789`,
  appSecret: `secret${digits(10)}`,
};

let rig: OfficialRig;
let browser: Browser;
let page: Page;
let problems: string[];
let d: ConsoleDriver;
let instanceId = "";
let token = "";

beforeAll(async () => {
  rig = await startOfficial();
  const reg = await rig.ctl("POST", "/mock/numbers", number);
  expect(reg.status, await reg.text()).toBeLessThan(300);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  problems = pageProblems(page);
  d = consoleDriver(page, screenshotDir(ROOT));
});
afterAll(async () => {
  await browser?.close();
  await rig?.close();
});

describe("the console, official instance", () => {
  it("created from the console's form with the operator credentials", async () => {
    await page.goto(`${rig.c.url}/console`);
    await d.signIn(ADMIN_TOKEN);
    await d.el("create-name").fill("Loja Oficial");
    await d.el("create-kind").selectOption("official");
    const cloud = page.locator("fieldset.cloud");
    await cloud.locator('[name="phoneNumberId"]').fill(number.phoneNumberId);
    await cloud.locator('[name="wabaId"]').fill(number.wabaId);
    await cloud.locator('[name="accessToken"]').fill(number.accessToken);
    await cloud.locator('[name="appSecret"]').fill(number.appSecret);
    await cloud.locator('[name="apiBaseUrl"]').fill(`${rig.mockUrl}/v25.0`);
    await d.el("create").click();
    await page.waitForURL(/#\/i\/i[0-9a-z]+/);
    instanceId = /#\/i\/(i[0-9a-z]+)/.exec(page.url())![1]!;
    token = (await d.el("new-token").textContent())!;
    await d.showing("instance-status", "STOPPED");
  });

  it("started: the operator's view of the number and the credentials accepted", async () => {
    await d.el("action-start").click();
    await d.showing("instance-status", "WORKING");
    await d.showing("credential-check", "accepted by the operator");
    await d.el("check-credentials").click();
    await d.showing("credential-check", /accepted by the operator \(checked at/);
    await d.showing("phone-number", "Loja Oficial");
    await d.showing("phone-number", "GREEN");
    await d.shot("official");
  });

  it("an expired token: the check shows FAILED with the operator's reason", async () => {
    const res = await rig.ctl("PATCH", `/mock/numbers/${number.phoneNumberId}`, { tokenExpired: true });
    expect(res.status).toBeLessThan(300);
    await d.el("check-credentials").click();
    await d.showing("instance-status", "FAILED");
    await d.showing("credential-check", /FAILED: operator_auth.*\(checked at/);
    await d.shot("official-failed");
  });

  it("the instance's own token opens that instance only", async () => {
    await d.el("sign-out").click();
    await d.signIn(token, instanceId);
    await d.showing("signed-in-as", instanceId);
    await d.showing("instance-status", "FAILED");
    // No admin route from here: no delete, no instances list.
    expect(await d.el("action-delete").count()).toBe(0);
    expect(await d.el("nav-instances").count()).toBe(0);
    await page.goto(`${rig.c.url}/console#/`);
    await page.waitForURL(new RegExp(`#/i/${instanceId}`));
    expect(problems).toEqual([]);
  });
});
