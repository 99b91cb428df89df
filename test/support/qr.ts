// Scanning a QR on simnet from a phone, for tests that pair an instance.
import { ADMIN_TOKEN } from "./gateway.ts";

/**
 * The phone scans the QR that `instanceId` shows now, read from simnet's control API. simnet
 * accepts only the value shown at the moment of the scan, and the value rotates (every few
 * hundred ms in tests): a scan that lands just after a rotation answers 404 invalid_qr, so the
 * value is read and scanned again. Any other refusal fails at once. Returns the scan's answer.
 */
export async function scanShownQr(
  simnetUrl: string,
  instanceId: string,
  phone: string,
  opts: { pushName?: string; attempts?: number } = {},
): Promise<Record<string, unknown>> {
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const attempts = opts.attempts ?? 20;
  let last = "";
  for (let i = 0; i < attempts; i++) {
    const shown = await fetch(`${simnetUrl}/simnet/instances/${instanceId}/qr`, { headers });
    const qrText = await shown.text();
    if (shown.status !== 200) throw new Error(`no QR shown for ${instanceId}: ${shown.status} ${qrText}`);
    const { value } = JSON.parse(qrText) as { value: string };
    const scan = await fetch(`${simnetUrl}/simnet/phones/${phone}/scan`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ qr: value, ...(opts.pushName ? { pushName: opts.pushName } : {}) }),
    });
    last = await scan.text();
    if (scan.status === 200) return JSON.parse(last) as Record<string, unknown>;
    const rotated =
      scan.status === 404 && (JSON.parse(last) as { error?: { code?: string } }).error?.code === "invalid_qr";
    if (!rotated) throw new Error(`scan of ${instanceId}'s QR by ${phone} refused: ${scan.status} ${last}`);
  }
  throw new Error(`the QR of ${instanceId} rotated before each of ${attempts} scans; last answer: ${last}`);
}
