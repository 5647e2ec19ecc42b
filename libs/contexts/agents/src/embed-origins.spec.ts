import { APP_CSP, chatCsp, embedCsp, originAllowed } from './embed-origins.js';

const SELF = 'http://127.0.0.1:3000';

describe('embed origins', () => {
  it("frame-ancestors: 'self' and the Allowed URLs (paths dropped), only 'self' for an empty list", () => {
    expect(embedCsp(['http://127.0.0.2:39551'], 'https://ap.example.com')).toContain(
      "frame-ancestors 'self' http://127.0.0.2:39551",
    );
    expect(
      embedCsp(['https://example.com/shop', 'https://*.example.org'], 'https://ap.example.com'),
    ).toContain("frame-ancestors 'self' https://example.com https://*.example.org");
    expect(embedCsp([], 'https://ap.example.com')).toMatch(/frame-ancestors 'self'$/);
    expect(embedCsp(['*'], 'https://ap.example.com')).toMatch(/frame-ancestors 'self' \*$/);
    // Nothing that could break out of the directive.
    expect(embedCsp(["https://a.com; script-src 'unsafe-inline'"], 'https://ap.example.com')).toMatch(
      /frame-ancestors 'self'$/,
    );
  });

  it("the app's pages frame the App views from the App origin only: APP_ORIGIN, else the instance itself", () => {
    expect(chatCsp(null, SELF)).toContain("frame-src 'self';");
    expect(chatCsp('https://apps.example.com', SELF)).toContain(
      `frame-src https://apps.example.com ${SELF}/embed/ ${SELF}/api/v1/core/mcp-views/;`,
    );
    expect(chatCsp('https://apps.example.com', SELF)).not.toContain("frame-src 'self'");
    expect(chatCsp(null, SELF)).toContain("frame-ancestors 'self'");
    expect(APP_CSP).not.toContain('frame-src');
  });

  it("the app's pages frame the instance's embed pages (the Agent's embed preview) by their path, never 'self'", () => {
    const frameSrc = (csp: string) => csp.split('; ').find((directive) => directive.startsWith('frame-src '));
    expect(frameSrc(chatCsp('https://apps.example.com', 'https://ap.example.com'))).toBe(
      'frame-src https://apps.example.com https://ap.example.com/embed/ https://ap.example.com/api/v1/core/mcp-views/',
    );
    // Without an App origin the instance's own origin holds the embed pages already.
    expect(frameSrc(chatCsp(null, 'https://ap.example.com'))).toBe("frame-src 'self'");
    // A Host header that would end the directive or add another source adds no embed source.
    expect(frameSrc(chatCsp('https://apps.example.com', "http://a.com; script-src 'unsafe-inline'"))).toBe(
      'frame-src https://apps.example.com',
    );
  });

  it("the app's pages load images only from the instance's content routes: never /app/, another origin or data:", () => {
    const imgSrc = (csp: string) => csp.split('; ').find((directive) => directive.startsWith('img-src '));
    expect(imgSrc(chatCsp(null, 'https://ap.example.com'))).toBe(
      'img-src https://ap.example.com/api/v1/core/knowledge/ https://ap.example.com/api/v1/core/llm/ https://ap.example.com/favicon.svg',
    );
    // A Host header that would end the directive or add another source gives no image source at all.
    expect(imgSrc(chatCsp(null, "http://a.com; script-src 'unsafe-inline'"))).toBe("img-src 'none'");
    expect(imgSrc(chatCsp(null, 'http://a.com https://evil.example'))).toBe("img-src 'none'");
    expect(imgSrc(APP_CSP)).toBe("img-src 'none'");
    expect(imgSrc(embedCsp(['*'], 'https://ap.example.com'))).toBe(
      'img-src https://ap.example.com/favicon.svg',
    );
    expect(imgSrc(embedCsp(['*'], 'http://a.com https://evil.example'))).toBe("img-src 'none'");
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
