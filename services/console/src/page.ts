/**
 * The console's Content-Security-Policy: everything from this origin only, no inline script or
 * style (the page has none: the script and the stylesheet are files), images also as `data:`
 * (the QR code arrives as base64 PNG) and `blob:`, no framing (clickjacking), no <base> or
 * form posts elsewhere. `connect-src 'self'`: the API, the event stream and nothing else.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** The one HTML page: a shell the script fills. Absolute asset paths: it answers at /console and /console/. */
export const CONSOLE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Gateway console</title>
<link rel="stylesheet" href="/console/app.css">
<script type="module" src="/console/app.js"></script>
</head>
<body>
<noscript>The console needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`;
