import { appRedirect, appSetCookie, requestHeaders, responseHeaders, type Forward } from './app-forwarder.js';

const BASE = '/app/app_x1';
const forward = (prefix = ''): Forward => ({
  origin: 'http://127.0.0.1:4100',
  prefix,
  path: `${prefix}/user/notes?tab=1`,
  basePath: BASE,
  policy: null,
  headers: { svc_base_path: BASE },
});

describe("an App's Set-Cookie never reaches or shadows a platform cookie", () => {
  // Each could be read as the platform's session or sign-in cookie by a browser or a server.
  it.each([
    'ap_session=evil; Path=/',
    'ap_session =evil; Path=/api/v1/core',
    ' ap_session=evil',
    'AP_SESSION=evil; Path=/',
    'Ap_Session=evil',
    'ap_session\t=evil',
    '%61p_session=evil',
    'ap%5Fsession=evil',
    '%2561p_session=evil',
    '__Host-ap_session=evil; Path=/; Secure',
    '__Secure-ap_session=evil; Secure',
    '__secure-__host-AP_SESSION=evil',
    'ap_oidc=attacker-flow; Path=/api/v1/core/auth/oidc',
    'AP_OIDC =x',
    '__Host-ap_oidc=x',
    '=ap_session=evil',
    'no-equals-sign',
    ' =nameless',
  ])('%j is dropped', (line) => {
    expect(appSetCookie(line, BASE)).toBeNull();
  });

  it.each([
    ['theme=dark', 'theme=dark; Path=/app/app_x1/'],
    ['theme=dark; Path=/', 'theme=dark; Path=/app/app_x1/'],
    ['sid=1; path=/api/v1/core; HttpOnly', 'sid=1; HttpOnly; Path=/app/app_x1/'],
    [
      'sid=1; Domain=.example.com; Path=/admin; Secure; SameSite=Lax; Max-Age=60',
      'sid=1; Secure; SameSite=Lax; Max-Age=60; Path=/app/app_x1/',
    ],
    [
      'sid=1; DOMAIN=127.0.0.1;  PATH = /x ; Expires=Wed, 21 Oct 2037 07:28:00 GMT',
      'sid=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/app/app_x1/',
    ],
    ['ap_session_extra=1', 'ap_session_extra=1; Path=/app/app_x1/'],
    ['my_ap_session=1', 'my_ap_session=1; Path=/app/app_x1/'],
    ['weird=%ZZ', 'weird=%ZZ; Path=/app/app_x1/'],
  ])('%j is kept as %j (its path the App’s, no domain)', (line, kept) => {
    expect(appSetCookie(line, BASE)).toBe(kept);
  });

  it('rewrites every Set-Cookie of an answer, and drops the header when none is left', () => {
    expect(
      responseHeaders(
        { 'set-cookie': ['ap_session=x; Path=/', 'a=1; Path=/', 'b=2; Domain=evil'] },
        forward(),
      ),
    ).toEqual({ 'set-cookie': ['a=1; Path=/app/app_x1/', 'b=2; Path=/app/app_x1/'] });
    expect(responseHeaders({ 'set-cookie': ['ap_oidc=x'], 'x-other': '1' }, forward())).toEqual({
      'x-other': '1',
    });
  });
});

describe('a client-sent look-alike of what the proxy sets never reaches the App', () => {
  it('strips svc_ headers however spelt, x-embed-session, x-forwarded-* and forwarded; the proxy’s own pass', () => {
    const sent = {
      'svc-session-token': 'forged',
      'svc-server-url': 'http://evil.example',
      svc_session_token: 'forged',
      'SVC-BASE-PATH': 'forged',
      'svc-anything': 'forged',
      'x-embed-session': 'visitor-secret',
      'x-forwarded-for': '10.0.0.1',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
      'X-Forwarded-Prefix': '/admin',
      forwarded: 'for=10.0.0.1;host=evil.example',
      cookie: 'ap_session=secret',
      authorization: 'Bearer key',
      'x-api-key': 'key',
      host: '127.0.0.1',
      accept: 'text/html',
      'x-app-own': 'kept',
    };
    expect(requestHeaders(sent, { svc_server_url: 'http://platform.example', svc_base_path: BASE })).toEqual({
      accept: 'text/html',
      'x-app-own': 'kept',
      svc_server_url: 'http://platform.example',
      svc_base_path: BASE,
    });
  });
});

describe("an App's redirect stays under /app/{id} or is refused", () => {
  it.each([
    ['/landed', '', `${BASE}/landed`],
    ['/landed?x=1#top', '', `${BASE}/landed?x=1#top`],
    ['landed', '', `${BASE}/user/landed`],
    ['../admin/', '', `${BASE}/admin/`],
    ['?page=2', '', `${BASE}/user/notes?page=2`],
    ['http://127.0.0.1:4100/done', '', `${BASE}/done`],
    ['/some/prefix/landed', '/some/prefix', `${BASE}/landed`],
    ['/some/prefix', '/some/prefix', `${BASE}/`],
    ['http://127.0.0.1:4100/some/prefix/x', '/some/prefix', `${BASE}/x`],
  ])('%j (App prefix %j) becomes %j', (location, prefix, rewritten) => {
    expect(appRedirect(location, forward(prefix))).toBe(rewritten);
  });

  it.each([
    ['https://evil.example/'],
    ['http://evil.example'],
    ['//evil.example/x'],
    ['/\\evil.example/x'],
    ['\\\\evil.example'],
    ['http://127.0.0.1:4101/'],
    ['https://127.0.0.1:4100/'],
    ['javascript:alert(1)'],
    ['data:text/html,x'],
    ['http://[::1'],
  ])('%j is refused', (location) => {
    expect(appRedirect(location, forward())).toBeNull();
  });

  it.each([['/elsewhere'], ['/some/prefixed'], ['../../x']])(
    '%j leaves an App under /some/prefix: refused',
    (location) => {
      expect(appRedirect(location, { ...forward('/some/prefix') })).toBeNull();
    },
  );

  it('an answer redirecting elsewhere has no headers to send (the proxy answers 502)', () => {
    expect(responseHeaders({ location: 'https://evil.example/' }, forward())).toBeNull();
    expect(responseHeaders({ location: '/landed' }, forward())).toEqual({ location: `${BASE}/landed` });
  });
});
