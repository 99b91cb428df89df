// The channel directory of the simulated network: its lookups (views, categories, countries) and
// the order of its searches (docs/simnet.md "Channels"). Every channel is listed.
import type { Channel } from "./channels-types.ts";

export const DIRECTORY_VIEWS = [
  { name: "Recomendados", value: "RECOMMENDED" },
  { name: "Em alta", value: "TRENDING" },
  { name: "Populares", value: "POPULAR" },
  { name: "Novos", value: "NEW" },
] as const;

export const DIRECTORY_CATEGORIES = [
  { name: "Entretenimento", value: "ENTERTAINMENT" },
  { name: "Esportes", value: "SPORTS" },
  { name: "Notícias", value: "NEWS" },
  { name: "Estilo de vida", value: "LIFESTYLE" },
  { name: "Pessoas", value: "PEOPLE" },
  { name: "Negócios", value: "BUSINESS" },
  { name: "Organizações", value: "ORGANIZATIONS" },
] as const;

/** Countries by calling code (the owner's number gives a new channel its country). */
const COUNTRIES: { code: string; name: string; prefix: string }[] = [
  { code: "BR", name: "Brasil", prefix: "55" },
  { code: "PT", name: "Portugal", prefix: "351" },
  { code: "AR", name: "Argentina", prefix: "54" },
  { code: "MX", name: "México", prefix: "52" },
  { code: "CO", name: "Colômbia", prefix: "57" },
  { code: "ES", name: "Espanha", prefix: "34" },
  { code: "US", name: "Estados Unidos", prefix: "1" },
  { code: "GB", name: "Reino Unido", prefix: "44" },
  { code: "DE", name: "Alemanha", prefix: "49" },
  { code: "IN", name: "Índia", prefix: "91" },
];

export const DIRECTORY_COUNTRIES = COUNTRIES.map(({ code, name }) => ({ name, code }));

export function countryOfPhone(phone: string): string | null {
  // Longest calling code first: 351 before 3…, 55 before 5.
  const byLength = [...COUNTRIES].sort((a, b) => b.prefix.length - a.prefix.length);
  return byLength.find((c) => phone.startsWith(c.prefix))?.code ?? null;
}

const DAY_MS = 86_400_000;

/** Views of the last 7 days' posts: what is being read now. */
function recentViews(ch: Channel, now: number): number {
  return ch.posts.reduce((n, p) => (p.deletedAt === null && now - p.at < 7 * DAY_MS ? n + p.views : n), 0);
}

type Compare = (a: Channel, b: Channel) => number;
const desc =
  (f: (c: Channel) => number): Compare =>
  (a, b) =>
    f(b) - f(a);
const then =
  (...cmps: Compare[]): Compare =>
  (a, b) => {
    for (const c of cmps) {
      const r = c(a, b);
      if (r !== 0) return r;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };

const followers = desc((c) => c.followers.size);
const newest = desc((c) => c.seq);

/**
 * RECOMMENDED: verified first, then by followers; TRENDING: by views of the last 7 days; POPULAR:
 * by followers; NEW: newest first. Categories and countries filter (empty: all).
 */
export function byView(all: Channel[], view: string, categories: string[], countries: string[]): Channel[] {
  const now = Date.now();
  const order: Record<string, Compare> = {
    RECOMMENDED: then(
      desc((c) => (c.verified ? 1 : 0)),
      followers,
    ),
    TRENDING: then(
      desc((c) => recentViews(c, now)),
      followers,
    ),
    POPULAR: then(followers, newest),
    NEW: then(newest),
  };
  return all
    .filter((c) => categories.length === 0 || (c.category !== null && categories.includes(c.category)))
    .filter((c) => countries.length === 0 || (c.country !== null && countries.includes(c.country)))
    .sort(order[view] ?? order.RECOMMENDED!);
}

const fold = (s: string) => s.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();

/** Name or description containing the text (case and accents ignored); names that start with it first. */
export function byText(all: Channel[], text: string, categories: string[]): Channel[] {
  const q = fold(text.trim());
  return all
    .filter((c) => categories.length === 0 || (c.category !== null && categories.includes(c.category)))
    .filter((c) => fold(c.name).includes(q) || fold(c.description).includes(q))
    .sort(
      then(
        desc((c) => (fold(c.name).startsWith(q) ? 1 : 0)),
        followers,
      ),
    );
}
