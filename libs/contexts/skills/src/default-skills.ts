// The Skills that ship with the instance (source DEFAULT, creatorType PLATFORM), available to every Agent. They are
// seeded through commands on first start (skills-seeder.ts), never inserted behind the log's back, with ids derived
// from their names so a restart or a second process appends nothing.

export interface DefaultSkill {
  readonly name: string;
  readonly description: string;
  readonly instructions: string;
  readonly files: readonly { readonly path: string; readonly content: string }[];
}

export const DEFAULT_SKILLS: readonly DefaultSkill[] = [
  {
    name: 'summarize-document',
    description:
      'Summarise a document or a set of Knowledge passages with citations. Use when the user asks for a summary, ' +
      'an overview, key points or a TL;DR of a document.',
    instructions: [
      'Summarise the document the user names, from the Knowledge sources of this turn (search_knowledge again with',
      'the document name if they are not there).',
      '',
      '1. Start with one sentence saying what the document is and who it is for.',
      '2. Then give 3 to 7 key points, most important first, one line each; end every point with the citation of',
      '   the source it comes from, like [2]. Never state a point you cannot cite.',
      '3. Close with open questions or caveats the document itself raises, if any.',
      '4. Keep to the length the user asks for; without one, about 150 words.',
      '',
      'Follow the layout in the reference file summary-template.md.',
    ].join('\n'),
    files: [
      {
        path: 'summary-template.md',
        content: [
          '# <Document name>',
          '',
          '<One sentence: what it is and for whom.>',
          '',
          '## Key points',
          '- <point> [n]',
          '- <point> [n]',
          '',
          '## Open questions',
          '- <question the document raises>',
        ].join('\n'),
      },
    ],
  },
  {
    name: 'draft-email',
    description:
      'Draft a clear, structured email. Use when the user asks to write, draft or reply to an email or a message ' +
      'to a colleague, customer or partner.',
    instructions: [
      'Draft the email the user describes.',
      '',
      '1. Ask for the recipient, the goal and any deadline only if you cannot infer them; otherwise draft at once.',
      '2. Subject line: specific, under 60 characters.',
      '3. First sentence: the reason for writing or the request. Then the context the reader needs, in short',
      '   paragraphs or a list. End with one clear next step and a date when there is one.',
      '4. Match the tone to the recipient (see tone-guide.md); no filler, no apologies for writing.',
      '5. Offer one shorter alternative when the draft exceeds 150 words.',
    ].join('\n'),
    files: [
      {
        path: 'tone-guide.md',
        content: [
          '# Tone guide',
          '- Colleague: direct, friendly, first names.',
          '- Customer: courteous, concrete, no internal jargon.',
          '- Executive: the decision or ask first, three bullet points at most.',
        ].join('\n'),
      },
    ],
  },
  {
    name: 'meeting-notes',
    description:
      'Turn a meeting transcript or rough notes into structured minutes with decisions and action items. Use when ' +
      'the user shares meeting notes or a transcript, or asks for minutes or action items.',
    instructions: [
      'Write minutes from the notes or transcript the user gives.',
      '',
      '1. Title, date and attendees when they appear in the notes.',
      '2. Decisions: one line each, in the order taken.',
      '3. Action items: owner, task, due date; write "unassigned" rather than guess an owner.',
      '4. Open questions and parking-lot items last.',
      '5. Never invent a decision or an owner that the notes do not contain.',
    ].join('\n'),
    files: [],
  },
];
