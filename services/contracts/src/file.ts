import { z } from "zod";
import { DOC_PATTERNS, documented } from "./doc-patterns.ts";

const DATA_URL_RE = /^data:([^,]*?);base64,/i;
const BASE64_RE = /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;

/** What base64 content given in a request holds, or why it holds nothing. */
export type Base64Content =
  | { ok: true; base64: string; urlType: string | undefined }
  | { ok: false; reason: "data_url_not_base64" | "empty" | "invalid" };

/**
 * Base64 content as a request may give it (spec 2.5 `data`): bare, or a `data:<type>;base64,` URL
 * of it; line breaks (MIME-style wrapping at 76 columns) and spaces are tolerated, nothing else.
 * Answers the bare base64 and the URL's declared type.
 */
export function parseBase64Content(value: string): Base64Content {
  let text = value;
  let urlType: string | undefined;
  const prefix = DATA_URL_RE.exec(text);
  if (prefix) {
    text = text.slice(prefix[0].length);
    urlType = prefix[1] || undefined;
  } else if (/^data:/i.test(text)) {
    return { ok: false, reason: "data_url_not_base64" };
  }
  text = text.replace(/\s+/g, "");
  if (text === "") return { ok: false, reason: "empty" };
  if (text.length % 4 === 1 || !BASE64_RE.test(text)) return { ok: false, reason: "invalid" };
  return { ok: true, base64: text, urlType };
}

/** What a field's message says when its base64 content holds nothing ({@link parseBase64Content}). */
export const BASE64_PROBLEM: Record<Exclude<Base64Content, { ok: true }>["reason"], string> = {
  data_url_not_base64: "base64 inválido: uma data URL precisa de ;base64 (data:<tipo>;base64,…)",
  empty: "o conteúdo em base64 está vazio",
  invalid: "base64 inválido: use somente A-Z, a-z, 0-9, + e /, com = apenas no final",
};

/** The one-of rule of a file object, as the document states it. */
export const FILE_ONE_OF = {
  oneOf: [
    { required: ["url"], not: { required: ["data"] } },
    { required: ["data", "mimetype"], not: { required: ["url"] } },
  ],
};

/** Spec 2.5: exactly one of `url` / `data`; `mimetype` required with `data` (undocumented: build on it). */
export const fileObject = z
  .object(
    {
      url: documented(
        z.string().min(1).max(4096).optional(),
        { format: "uri", pattern: DOC_PATTERNS.httpUrl },
        { description: "public http/https address" },
      ),
      data: documented(
        z.string().min(1, "file.data vazio").optional(),
        { pattern: DOC_PATTERNS.base64 },
        { description: "base64 content, or a data: URL of it" },
      ),
      mimetype: documented(z.string().min(3).max(255).optional(), { pattern: DOC_PATTERNS.mimetype }),
      filename: z.string().min(1).max(255).optional(),
    },
    "informe o arquivo: { url } ou { data, mimetype }",
  )
  .superRefine((f, ctx) => {
    if ((f.url === undefined) === (f.data === undefined)) {
      ctx.addIssue({ code: "custom", message: "informe exatamente um de file.url ou file.data", path: [] });
    }
    if (f.data !== undefined && f.mimetype === undefined && !f.data.startsWith("data:")) {
      ctx.addIssue({ code: "custom", message: "file.mimetype é obrigatório com file.data", path: ["mimetype"] });
    }
  })
  .meta({ description: "Spec 2.5: exactly one of url or data; mimetype required with data" });
export const fileSchema = documented(fileObject, FILE_ONE_OF, { id: "File" });

/** The rule, as the document states it, that a file's declared `mimetype` matches `pattern`. */
export const mimetypeRule = (pattern: string) => ({ properties: { mimetype: { pattern } } });

/** A file object whose declared type must match `pattern` (a route that takes one kind of media). */
export const typedFile = (pattern: string, description: string) =>
  documented(fileObject, { ...FILE_ONE_OF, allOf: [mimetypeRule(pattern)] }, { description });
export type FileObject = z.infer<typeof fileSchema>;
