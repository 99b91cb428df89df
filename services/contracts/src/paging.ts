import { z } from "zod";

/**
 * The deepest offset a paged list accepts. Lists backed by RediSearch cannot page past
 * MAXSEARCHRESULTS (1,000,000 by default: "OFFSET exceeds maximum"), so an offset or offset
 * cursor beyond this bound is a validation error (422), never the search engine's 500. Lists
 * sorted in memory share the bound so that every offset in the API means the same thing.
 */
export const PAGE_OFFSET_MAX = 999_000;

/** `offset` of a paged list: an integer from 0 to PAGE_OFFSET_MAX, 0 by default. */
export const pageOffsetSchema = z.coerce
  .number("offset deve ser um número inteiro")
  .int("offset deve ser um número inteiro")
  .min(0, "offset não pode ser negativo")
  .max(PAGE_OFFSET_MAX, `offset vai até ${PAGE_OFFSET_MAX}`)
  .default(0);

/**
 * `offset` of a paged list given in a JSON body: the same bounds, but a JSON number only (a
 * query string's text is coerced; a body's `null`, `"5"` or `true` is refused).
 */
export const pageOffsetBodySchema = z
  .number("offset deve ser um número inteiro")
  .int("offset deve ser um número inteiro")
  .min(0, "offset não pode ser negativo")
  .max(PAGE_OFFSET_MAX, `offset vai até ${PAGE_OFFSET_MAX}`)
  .default(0);

/** An opaque-looking cursor that is an offset: digits, at most PAGE_OFFSET_MAX. */
export const offsetCursorSchema = z
  .string()
  .regex(/^\d{1,7}$/, "cursor inválido")
  .refine((c) => Number(c) <= PAGE_OFFSET_MAX, "cursor inválido");

/** `limit` of a paged list: an integer from 1 to `max`, `fallback` when absent. */
export const pageLimitSchema = (max: number, fallback: number) =>
  z.coerce
    .number("limit deve ser um número inteiro")
    .int("limit deve ser um número inteiro")
    .min(1, `limit vai de 1 a ${max}`)
    .max(max, `limit vai de 1 a ${max}`)
    .default(fallback);
