// Bundles the compiled api (tsc's output in dist/) into a few modules in dist/apps/api/bundle/, which main.js loads
// when they are there. The api is ≈850 modules of our own and ≈1,100 of the packages every start loads (Nest, rxjs,
// zod, Fastify…): resolving, reading, checking the format of, compiling and linking each one was most of a cold
// start's CPU (README "Start-up and idle memory"). Both are bundled; the packages loaded only on first use stay
// outside (imported as they are, when they are), and so does every dynamic import of our code (a chunk of its own,
// loaded on first use, as before). `import.meta.url` keeps meaning the module's own file (our compiled one, or the
// package's): the worker threads, the parse child and the static files are found beside it, as without the bundle.
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { rolldown } from 'rolldown';

const root = resolve(import.meta.dirname, '../..');
const outDir = resolve(root, 'dist/apps/api/bundle');

/**
 * The packages every start of the api loads, listed in bundled-packages.json: bundled with our code
 * (test/startup-lazy-modules.e2e.spec.ts checks that none of them is also loaded from node_modules). Not listed: the
 * packages loaded on first use (bundling them would make every start read and parse their code), pino and its own
 * dependencies (its transports start worker threads from its files), and reflect-metadata (main.js imports it before
 * the bundle).
 */
const STARTUP_PACKAGES = new Set(
  JSON.parse(readFileSync(resolve(import.meta.dirname, 'bundled-packages.json'), 'utf8')),
);

/**
 * Bundled packages whose objects carry their identity (Nest's injection tokens and classes, rxjs's and zod's classes,
 * Fastify's instances): a package left outside that depends on one of them would load a second copy of it from
 * node_modules, and the two would not know each other's objects. The build fails instead.
 */
const ONE_COPY_ONLY = /^(@nestjs\/|rxjs$|zod$|fastify$)/;

const packageName = (specifier) => /^(?:@[^/]+\/)?[^/]+/.exec(specifier)?.[0];

/** Packages imported by the bundle but left outside it (not our code, not Node's builtins). */
const outside = new Set();

/** Our modules (relative paths and the `#context` imports) and the start-up packages are bundled; the rest is not. */
const external = (id) => {
  if (id.startsWith('.') || id.startsWith('/') || id.startsWith('#') || id.startsWith('\0')) return false;
  if (isBuiltin(id)) return false; // builtinsByRequire decides
  const name = packageName(id);
  if (STARTUP_PACKAGES.has(name)) return false;
  if (name) outside.add(name);
  return true;
};

/** The folder of `name` as Node would find it from `from` (undefined when it is not installed). */
function packageFolder(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The dependency paths from the packages left outside to a bundled package that must exist once only. */
function secondCopies() {
  const found = [];
  const seen = new Set();
  const visit = (name, from, path) => {
    const folder = packageFolder(name, from);
    if (!folder || seen.has(folder)) return;
    seen.add(folder);
    if (path.length > 1 && STARTUP_PACKAGES.has(name) && ONE_COPY_ONLY.test(name)) {
      found.push(path.join(' → '));
      return;
    }
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    for (const dependency of Object.keys({
      ...manifest.dependencies,
      ...manifest.peerDependencies,
      ...manifest.optionalDependencies,
    }))
      visit(dependency, folder, [...path, dependency]);
  };
  for (const name of outside) visit(name, root, [name]);
  return found;
}

/**
 * Node's builtins, imported by an ES module of the bundle, are taken with `require` instead. An ES import of a builtin
 * makes Node build an ES facade of it, which reads every export, getters included: `node:http`'s `WebSocket` getter
 * loads Node's copy of undici (≈45 ms of a start here), `node:crypto`'s loads WebCrypto, `node:fs`'s fs/promises.
 * Through `require` the code gets the module itself, and a getter runs when something reads it (CommonJS semantics,
 * as the bundled packages already had).
 */
const builtinsByRequire = {
  name: 'builtins-by-require',
  resolveId(source, _importer, options) {
    if (!isBuiltin(source)) return null;
    const name = source.replace(/^node:/, '');
    // node:module stays an import: the bundle's `require` is made with it.
    if (options.kind !== 'import-statement' || name === 'module') return { id: source, external: true };
    return { id: `\0builtin:${name}`, moduleSideEffects: false };
  },
  load(id) {
    if (!id.startsWith('\0builtin:')) return null;
    return { code: `module.exports = require(${JSON.stringify(`node:${id.slice(9)}`)});`, moduleType: 'js' };
  },
};

/** Rewrites `import.meta.url` to the URL of the module's compiled file, computed from the bundle's own location. */
const compiledModuleUrl = {
  name: 'compiled-module-url',
  transform(code, id) {
    if (!code.includes('import.meta.url')) return null;
    const path = relative(outDir, id).split(sep).join('/');
    return {
      code: code.replaceAll('import.meta.url', `new URL(${JSON.stringify(path)}, import.meta.url).href`),
    };
  },
};

/**
 * Nest's loggers each make an `Intl.DateTimeFormat` when their module loads, for the timestamp of a console line. Making
 * one loads ICU's calendar and time-zone data: ≈6 MB of the node binary's pages stay resident for the life of the api,
 * which logs through pino and never formats a Nest timestamp. Here each is made on its first use instead. The build
 * fails when Nest's code no longer has the line, so a Nest upgrade cannot silently bring the cost back.
 */
const NEST_DATE_FORMATTERS = /node_modules\/@nestjs\/common\/services\/(console-logger|logger)\.service\.js$/;
const lazyNestDateFormatters = {
  name: 'lazy-nest-date-formatters',
  transform(code, id) {
    if (!NEST_DATE_FORMATTERS.test(id)) return null;
    const eager = 'const dateTimeFormatter = new Intl.DateTimeFormat(undefined, {';
    if (!code.includes(eager)) throw new Error(`${id} no longer makes its Intl.DateTimeFormat as expected`);
    return {
      code: code.replace(
        eager,
        'let madeDateTimeFormatter;\n' +
          'const dateTimeFormatter = {\n' +
          '  format: (date) => (madeDateTimeFormatter ??= new Intl.DateTimeFormat(undefined, dateTimeOptions)).format(date),\n' +
          '};\n' +
          'const dateTimeOptions = ({',
      ),
    };
  },
};

await rm(outDir, { recursive: true, force: true });
const bundle = await rolldown({
  input: { api: resolve(root, 'dist/apps/api/src/api.js') },
  platform: 'node',
  external,
  plugins: [builtinsByRequire, compiledModuleUrl, lazyNestDateFormatters],
  logLevel: 'warn',
});
await bundle.write({
  dir: outDir,
  format: 'esm',
  entryFileNames: '[name].js',
  chunkFileNames: '[name]-[hash].js',
  // Nest and our own code read class and function names (error messages, logs): they stay as written.
  keepNames: true,
  // V8 keeps each module's source for the life of the process, two bytes a character when a single one is outside
  // Latin-1 (a dash or an arrow in a message or a comment): ASCII escapes and no JSDoc keep it at one byte and smaller.
  charset: 'ascii',
  comments: { legal: true, annotation: true, jsdoc: false },
});
await bundle.close();

const copies = secondCopies();
if (copies.length > 0) {
  await rm(outDir, { recursive: true, force: true });
  throw new Error(
    `a package outside the api's bundle depends on one bundled in it, which would then be loaded twice:\n  ${copies.join('\n  ')}\n` +
      'bundle the dependent package too (apps/api/bundled-packages.json), or leave the other outside',
  );
}
