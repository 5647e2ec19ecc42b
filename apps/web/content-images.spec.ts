// The web app's rule for images in answers (apps/web/src/content-images.ts; beside src/: the app's own tsconfig has
// no test types). Only the content routes of the page's own origin pass, however the path is spelled.
import { isContentImage } from './src/content-images.js';

const PAGE = 'https://ap.example.com/space/spc_1/agent/agt_1?c=cnv_1';

describe('isContentImage', () => {
  it.each([
    '/api/v1/core/knowledge/agt_1/documents/doc_1/download',
    'https://ap.example.com/api/v1/core/knowledge/agt_1/documents/doc_1/download',
    '/api/v1/core/llm/agt_1/conversation/cnv_1/sandbox/files?path=chart.png',
    // Resolved by the browser before it is decided on, as it will be fetched.
    '/api/v1/core/knowledge/agt_9/../agt_1/documents/doc_1/download',
  ])('shows %s', (src) => {
    expect(isContentImage(src, PAGE)).toBe(true);
  });

  it.each([
    '/app/app_1/x?d=secret',
    'https://ap.example.com/app/app_1/x.png',
    '/api/v1/bridge/agents/agt_1/agent',
    '/api/v1/core/knowledge/agt_1/documents/doc_1/download/../../../../../../app/app_1/x',
    '/api/v1/core/knowledge/agt_1/documents/doc_1/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/app/app_1/x',
    '/api/v1/core/knowledge/..%2f..%2fapp/documents/doc_1/download',
    '/api/v1/core/knowledge/agt_1%2f..%2f..%2fapp/documents/doc_1/download',
    '\\app\\app_1\\x',
    '//evil.example/api/v1/core/knowledge/agt_1/documents/doc_1/download',
    'https://evil.example/api/v1/core/knowledge/agt_1/documents/doc_1/download',
    'https://user:pw@ap.example.com/api/v1/core/knowledge/agt_1/documents/doc_1/download',
    'data:image/png;base64,iVBORw0KGgo=',
    'blob:https://ap.example.com/0b4a',
    'javascript:alert(1)',
    '/api/v1/core/knowledge/agt_1/documents/doc_1/content',
    '/api/v1/core/users/me',
    'http://[::1',
  ])('refuses %s', (src) => {
    expect(isContentImage(src, PAGE)).toBe(false);
  });
});
