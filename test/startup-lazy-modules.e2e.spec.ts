// What the api loads at start-up, and what it leaves to the first request that needs it (the built api in its own
// process, as `npm start` runs it). The api's own code and the packages every start loads come from its bundle
// (dist/apps/api/bundle/); packages only some routes use (archives, YAML, document sniffing, outbound HTTP) are loaded on first use,
// not at start. The proof is the list of
// modules the process has loaded, recorded by a module hook preloaded with `--import`, and the first request to such
// a route on a fresh api answering as it always did.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { ADMIN_KEY, client, CORE, tempDataDir, uniqueName } from './support/api.js';
import { spawnApi, stopProcess, type ApiProcess } from './support/process.js';

/**
 * Loaded at the first request that needs them, never at start-up (Fastify's JSON Schema compilers: at the first route
 * with a Fastify schema, which the api has none of).
 */
/** The packages built into the api's bundle (apps/api/bundle.js): never loaded from node_modules as well. */
const BUNDLED_PACKAGES = JSON.parse(
  readFileSync(join(process.cwd(), 'apps/api/bundled-packages.json'), 'utf8'),
) as string[];

const LAZY_PACKAGES = [
  'yaml',
  'yauzl',
  'fflate',
  'file-type',
  'csv-parse',
  'tar-stream',
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  'ajv',
  'undici',
];

/**
 * Appends the name of every npm package the process loads, the path of every compiled module of ours (`dist/…`), and
 * `Intl.<kind>` for every kind of Intl object made, once each, to the file named by LOADED_PACKAGES_FILE.
 */
const HOOK = `
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
const file = process.env.LOADED_PACKAGES_FILE;
const seen = new Set();
registerHooks({
  load(url, context, nextLoad) {
    const name =
      /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(url)?.[1] ?? /\\/(dist\\/.*)$/.exec(url)?.[1];
    if (name && !seen.has(name)) {
      seen.add(name);
      appendFileSync(file, name + '\\n');
    }
    return nextLoad(url, context);
  },
});
for (const kind of ['Collator', 'DateTimeFormat', 'NumberFormat', 'Segmenter']) {
  Intl[kind] = new Proxy(Intl[kind], {
    construct(target, args, newTarget) {
      if (!seen.has('Intl.' + kind)) {
        seen.add('Intl.' + kind);
        appendFileSync(file, 'Intl.' + kind + '\\n');
      }
      return Reflect.construct(target, args, newTarget);
    },
  });
}
`;

