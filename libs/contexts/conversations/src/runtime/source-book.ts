// The sources a turn retrieved, numbered in the order they were found (the first search's, then each
// search_knowledge call's). Citations are checked against it: a marker whose number it does not hold is dropped.
import type { PromptSource } from './grounding.js';
import type { Citation } from '../conversation.events.js';

export interface RetrievedSource extends Omit<Citation, 'index'> {
  readonly text: string;
}

/** The cluster summary closest to the turn's retrieval (Agents that include AI summaries). */
export interface SourcesSummary {
  readonly nodeId: string;
  readonly level: number;
  readonly text: string;
  readonly documentIds: readonly string[];
}

export class SourceBook {
  summary: SourcesSummary | null = null;
  private readonly byIndex = new Map<number, Citation & { readonly text: string }>();
  private readonly byPassage = new Map<string, number>();

  /** Numbers the new sources (a passage found again keeps its first number) and returns them as numbered. */
  add(sources: readonly RetrievedSource[]): (Citation & { readonly text: string })[] {
    const added: (Citation & { readonly text: string })[] = [];
    for (const source of sources) {
      const key = `${source.documentId}:${source.documentVersion}:${source.start}:${source.end}`;
      const known = this.byPassage.get(key);
      if (known !== undefined) {
        added.push(this.byIndex.get(known)!);
        continue;
      }
      const numbered = { index: this.byIndex.size + 1, ...source };
      this.byIndex.set(numbered.index, numbered);
      this.byPassage.set(key, numbered.index);
      added.push(numbered);
    }
    return added;
  }

  has(index: number): boolean {
    return this.byIndex.has(index);
  }

  get(index: number): Citation | undefined {
    const source = this.byIndex.get(index);
    if (!source) return undefined;
    const { text: _text, ...citation } = source;
    return citation;
  }

  get size(): number {
    return this.byIndex.size;
  }

  /** Every source with its passage, in number order (the `retrieval` event). */
  numbered(): (Citation & { readonly text: string })[] {
    return [...this.byIndex.values()];
  }

  /** Every source, without its passage text (provenance). */
  all(): Citation[] {
    return [...this.byIndex.values()].map(({ text: _text, ...source }) => source);
  }

  indexes(): ReadonlySet<number> {
    return new Set(this.byIndex.keys());
  }
}

export const toPromptSource = (source: Citation & { readonly text: string }): PromptSource => ({
  index: source.index,
  documentName: source.documentName,
  sectionPath: source.sectionPath,
  text: source.text,
});
