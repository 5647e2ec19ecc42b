// Bundles the compiled api (tsc's output in dist/) into a few modules in dist/apps/api/bundle/, which main.js loads
// when they are there. The api is ≈850 modules of our own: resolving (the `#context` imports map), reading, checking
// the format of, compiling and linking each one was most of a cold start's CPU (README "Start-up and idle memory").
// Packages from node_modules stay outside (imported as they are), and so does every dynamic import of our code
// (a chunk of its own, loaded on first use, as before). `import.meta.url` keeps meaning the module's own compiled
// file: the worker threads, the parse child and the static files are found beside it, as without the bundle.
import { rm } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';
import { rolldown } from 'rolldown';

const root = resolve(import.meta.dirname, '../..');
const outDir = resolve(root, 'dist/apps/api/bundle');

/** Our modules (relative paths and the `#context` imports) are bundled; packages and Node's builtins are not. */
const external = (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('#');

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

await rm(outDir, { recursive: true, force: true });
const bundle = await rolldown({
  input: { api: resolve(root, 'dist/apps/api/src/api.js') },
  platform: 'node',
  external,
  plugins: [compiledModuleUrl],
  logLevel: 'warn',
});
await bundle.write({
  dir: outDir,
  format: 'esm',
  entryFileNames: '[name].js',
  chunkFileNames: '[name]-[hash].js',
  // Nest and our own code read class and function names (error messages, logs): they stay as written.
  keepNames: true,
});
await bundle.close();
