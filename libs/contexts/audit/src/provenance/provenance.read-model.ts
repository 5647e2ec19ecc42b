// The provenance read model: which answers used which source. One document per (answer, source version), built by
// projections/provenance from the provenance every `AssistantMessageRecorded` carries (its cited passages, the
// memories and Skill versions its prompt held, its system prompt's hash), and one per conversation (whose it is, and
// whether it was deleted). Deleting a document, a Skill or a memory leaves these rows: an admin still lists the
// answers that relied on the old content. Ids only: no text of an answer or a source is here.
import { defineReadModel } from '#eventsourcing';

export const PROVENANCE_SOURCE_KINDS = ['document', 'chunk', 'skill', 'memory', 'prompt'] as const;
export type ProvenanceSourceKind = (typeof PROVENANCE_SOURCE_KINDS)[number];

/** A cited passage of a document version (a chunk of it: the range of its extracted text). */
export interface CitedPassage {
  readonly start: number;
  readonly end: number;
  readonly sectionPath: readonly string[];
}

export interface ProvenanceUseView {
  /** `<messageId>|<kind>:<sourceId>@<version>` */
  readonly id: string;
  /** `<kind>:<sourceId>`: what the route filters by (a chunk is looked up as its document). */
  readonly source: string;
  readonly kind: Exclude<ProvenanceSourceKind, 'chunk'>;
  readonly sourceId: string;
  /** The document's version, the Skill's or memory's version number, the system prompt's SHA-256. */
  readonly version: string;
  /** A Skill version's own id (`skv_…`); null otherwise. */
  readonly versionId: string | null;
  /** For a document: its name, the content hash of the version, the passages cited (or, uncited, retrieved). */
  readonly documentName: string | null;
  readonly contentHash: string | null;
  readonly passages: readonly CitedPassage[];
  /** A document: the answer cites it (else its prompt held it, retrieved, uncited). Other kinds: false. */
  readonly cited: boolean;
  readonly conversationId: string;
  readonly messageId: string;
  readonly agentId: string;
  /** The user whose conversation it is. */
  readonly userId: string;
  /** When the answer was recorded. */
  readonly at: string;
  /** The answer was deleted since (the log keeps that it existed). */
  readonly messageDeleted: boolean;
}

export interface ProvenanceConversationView {
  readonly id: string;
  readonly agentId: string;
  readonly userId: string;
  readonly deleted: boolean;
}

export const PROVENANCE_USES = 'provenance_uses';
export const PROVENANCE_CONVERSATIONS = 'provenance_conversations';
export const PROVENANCE_PROJECTION = 'provenance';

export const PROVENANCE_USES_READ_MODEL = defineReadModel<ProvenanceUseView>({
  name: PROVENANCE_USES,
  projection: PROVENANCE_PROJECTION,
  indexes: [{ fields: ['source', 'at'] }, { fields: ['messageId'] }],
});

export const PROVENANCE_CONVERSATIONS_READ_MODEL = defineReadModel<ProvenanceConversationView>({
  name: PROVENANCE_CONVERSATIONS,
  projection: PROVENANCE_PROJECTION,
});

export const provenanceUseId = (messageId: string, kind: string, sourceId: string, version: string): string =>
  `${messageId}|${kind}:${sourceId}@${version}`;
