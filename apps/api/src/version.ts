// The platform's version, from one place: the `version` of the repository's package.json (semantic versioning; the
// release notes are CHANGELOG.md). The OpenAPI document's `info.version` and `/health` answer it.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'agent-platform';

/** The fields of the platform's package.json that are read: its version, and the start script's Node flags (bench). */
export interface PlatformPackage {
  readonly name: string;
  readonly version: string;
  readonly scripts: Readonly<Record<string, string>>;
}

/** Walks up from this module (under apps/ in the sources, under dist/apps/ once built) to the platform's package.json. */
export function platformPackage(): PlatformPackage {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 8; depth++) {
    try {
      const pkg = JSON.parse(
        readFileSync(join(directory, 'package.json'), 'utf8'),
      ) as Partial<PlatformPackage>;
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === 'string')
        return { name: pkg.name, version: pkg.version, scripts: pkg.scripts ?? {} };
    } catch {
      // no package.json here: one level up
    }
    directory = dirname(directory);
  }
  throw new Error(`the ${PACKAGE_NAME} package.json was not found above ${fileURLToPath(import.meta.url)}`);
}

export const PLATFORM_VERSION = platformPackage().version;
