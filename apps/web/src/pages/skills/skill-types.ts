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
