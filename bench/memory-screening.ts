// `npm run memory:screening`: the Agent Memory prompt-injection rules (screenByRules) against the labelled corpus
// (libs/contexts/memory/src/screening/screening-corpus.json). Prints counts, precision, recall, the benign flagged rate and
// every miss; asserts nothing (memory-screen.spec.ts holds the floor: recall >= 0.95, benign flagged <= 5%).
import { screenByRules } from '#memory/screening/memory-screen';
import { scoreCorpus } from '#memory/screening/screening-corpus';

const score = scoreCorpus(screenByRules);
const percent = (value: number): string => `${(value * 100).toFixed(1)}%`;
console.table({
  injections: score.injections,
  benign: score.benign,
  'true positives': score.truePositives,
  'false negatives': score.falseNegatives,
  'false positives': score.falsePositives,
  precision: score.precision.toFixed(3),
  recall: score.recall.toFixed(3),
  'benign flagged': percent(score.benignFlaggedRate),
});
console.log(`\nmissed injections (${score.missed.length}):`);
for (const line of score.missed) console.log(`  ${line}`);
console.log(`\nbenign flagged (${score.wrongly.length}):`);
for (const line of score.wrongly) console.log(`  ${line}`);
