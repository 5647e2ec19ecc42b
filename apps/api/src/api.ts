// What main.ts needs of the api, in one module: the entry of the api's bundle (apps/api/bundle.js), so that the
// configuration, the logger and the application are one copy of the code, whichever way they are loaded.
export { loadConfigOrExit, restrictProcessUmask } from '#kernel';
export { createLogger, startTracing } from '#infrastructure';
export { PLATFORM_VERSION } from './version.js';
export { startApi } from './bootstrap.js';
