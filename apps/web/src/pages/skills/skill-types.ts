// The Skill shapes the Skills pages read (the OpenAPI's SkillDto and SkillVersionDto, as far as the pages use them).
export interface SkillVersion {
  readonly id: string;
  readonly number: number;
  readonly state: 'draft' | 'published';
  readonly name: string;
  readonly description: string;
  /** null in lists: GET …/versions/{versionId} has it. */
  readonly instructions: string | null;
  readonly publishedAt: string | null;
}

export interface Skill {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly placement: 'space' | 'agent' | 'global';
  readonly spaceId: string | null;
  readonly agentId: string | null;
  readonly source: 'CUSTOM' | 'DEFAULT' | 'MARKETPLACE';
  /** For an installed Skill: the marketplace Skill it came from. */
  readonly sourceId: string | null;
  readonly activeVersionId: string | null;
  readonly draftVersionId: string | null;
  readonly versions?: readonly SkillVersion[];
}

/** Where a Skill goes: the Agent alone, or its Space (every Agent of it). */
export type Placement = { readonly agentId: string } | { readonly spaceId: string };

/**
 * The description of the Skills that ship with the instance, in German: theirs is English (the model reads it), and a
 * German page shows no English sentence. A Skill people write keeps their own words.
 */
const SHIPPED_IN_GERMAN: Readonly<Record<string, string>> = {
  'summarize-document':
    'Fasst ein Dokument oder Wissens-Passagen mit Quellenangaben zusammen. Für Bitten um eine Zusammenfassung, ' +
    'einen Überblick, die Kernpunkte oder ein TL;DR eines Dokuments.',
  'draft-email':
    'Entwirft eine klare, gegliederte E-Mail. Für Bitten, eine E-Mail oder Nachricht an Kolleginnen, Kunden oder ' +
    'Partner zu schreiben, zu entwerfen oder zu beantworten.',
  'meeting-notes':
    'Macht aus einem Besprechungsprotokoll oder groben Notizen ein gegliedertes Protokoll mit Entscheidungen und ' +
    'Aufgaben. Für geteilte Besprechungsnotizen oder Mitschriften und Bitten um Protokoll oder Aufgabenliste.',
};

/** A Skill's description in the page's language where the instance ships it in that language. */
export const skillDescription = (
  skill: Pick<Skill, 'name' | 'description' | 'source'>,
  language: string,
): string =>
  (language === 'de' && skill.source === 'DEFAULT' && SHIPPED_IN_GERMAN[skill.name]) || skill.description;
