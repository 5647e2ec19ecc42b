import { parseAppMeta } from './app-meta.js';

describe('an App /meta', () => {
  it('takes id, name and standalone, with views and tools defaulting to none', () => {
    expect(parseAppMeta({ id: 'board', name: 'Board', standalone: true })).toEqual({
      id: 'board',
      name: 'Board',
      standalone: true,
      views: [],
      tools: [],
      documents: [],
    });
  });

  it('gives a tool its defaults (an object schema, /tools/<name>) and keeps its schema, path and hints', () => {
    const meta = parseAppMeta({
      id: 'w',
      name: 'W',
      tools: [
        { name: 'plain', description: 'P' },
        {
          name: 'drop',
          description: 'D',
          inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
          path: '/api/drop',
          annotations: { destructiveHint: true },
        },
      ],
      documents: [{ uri: 'w://handbook', name: 'Handbook', path: '/docs/handbook.md' }],
    });
    expect(meta.tools).toEqual([
      { name: 'plain', description: 'P', inputSchema: { type: 'object' }, path: '/tools/plain' },
      {
        name: 'drop',
        description: 'D',
        inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
        path: '/api/drop',
        annotations: { destructiveHint: true },
      },
    ]);
    expect(meta.documents).toEqual([{ uri: 'w://handbook', name: 'Handbook', path: '/docs/handbook.md' }]);
  });

  it('refuses a tool schema that is not an object schema, a path outside the App and documents sharing a uri', () => {
    const tool = (extra: object) => ({
      id: 'w',
      name: 'W',
      tools: [{ name: 't', description: '', ...extra }],
    });
    expect(() => parseAppMeta(tool({ inputSchema: { type: 'string' } }))).toThrow(/tools\.0\.inputSchema/);
    expect(() => parseAppMeta(tool({ path: 'https://evil.example/x' }))).toThrow(/tools\.0\.path/);
    const twice = { uri: 'w://a', name: 'A', path: '/a' };
    expect(() => parseAppMeta({ id: 'w', name: 'W', documents: [twice, twice] })).toThrow(/documents/);
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
