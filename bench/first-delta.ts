// The web bench's first-delta measure: how long the chat takes to show a streamed answer's first words once they
// reach the page. Both ends are read on the page's own clock (performance.now()), so no clock is translated:
// - arrival: the moment the chat's stream reader hands over the chunk holding the first `delta` event with visible
//   text (the probe wraps ReadableStreamDefaultReader.prototype.read, which the chat's SSE reader calls; the read
//   resolves in the task that delivers the bytes to the page, before the chat's own code sees them);
// - shown: a MutationObserver sees that text in the answer's row, and the next animation frame, the one that paints
//   it, begins.
// The network's time to deliver the bytes is not in it (that is the api's streamed first delta, benchmark 4), nor the
// paint itself (a frame's work after its callbacks, which a page cannot time).
import type { Page } from 'playwright-core';

/** Installed before the chat's scripts (an init script, so the page's CSP does not apply). */
export const FIRST_DELTA_PROBE = `(() => {
  const probe = { text: null, arrivedAt: null, inDomAt: null, paintedAt: null };
  globalThis.__firstDelta = probe;
  // The answer's row (each run is a new conversation): streaming still, or done already when the whole answer came
  // in the chunk that brought its first delta.
  const shown = () =>
    [...document.querySelectorAll('li.message.assistant')].at(-1)?.textContent.includes(probe.text);
  const watch = () => {
    const observer = new MutationObserver(() => {
      if (!shown()) return;
      probe.inDomAt = performance.now();
      observer.disconnect();
      requestAnimationFrame(() => { probe.paintedAt = performance.now(); });
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
  };
  const read = ReadableStreamDefaultReader.prototype.read;
  ReadableStreamDefaultReader.prototype.read = function () {
    return read.call(this).then((result) => {
      if (probe.arrivedAt === null && typeof result.value === 'string') {
        for (const found of result.value.matchAll(/event: delta\\ndata: (.*)\\n/g)) {
          // Its first word: what Markdown leaves as it is (a delta may open with \`**\` or \`- \`).
          let text = '';
          try { text = /[\\p{L}\\p{N}]+/u.exec(String(JSON.parse(found[1]).text))?.[0] ?? ''; } catch { continue; }
          if (!text) continue;
          probe.text = text;
          probe.arrivedAt = performance.now();
          watch();
          break;
        }
      }
      return result;
    });
  };
})();`;

interface Probe {
  readonly arrivedAt: number | null;
  readonly inDomAt: number | null;
  readonly paintedAt: number | null;
}
/** What the page functions read (the bench compiles without the DOM types). */
interface ProbeGlobals {
  readonly __firstDelta?: Probe;
  readonly document: { querySelector(selector: string): unknown };
}

export interface FirstDelta {
  /** From the bytes' arrival to the text in the DOM. */
  readonly inDomMs: number;
  /** From the bytes' arrival to the start of the frame that paints the text. */
  readonly paintedMs: number;
}

/**
 * Asks `runs` questions, each in a new conversation on a freshly loaded chat page (`page` has FIRST_DELTA_PROBE), one
 * more first that warms the browser and is not counted; each answer is streamed to its end before the next question.
 */
export async function firstDeltaTimes(page: Page, chatUrl: string, runs: number): Promise<FirstDelta[]> {
  const times: FirstDelta[] = [];
  for (let run = 0; run <= runs; run++) {
    await page.goto(chatUrl);
    const box = page.locator('.composer textarea');
    await box.fill(`Question ${run} for the first delta: what is streaming?`);
    await box.press('Enter');
    await page
      .waitForFunction(
        () => (globalThis as unknown as ProbeGlobals).__firstDelta?.paintedAt != null,
        undefined,
        { timeout: 60_000 },
      )
      .catch(async (failure: unknown) => {
        const seen = await page.evaluate(() => (globalThis as unknown as ProbeGlobals).__firstDelta);
        throw new Error(`first delta not seen painted (probe: ${JSON.stringify(seen)}): ${String(failure)}`);
      });
    const probe = await page.evaluate(() => (globalThis as unknown as ProbeGlobals).__firstDelta!);
    await page.waitForFunction(
      () =>
        !(globalThis as unknown as ProbeGlobals).document.querySelector(
          'li.message.assistant[data-streaming="true"]',
        ),
      undefined,
      { timeout: 60_000 },
    );
    if (run > 0)
      times.push({
        inDomMs: probe.inDomAt! - probe.arrivedAt!,
        paintedMs: probe.paintedAt! - probe.arrivedAt!,
      });
  }
  return times;
}
