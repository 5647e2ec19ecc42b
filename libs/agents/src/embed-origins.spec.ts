import { APP_CSP, chatCsp, embedCsp, originAllowed } from './embed-origins.js';

const SELF = 'http://127.0.0.1:3000';

describe('embed origins', () => {
  it("frame-ancestors: 'self' and the Allowed URLs (paths dropped), only 'self' for an empty list", () => {
    expect(embedCsp(['http://127.0.0.2:39551'])).toContain("frame-ancestors 'self' http://127.0.0.2:39551");
    expect(embedCsp(['https://example.com/shop', 'https://*.example.org'])).toContain(
      "frame-ancestors 'self' https://example.com https://*.example.org",
    );
    expect(embedCsp([])).toMatch(/frame-ancestors 'self'$/);
    expect(embedCsp(['*'])).toMatch(/frame-ancestors 'self' \*$/);
    // Nothing that could break out of the directive.
    expect(embedCsp(["https://a.com; script-src 'unsafe-inline'"])).toMatch(/frame-ancestors 'self'$/);
  });

  it("the app's pages frame the App views from the App origin only: APP_ORIGIN, else the instance itself", () => {
    expect(chatCsp(null)).toContain("frame-src 'self';");
    expect(chatCsp('https://apps.example.com')).toContain('frame-src https://apps.example.com;');
    expect(chatCsp('https://apps.example.com')).not.toContain("frame-src 'self'");
    expect(chatCsp(null)).toContain("frame-ancestors 'self'");
    expect(APP_CSP).not.toContain('frame-src');
  });

  it('an Origin is allowed when it is the instance or matches an Allowed URL', () => {
    expect(originAllowed(SELF, [], SELF)).toBe(true);
    expect(originAllowed('http://127.0.0.2:39551', [], SELF)).toBe(false);
    expect(originAllowed('http://127.0.0.2:39551', ['http://127.0.0.2:39551'], SELF)).toBe(true);
    expect(originAllowed('http://127.0.0.2:39552', ['http://127.0.0.2:39551'], SELF)).toBe(false);
    expect(originAllowed('https://shop.example.com', ['https://*.example.com'], SELF)).toBe(true);
    expect(originAllowed('https://example.com.evil.io', ['https://*.example.com'], SELF)).toBe(false);
    expect(originAllowed('http://example.com', ['https://example.com'], SELF)).toBe(false);
    expect(originAllowed('https://example.com', ['example.com'], SELF)).toBe(true);
    expect(originAllowed('https://anything.io', ['*'], SELF)).toBe(true);
    expect(originAllowed('null', ['https://example.com'], SELF)).toBe(false);
  });
});
