// A link preview's page read (link-preview.ts fetches it through the URL guard): its charset,
// title, description and image, by a linear scan of the markup.

/** What a page says of itself. */
export interface PagePreview {
  title: string;
  description?: string;
  /** Absolute http(s) URL of the page's image. */
  image?: string;
}

const MAX_TITLE = 256;
const MAX_DESCRIPTION = 512;

// ── the page ────────────────────────────────────────────────────────────────

/** The page's text: its charset (header, else `<meta charset>`), UTF-8 when unknown. */
export function decodeHtml(body: Buffer, charset?: string): string {
  const label =
    charset ?? /<meta[^<>]{0,200}?charset\s*=\s*["']?\s*([\w:.-]+)/i.exec(body.toString("latin1", 0, 4096))?.[1];
  try {
    return new TextDecoder(label ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

/**
 * Title, description and image of a page: Open Graph first, then Twitter cards, then `<title>`
 * and `<meta name="description">`. Undefined without a title. The scan is linear in the page's
 * size (no backtracking regular expression runs over the whole page).
 */
export function parsePreview(html: string, base: URL): PagePreview | undefined {
  const markup = withoutNonContent(html);
  const meta = new Map<string, string>();
  for (const tag of markup.matchAll(/<meta\b(?:[^<>"']|"[^"]*"|'[^']*')*>/gi)) {
    const attrs = attributes(tag[0]);
    const key = (attrs.get("property") ?? attrs.get("name") ?? attrs.get("itemprop"))?.trim().toLowerCase();
    const content = attrs.get("content");
    if (key && content !== undefined && !meta.has(key)) meta.set(key, content);
  }
  const title =
    plain(meta.get("og:title")) || plain(meta.get("twitter:title")) || plain(titleElement(markup)) || undefined;
  if (!title) return undefined;
  const description =
    plain(meta.get("og:description")) || plain(meta.get("twitter:description")) || plain(meta.get("description"));
  const image = ["og:image", "og:image:secure_url", "og:image:url", "twitter:image", "twitter:image:src"]
    .map((k) => absoluteUrl(meta.get(k), base))
    .find(Boolean);
  return {
    title: clip(title, MAX_TITLE),
    ...(description ? { description: clip(description, MAX_DESCRIPTION) } : {}),
    ...(image ? { image } : {}),
  };
}

/** The markup without comments and the insides of script, style, noscript, template and svg. */
function withoutNonContent(html: string): string {
  const lower = html.toLowerCase();
  const parts: string[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt < 0) {
      parts.push(html.slice(i));
      break;
    }
    parts.push(html.slice(i, lt));
    if (lower.startsWith("<!--", lt)) {
      const end = lower.indexOf("-->", lt + 4);
      if (end < 0) break;
      i = end + 3;
      continue;
    }
    const next = lower[lt + 1];
    const raw =
      next === "s" || next === "n" || next === "t"
        ? /^<(script|style|noscript|template|svg)[\s/>]/.exec(lower.slice(lt, lt + 11))?.[1]
        : undefined;
    if (raw) {
      const close = lower.indexOf(`</${raw}`, lt + 1);
      const end = close < 0 ? -1 : lower.indexOf(">", close);
      if (end < 0) break;
      i = end + 1;
      continue;
    }
    parts.push("<");
    i = lt + 1;
  }
  return parts.join("");
}

function titleElement(markup: string): string | undefined {
  const open = /<title\b[^<>]*>/i.exec(markup);
  if (!open) return undefined;
  const start = open.index + open[0].length;
  const end = markup.toLowerCase().indexOf("</title", start);
  return end < 0 ? undefined : markup.slice(start, end); // unclosed (a page cut short): no title
}

/** A tag's attributes, names lowercased, values as written (first of a name wins). */
function attributes(tag: string): Map<string, string> {
  const attrs = new Map<string, string>();
  const inner = tag.replace(/^<\w+/, "").replace(/\/?>$/, "");
  for (const m of inner.matchAll(/([^\s"'=<>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g)) {
    const name = m[1]!.toLowerCase();
    if (!attrs.has(name)) attrs.set(name, m[2] ?? m[3] ?? m[4] ?? "");
  }
  return attrs;
}

function absoluteUrl(value: string | undefined, base: URL): string | undefined {
  const v = value && decodeEntities(value).trim();
  if (!v) return undefined;
  try {
    const url = new URL(v, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Text for the card: tags gone, entities decoded, control characters gone, spaces collapsed. */
function plain(value: string | undefined): string {
  if (!value) return "";
  return (
    decodeEntities(value.replace(/<[^<>]*>/g, " "))
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
      .replace(/[\u0000-\u001f\u007f]/g, " ")
      .replace(/\s+/g, " ")
      .trim()
  );
}

function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** Names of U+00A0..U+00FF (HTML 4's Latin-1 entities), in order. */
const LATIN1 =
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute " +
  "micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring " +
  "AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml " +
  "times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil " +
  "egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash " +
  "ugrave uacute ucirc uuml yacute thorn yuml";
const ENTITIES = new Map<string, string>([
  ["amp", "&"],
  ["lt", "<"],
  ["gt", ">"],
  ["quot", '"'],
  ["apos", "'"],
  ["ndash", "–"],
  ["mdash", "—"],
  ["hellip", "…"],
  ["lsquo", "‘"],
  ["rsquo", "’"],
  ["ldquo", "“"],
  ["rdquo", "”"],
  ["bull", "•"],
  ["trade", "™"],
  ["euro", "€"],
  ...LATIN1.split(" ").map((name, i): [string, string] => [name, String.fromCharCode(0xa0 + i)]),
]);

function decodeEntities(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z][a-zA-Z0-9]{1,8});/g, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
      return valid ? String.fromCodePoint(code) : "\ufffd";
    }
    return ENTITIES.get(ref) ?? ENTITIES.get(ref.toLowerCase()) ?? whole;
  });
}
