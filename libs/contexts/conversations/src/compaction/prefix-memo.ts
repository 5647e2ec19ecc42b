// What a turn made of its history last time, reused for a history that starts with the same objects: a long
// conversation's turn gets the messages of its last turn again (opened-history.ts), so each step of the turn (history
// forms, token counts, prompt forms) does its work for the new messages only and checks the others by identity, never
// reading a field of them. Only for work that maps each immutable object to one output, whatever surrounds it. Weak by
// the history's first object: a history no longer kept takes its entry with it.

/** The outputs of the first `count` inputs (those the last history starting with the same object had too). */
export interface Reused<Out> {
  readonly count: number;
  /** At least `count` long: the outputs of the last history. */
  readonly outputs: readonly Out[];
}

export class PrefixMemo<In extends object, Out> {
  private readonly last = new WeakMap<
    In,
    { readonly inputs: readonly In[]; readonly outputs: readonly Out[] }
  >();

  /** What can be reused for `inputs`: the outputs of the longest prefix they share with the last ones. */
  reuse(inputs: readonly In[]): Reused<Out> {
    const first = inputs[0];
    const entry = first === undefined ? undefined : this.last.get(first);
    if (!entry) return { count: 0, outputs: [] };
    const shared = Math.min(entry.inputs.length, inputs.length);
    let count = 0;
    while (count < shared && entry.inputs[count] === inputs[count]) count++;
    return { count, outputs: entry.outputs };
  }

  /** The outputs of `inputs`: those reused, then `make` of each other one (kept for the next history). */
  map(inputs: readonly In[], make: (input: In) => Out): Out[] {
    const { count, outputs: reused } = this.reuse(inputs);
    const outputs = reused.slice(0, count);
    for (let i = count; i < inputs.length; i++) outputs.push(make(inputs[i]!));
    this.keep(inputs, outputs);
    return outputs;
  }

  /** Remembers the outputs made for `inputs`, one each (copies of both: what the caller does with its arrays is its own). */
  keep(inputs: readonly In[], outputs: readonly Out[]): void {
    const first = inputs[0];
    if (first !== undefined) this.last.set(first, { inputs: [...inputs], outputs: [...outputs] });
  }
}
