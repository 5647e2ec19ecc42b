// The sniffer's cost on pathological text (runs of `[`, `**`, `=` under a title, …): measured here, not asserted in
// the unit tests (a timing there is the machine's load). Each text's fastest of five runs at 15,000 and 60,000
// characters (under the heuristics' 64 KiB sample, so every pattern sees the whole text): a linear pattern costs 4 ×
// for 4 × the text, a quadratic one 16 ×; and against plain text of the larger size.
import { sniffType } from '#knowledge/ingestion/sniff';
import type { MetricRow } from './util.js';

const PATHOLOGICAL: readonly ((size: number) => string)[] = [
  (size) => '['.repeat(size),
  (size) => `${'['.repeat(size - 2)}]]`,
  (size) => '[a]('.repeat(size / 4),
  (size) => '**'.repeat(size / 2),
  (size) => `${'a '.repeat(size / 6)}\n`.repeat(3),
  (size) => `Title\n${'='.repeat(size)}x`,
  (size) => `|${' '.repeat(size)}`,
];

async function fastest(text: string): Promise<number> {
  let best = Infinity;
  for (let run = 0; run < 5; run++) {
    const started = performance.now();
    await sniffType(Buffer.from(text));
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** The worst growth (60k ÷ 15k) over the pathological texts, and the worst cost against plain text (60k ÷ plain). */
export async function benchSniffLinearity(): Promise<MetricRow[]> {
  const plain = await fastest('lorem ipsum dolor sit amet\n'.repeat(60_000 / 27));
  let growth = 0;
  let worst = 0;
  for (const make of PATHOLOGICAL) {
    const small = await fastest(make(15_000));
    const large = await fastest(make(60_000));
    growth = Math.max(growth, large / Math.max(small, 0.05));
    worst = Math.max(worst, large);
  }
  return [
    {
      metric: 'sniff growth on pathological text (60k ÷ 15k chars, linear = 4)',
      value: growth,
      unit: '×',
      baseline: null,
      baselineLabel: null,
      ratio: growth,
      goal: { on: 'ratio', op: '<=', target: 8 },
    },
    {
      metric: 'sniff pathological text vs plain text of its size',
      value: worst,
      unit: 'ms',
      baseline: plain,
      baselineLabel: 'plain text, 60k chars',
      ratio: worst / Math.max(plain, 0.05),
      goal: { on: 'ratio', op: '<=', target: 20 },
    },
  ];
}
