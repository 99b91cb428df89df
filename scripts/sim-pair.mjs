#!/usr/bin/env node
// `pnpm sim:pair <instanceId> [phone] [--personal]`: a virtual phone on simnet scans the instance's
// current QR. The phone is a business account (labels work, docs/labels.md) unless `--personal`
// makes it a personal one (label routes refused). SIMNET_URL (default http://127.0.0.1:8090) and
// ADMIN_TOKEN (default dev-admin-token).
// simnet accepts only the value shown at the moment of the scan and rotates it (every ~20 s by
// default): a scan that lands just after a rotation (404 invalid_qr) reads the new value and
// scans again, a few times.
const args = process.argv.slice(2);
const personal = args.includes("--personal");
const [instanceId, phone = "5511999990000"] = args.filter((a) => a !== "--personal");
if (!instanceId) {
  console.error("usage: pnpm sim:pair <instanceId> [phone digits] [--personal]");
  process.exit(2);
}
const base = (process.env.SIMNET_URL ?? "http://127.0.0.1:8090").replace(/^ws/, "http").replace(/\/$/, "");
const headers = { authorization: `Bearer ${process.env.ADMIN_TOKEN ?? "dev-admin-token"}` };
// The account's kind before it pairs (the phone is made if new): business by default, for labels.
const kind = await fetch(`${base}/simnet/phones/${phone}/business`, {
  method: "PUT",
  headers: { ...headers, "content-type": "application/json" },
  body: JSON.stringify({ business: !personal }),
});
if (!kind.ok) {
  console.error(`could not set the account's kind (${kind.status}): ${await kind.text()}`);
  process.exit(1);
}
const ATTEMPTS = 5;
for (let attempt = 1; ; attempt++) {
  const qr = await fetch(`${base}/simnet/instances/${instanceId}/qr`, { headers });
  if (!qr.ok) {
    console.error(`no QR to scan (${qr.status}): ${await qr.text()}\nIs the instance started and in SCAN_QR_CODE?`);
    process.exit(1);
  }
  const { value } = await qr.json();
  const res = await fetch(`${base}/simnet/phones/${phone}/scan`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ qr: value }),
  });
  if (res.ok) {
    console.log(`paired ${instanceId} with ${phone} (${personal ? "personal" : "business"} account)`);
    process.exit(0);
  }
  const text = await res.text();
  let code;
  try {
    code = JSON.parse(text)?.error?.code;
  } catch {
    code = undefined;
  }
  if (res.status !== 404 || code !== "invalid_qr" || attempt === ATTEMPTS) {
    console.error(`scan failed (${res.status}): ${text}`);
    process.exit(1);
  }
}