describe('start-up loads what the first request needs, the rest on first use (e2e, separate process)', () => {
  let api: ApiProcess;
  let loadedFile: string;
  const loaded = () => new Set(readFileSync(loadedFile, 'utf8').split('\n').filter(Boolean));

  beforeAll(async () => {
    const dir = tempDataDir();
    const hook = join(dir, 'record-packages.mjs');
    writeFileSync(hook, HOOK);
    loadedFile = join(dir, 'loaded-packages.txt');
    writeFileSync(loadedFile, '');
    api = await spawnApi(
      {
        DATA_DIR: join(dir, 'data'),
        ADMIN_API_KEY: ADMIN_KEY,
        LOADED_PACKAGES_FILE: loadedFile,
        NODE_OPTIONS: `--import=${pathToFileURL(hook).href}`,
      },
      60_000,
    );
  }, 60_000);
  afterAll(async () => {
    if (api) await stopProcess(api.child);
  });

  it('is ready without the packages only some routes use', () => {
    const packages = loaded();
    // The hook saw the api load packages (pino, the logger, is outside the bundle), so an absent package was not loaded.
    expect(packages).toContain('pino');
    expect(LAZY_PACKAGES.filter((name) => packages.has(name))).toEqual([]);
  });

  it('makes no Intl formatter or segmenter at start, so ICU leaves its data in the node binary unread', () => {
    // Each one keeps ICU's data for it resident (Nest's two loggers' date formatters alone: ≈6 MB of idle RSS), so
    // they are made on first use (apps/api/bundle.js makes Nest's lazy).
    expect([...loaded()].filter((name) => name.startsWith('Intl.'))).toEqual([]);
  });

  it('takes Nest, Fastify, rxjs and zod from the bundle, none of them from node_modules', () => {
    expect(BUNDLED_PACKAGES).toEqual(expect.arrayContaining(['@nestjs/core', 'fastify', 'rxjs', 'zod']));
    expect(BUNDLED_PACKAGES.filter((name) => loaded().has(name))).toEqual([]);
  });

  it('takes Node builtins with require in the bundle, so no builtin gets an ES facade that runs its getters', () => {
    // An ES import of node:http would make Node read http.WebSocket, which loads its copy of undici (apps/api/bundle.js).
    const bundle = join(process.cwd(), 'dist/apps/api/bundle');
    const imported = readdirSync(bundle)
      .filter((file) => file.endsWith('.js'))
      .flatMap((file) =>
        [...readFileSync(join(bundle, file), 'utf8').matchAll(/^import [^;]*? from "([^"]+)"/gm)].map(
          (m) => m[1]!,
        ),
      );
    expect(imported.length).toBeGreaterThan(0);
    expect(
      imported.filter((specifier) => isBuiltin(specifier) && !/^(node:)?module$/.test(specifier)),
    ).toEqual([]);
  });

  it('writes its bundle in ASCII, and the texts escaped in it read as written', async () => {
    // V8 keeps each module's source for the life of the process, two bytes a character as soon as one character is
    // outside Latin-1 (apps/api/bundle.js: `charset: 'ascii'`, no JSDoc).
    const bundle = join(process.cwd(), 'dist/apps/api/bundle');
    const wide = readdirSync(bundle)
      .filter((file) => file.endsWith('.js'))
      .flatMap((file) => {
        const source = readFileSync(join(bundle, file), 'utf8');
        let at = 0;
        while (at < source.length && source.charCodeAt(at) <= 0x7f) at++;
        return at === source.length ? [] : [`${file}: ${source.slice(Math.max(0, at - 40), at + 10)}`];
      });
    expect(wide).toEqual([]);
    // A description with an ellipsis, as the OpenAPI document serves it (escaped in the bundle as \u2026).
    const response = await fetch(`${api.url}${CORE}/openapi.json`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('PUT …/head switches back');
  });

  it('loads the api from its bundle, with no second copy of a compiled module', () => {
    // `npm run build` bundles the api (apps/api/bundle.js): main.js imports it, and nothing in the process imports a
    // compiled module of ours by its own path (which would load a second copy of it and of what it imports).
    const ours = [...loaded()].filter((name) => name.startsWith('dist/'));
    expect(ours).toContain('dist/apps/api/bundle/api.js');
    expect(ours.filter((path) => !path.startsWith('dist/apps/api/bundle/'))).toEqual([
      'dist/apps/api/src/main.js',
      'dist/apps/api/src/young-generation.js',
    ]);
  });

  it('answers the first Skill zip upload (yauzl, yaml loaded then) as before', async () => {
    const admin = client(api.url);
    const space = await admin.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Lazy') });
    expect(space.status).toBe(201);
    const name = `lazy-${Math.random().toString(36).slice(2, 10).replace(/\d/g, 'x')}`;
    const form = new FormData();
    form.append('spaceId', space.body.id);
    form.append(
      'file',
      new Blob([
        zipSync({
          'SKILL.md': strToU8(`---\nname: ${name}\ndescription: Checks receipts.\n---\n\nTotal them.\n`),
          'notes.md': strToU8('Meals are capped.'),
        }),
      ]),
      'skill.zip',
    );
    const response = await fetch(`${api.url}${CORE}/skills/upload`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY },
      body: form,
    });
    const body = (await response.json()) as { name: string; description: string };
    expect(response.status).toBe(201);
    expect(body).toMatchObject({ name, description: 'Checks receipts.' });
    expect([...loaded()]).toEqual(expect.arrayContaining(['yauzl', 'yaml']));
  });

  it('answers the first documents download (fflate loaded then) as before', async () => {
    const admin = client(api.url);
    const space = await admin.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Lazy') });
    const agent = await admin.post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: 'Reader',
    });
    expect(agent.status).toBe(201);
    const K = `${CORE}/knowledge/${agent.body.id}/documents`;
    const doc = await admin.post<{ id: string }>(K, { name: 'a.md', text: '# First' });
    expect(doc.status).toBe(201);
    const response = await fetch(`${api.url}${K}/download`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ documentIds: [doc.body.id] }),
    });
    expect(response.status).toBe(200);
    const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
    expect(strFromU8(files['a.md']!)).toBe('# First');
    expect(loaded()).toContain('fflate');
  });

  it('loaded no bundled package a second time from node_modules while answering the requests above', () => {
    expect(loaded()).toContain('fflate');
    expect(BUNDLED_PACKAGES.filter((name) => loaded().has(name))).toEqual([]);
  });
});
