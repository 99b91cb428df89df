import { z } from "zod";
import { documented } from "./doc-patterns.ts";

/** The one-of rule of a file object, as the document states it. */
export const FILE_ONE_OF = { oneOf: [{ required: ["url"] }, { required: ["data", "mimetype"] }] };

/** Spec 2.5: exactly one of `url` / `data`; `mimetype` required with `data` (undocumented: build on it). */
export const fileObject = z
  .object(
    {
      url: z.string().min(1).max(4096).optional().meta({ description: "public http/https address" }),
      data: z.string().min(1, "file.data vazio").optional().meta({ description: "base64 content" }),
      mimetype: z.string().min(3).max(255).optional(),
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
export type FileObject = z.infer<typeof fileSchema>;
