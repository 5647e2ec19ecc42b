import { parseAppMeta } from './app-meta.js';

describe('an App /meta', () => {
  it('takes id, name and standalone, with views and tools defaulting to none', () => {
    expect(parseAppMeta({ id: 'board', name: 'Board', standalone: true })).toEqual({
      id: 'board',
      name: 'Board',
      standalone: true,
      views: [],
      tools: [],
    });
  });

  it('refuses a meta without a stable id, or with a view path outside the App', () => {
    expect(() => parseAppMeta({ name: 'Board' })).toThrow(/id/);
    expect(() => parseAppMeta({ id: '../x', name: 'Board' })).toThrow(/id/);
    expect(() =>
      parseAppMeta({ id: 'b', name: 'B', views: [{ id: 'v', title: 'V', path: 'https://evil.example' }] }),
    ).toThrow(/views/);
    expect(() => parseAppMeta('not an object')).toThrow(/not valid/);
  });
});
