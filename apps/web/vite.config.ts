// The web app and the embed, built by `npm run build` into dist/web and served by the api (apps/api/src/web). Three
// pages' worth of entries: the app (index.html), the embed page (embed.html), and the two embed scripts a host page
// loads (widget.js, bubble.js), which keep fixed names so the snippets of an Agent's Embed tab stay valid.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/',
  publicDir: false,
  build: {
    outDir: here('../../dist/web'),
    emptyOutDir: true,
    // The system prompt's editor is one chunk of ~610 KB (~205 KB gzip: CodeMirror with the Markdown language, which
    // brings its HTML, CSS and JavaScript parsers), loaded only on an Agent's settings page.
    chunkSizeWarningLimit: 700,
    target: 'es2022',
    // Nothing inlined as data: URLs into scripts (the CSP allows data: images only).
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    rollupOptions: {
      input: {
        app: here('index.html'),
        embed: here('embed.html'),
        widget: here('src/embed/widget.ts'),
        bubble: here('src/embed/bubble.ts'),
      },
      output: {
        entryFileNames: (chunk) =>
          chunk.name === 'widget' || chunk.name === 'bubble' ? 'embed/[name].js' : 'assets/[name]-[hash].js',
      },
    },
  },
});
