// Which images a rendered answer may show: only files of the platform's own content routes, which answer the viewer's
// own data (a Knowledge document's download, a file the code of their conversation produced). Anything else, a
// same-origin App route (`/app/…`: it would be fetched with the viewer's cookie and answer a session token) included,
// stays a link. Decided on the URL as the browser resolves it (dot segments, `%2e`, backslashes), so no spelling of a
// path reaches another route; an encoded slash or any other escape does not match an id.
const ID = '[A-Za-z0-9_-]{1,128}';
const CONTENT_ROUTES = [
  new RegExp(`^/api/v1/core/knowledge/${ID}/documents/${ID}/download$`),
  new RegExp(`^/api/v1/core/llm/${ID}/conversation/${ID}/sandbox/files$`),
];

/** Whether `src` (as written in the answer, relative to the page at `pageUrl`) is a content route of the instance. */
export function isContentImage(src: string, pageUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(src, pageUrl);
  } catch {
    return false;
  }
  if (url.origin !== new URL(pageUrl).origin || url.username !== '' || url.password !== '') return false;
  return CONTENT_ROUTES.some((route) => route.test(url.pathname));
}
