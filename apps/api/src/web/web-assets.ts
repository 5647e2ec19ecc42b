// The built web app (dist/web, made by `npm run build`): its pages and assets, read once at start and served from
// memory. Found from the package root, so the api serves it whether it runs from dist/ or from the sources (tests).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

export interface WebFile {
  readonly body: Buffer;
  readonly type: string;
}

/** The package root: the nearest folder above this module holding package.json. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the api');
    dir = parent;
  }
  return dir;
}

export class WebAssets {
  private readonly files = new Map<string, WebFile>();

  constructor(readonly dir: string = join(packageRoot(), 'dist', 'web')) {
    if (!existsSync(dir)) return;
    const walk = (folder: string) => {
      for (const name of readdirSync(folder)) {
        const path = join(folder, name);
        if (statSync(path).isDirectory()) walk(path);
        else
          this.files.set(`/${relative(dir, path).split(sep).join('/')}`, {
            body: readFileSync(path),
            type: TYPES[extname(name)] ?? 'application/octet-stream',
          });
      }
    };
    walk(dir);
  }

  /** Whether the web app was built (dist/web/index.html exists). */
  get built(): boolean {
    return this.files.has('/index.html');
  }

  /** A file by its path under dist/web (`/assets/app-1a2b.js`), or undefined. */
  get(path: string): WebFile | undefined {
    return this.files.get(path);
  }
}
