import { z } from "zod";

/**
 * zod's e-mail with a domain's labels as DNS has them (no hyphen at either end: `a@b-.com` is
 * no address) and RFC 5321's lengths (a local part up to 64 characters, the whole up to 254),
 * as the document's `email` format states it (schemathesis' negative_data_rejection
 * found zod's own pattern accepting such domains).
 */
export const EMAIL_RE =
  /^(?=[^@]{1,64}@)(?=.{3,254}$)(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}$/;

/** An e-mail address field: `format: email` and {@link EMAIL_RE}. */
export const emailSchema = (error = "e-mail inválido") => z.email({ pattern: EMAIL_RE, error });
