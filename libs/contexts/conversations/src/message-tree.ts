// A conversation's live messages, oldest first, each with its parent (the tree conversation-tree.ts reads): the part of
// the Conversation decider's state that grows with every turn. States are immutable, yet copying the messages into
// each next state made a turn's folds cost as much as the conversation is long (a 10,000-message conversation spent
// more on copying its ids and parents than on the rest of its turn). So a tree is a view: the first `size` entries of
// a store it may share. Extending the newest view of a store appends to the store in place, and the longer view shares
// it; every earlier view still sees only its own entries (a position at or past its size is not its own). Extending a
// view that is not the newest (a decision retried after a concurrent append folded its events into the same state, a
// state kept aside) or removing a message copies the view's entries into a store of its own.

interface Store {
  readonly ids: string[];
  readonly parents: (string | null)[];
  /** Each id's position in `ids`: an id is in a view when its position is below the view's size. */
  readonly positions: Map<string, number>;
}

const newStore = (): Store => ({ ids: [], parents: [], positions: new Map() });

export class MessageTree {
  private constructor(
    private readonly store: Store,
    /** How many of the store's entries are this tree's own. */
    readonly size: number,
  ) {}

  static empty(): MessageTree {
    return new MessageTree(newStore(), 0);
  }

  /** The tree of these messages in this order (each parent before its children, as a conversation records them). */
  static of(entries: Iterable<{ readonly id: string; readonly parentId: string | null }>): MessageTree {
    let tree = MessageTree.empty();
    for (const { id, parentId } of entries) tree = tree.with(id, parentId);
    return tree;
  }

  /** The id's position among the messages (0: the oldest), or -1 when it is not one of them. */
  indexOf(id: string): number {
    const position = this.store.positions.get(id);
    return position !== undefined && position < this.size ? position : -1;
  }

  has(id: string): boolean {
    return this.indexOf(id) >= 0;
  }

  /** The message's parent (null: a first message); undefined when it is not one of the messages. */
  parentOf(id: string): string | null | undefined {
    const position = this.indexOf(id);
    return position < 0 ? undefined : this.store.parents[position];
  }

  /** The messages oldest first, each with its parent. */
  *entries(): IterableIterator<{ readonly id: string; readonly parentId: string | null }> {
    for (let i = 0; i < this.size; i++) yield { id: this.store.ids[i]!, parentId: this.store.parents[i]! };
  }

  ids(): string[] {
    return this.store.ids.slice(0, this.size);
  }

  /** The tree with one more message last; a message already in it keeps its place and takes the new parent. */
  with(id: string, parentId: string | null): MessageTree {
    if (this.has(id))
      return MessageTree.of([...this.entries()].map((entry) => (entry.id === id ? { id, parentId } : entry)));
    // This view is the store's newest: the store grows, and the views over it stay as they were.
    const store = this.store.ids.length === this.size ? this.store : this.copy();
    store.positions.set(id, store.ids.length);
    store.ids.push(id);
    store.parents.push(parentId);
    return new MessageTree(store, this.size + 1);
  }

  /** The tree without the message, its children handed to its own parent (a deletion keeps the rest of the tree). */
  without(id: string): MessageTree {
    if (!this.has(id)) return this;
    const parentId = this.parentOf(id) ?? null;
    const rest: { id: string; parentId: string | null }[] = [];
    for (const entry of this.entries())
      if (entry.id !== id) rest.push(entry.parentId === id ? { id: entry.id, parentId } : entry);
    return MessageTree.of(rest);
  }

  /** This view's entries in a store of their own. */
  private copy(): Store {
    const ids = this.store.ids.slice(0, this.size);
    return {
      ids,
      parents: this.store.parents.slice(0, this.size),
      positions: new Map(ids.map((id, position) => [id, position])),
    };
  }
}
