import type { ByteRange } from "./store.ts";

/**
 * The byte range a `Range` header asks of a file of `size` bytes (RFC 9110 §14): `bytes=a-b`,
 * `bytes=a-` and the suffix `bytes=-n`, the end clamped to the file. Null: the whole file — no
 * header, another unit, something malformed, or several ranges (a server may answer those with
 * the whole file, which spares multipart bodies no player asks for). "unsatisfiable": a range
 * that starts past the end (answered 416).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | "unsatisfiable" | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return null;
  const last = size - 1;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: last };
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? last : Math.min(Number(m[2]), last);
  if (m[2] !== "" && Number(m[2]) < start) return null; // malformed: ignored, as the RFC says
  if (start > last) return "unsatisfiable";
  return { start, end };
}
