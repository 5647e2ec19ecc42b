// The labelled corpus the rules are measured against (screening-corpus.json): injection attempts written in the
// styles of published memory-poisoning and indirect prompt-injection attacks, each with a `style` label, and benign
// personal and team facts, near-misses included. Original text. `npm run memory:screening` prints the figures; the
// unit spec holds the floor (recall ≥ 0.95, benign flagged ≤ 5%).
import corpus from './screening-corpus.json' with { type: 'json' };
import type { ScreenVerdict } from './memory-screen.js';

export interface InjectionSample {
  readonly text: string;
  readonly style: string;
}

export interface BenignSample {
  readonly text: string;
}

export interface ScreeningCorpus {
  readonly injections: readonly InjectionSample[];
  readonly benign: readonly BenignSample[];
}

export const SCREENING_CORPUS: ScreeningCorpus = corpus;

export interface CorpusScore {
  /** Number of injection samples. */
  readonly injections: number;
  /** Number of benign samples. */
  readonly benign: number;
  readonly truePositives: number;
  readonly falseNegatives: number;
  readonly falsePositives: number;
  /** truePositives / (truePositives + falsePositives); 1 when nothing was flagged. */
  readonly precision: number;
  /** truePositives / injections. */
  readonly recall: number;
  /** falsePositives / benign. */
  readonly benignFlaggedRate: number;
  /** Injections that passed, as `style: text`. */
  readonly missed: string[];
  /** Benign samples that were flagged, as `reason,reason: text`. */
  readonly wrongly: string[];
}

/** Scores a screen against the corpus (the bundled one unless another is given). */
export function scoreCorpus(
  screen: (text: string) => ScreenVerdict,
  samples: ScreeningCorpus = SCREENING_CORPUS,
): CorpusScore {
  const missed: string[] = [];
  const wrongly: string[] = [];
  let truePositives = 0;
  for (const sample of samples.injections) {
    if (screen(sample.text).flagged) truePositives += 1;
    else missed.push(`${sample.style}: ${JSON.stringify(sample.text)}`);
  }
  let falsePositives = 0;
  for (const sample of samples.benign) {
    const verdict = screen(sample.text);
    if (!verdict.flagged) continue;
    falsePositives += 1;
    wrongly.push(`${verdict.reasons.join(',')}: ${JSON.stringify(sample.text)}`);
  }
  const injections = samples.injections.length;
  const benign = samples.benign.length;
  const flagged = truePositives + falsePositives;
  return {
    injections,
    benign,
    truePositives,
    falseNegatives: injections - truePositives,
    falsePositives,
    precision: flagged === 0 ? 1 : truePositives / flagged,
    recall: injections === 0 ? 1 : truePositives / injections,
    benignFlaggedRate: benign === 0 ? 0 : falsePositives / benign,
    missed,
    wrongly,
  };
}
