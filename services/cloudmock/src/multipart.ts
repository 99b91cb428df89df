/** A multipart/form-data body (RFC 7578), as the operator's media upload receives it. */
export interface FormPart {
  name: string;
  filename: string | null;
  contentType: string | null;
  data: Buffer;
}

export function parseMultipart(body: Buffer, contentType: string): FormPart[] | null {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary) return null;
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) return null;
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === "--") break; // closing delimiter
    at += 2; // CRLF after the delimiter
    const headerEnd = body.indexOf("\r\n\r\n", at);
    if (headerEnd < 0) return null;
    const headers = body.subarray(at, headerEnd).toString("utf8");
    const next = body.indexOf(delimiter, headerEnd + 4);
    if (next < 0) return null;
    const data = body.subarray(headerEnd + 4, next - 2); // the CRLF before the next delimiter
    const disposition = /content-disposition:([^\r\n]*)/i.exec(headers)?.[1] ?? "";
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    if (name !== undefined) {
      parts.push({
        name,
        filename: /\bfilename="([^"]*)"/i.exec(disposition)?.[1] ?? null,
        contentType: /content-type:\s*([^\r\n]*)/i.exec(headers)?.[1]?.trim() ?? null,
        data: Buffer.from(data),
      });
    }
    at = next;
  }
  return parts;
}
