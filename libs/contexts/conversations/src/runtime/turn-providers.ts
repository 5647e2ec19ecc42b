// The context providers' part of a turn: their sections, tools and items before the answer, in the providers' order
// (the order sources are numbered in), and their work once the answer is recorded (memory extraction).
import type { Logger } from 'pino';
import { PlatformError } from '#kernel';
import type {
  AnsweredTurn,
  ContextItem,
  ContextProvider,
  ContextTool,
  TurnContext,
  TurnNotice,
} from './context-providers.js';
import type { TurnEmitter } from './turn-events.js';
import { afterAnswerSpan, contributionSpan } from './turn-spans.js';

export interface Contributions {
  readonly sections: readonly string[];
  readonly tools: readonly ContextTool[];
  readonly contributors: readonly string[];
  readonly items: ReadonlyMap<ContextProvider, readonly ContextItem[]>;
}

/**
 * Each provider's section, tools and items, in the providers' order. The providers look up side by side (Knowledge's
 * search beside Memory's read and the tools' listings): none reads another's contribution, and the turn waits for the
 * slowest instead of their sum. Sources are numbered by Knowledge alone, so the order they are numbered in holds.
 */
export async function contributions(
  providers: readonly ContextProvider[],
  turn: TurnContext,
  budget: number,
): Promise<Contributions> {
  const sections: string[] = [turn.agent.systemPrompt];
  const tools: ContextTool[] = [];
  const contributors: string[] = [];
  const items = new Map<ContextProvider, readonly ContextItem[]>();
  const contributed = await Promise.all(
    providers.map((provider) =>
      contributionSpan(provider.name, turn.query, () =>
        provider.contribute({
          ...turn,
          tokenShare: Math.floor(budget * provider.share),
        }),
      ),
    ),
  );
  for (const [i, provider] of providers.entries()) {
    const contribution = contributed[i];
    if (!contribution) continue;
    contributors.push(provider.name);
    if (contribution.system) sections.push(contribution.system);
    tools.push(...contribution.tools);
    if (contribution.items?.length) items.set(provider, contribution.items);
  }
  return { sections, tools, contributors, items };
}

/**
 * The providers' work for a complete answer, in order, started while the answer is recorded (`answered.recorded`);
 * each may add a field to the message (and a streamed event of that name), once the answer is recorded. A provider
 * that fails there is logged out of the way: the answer stands. When recording the answer failed, this rejects (the
 * turn fails with the recording's error) and nothing is logged or emitted.
 */
export async function afterAnswer(
  providers: readonly ContextProvider[],
  logger: Logger,
  turn: TurnContext,
  answered: Omit<AnsweredTurn, 'items'>,
  items: ReadonlyMap<ContextProvider, readonly ContextItem[]>,
  emit: TurnEmitter,
): Promise<Record<string, unknown>> {
  const notices: Record<string, unknown> = {};
  for (const provider of providers) {
    if (!provider.afterAnswer) continue;
    let notice: TurnNotice | null = null;
    try {
      const after = provider.afterAnswer.bind(provider);
      notice = await afterAnswerSpan(provider.name, () =>
        after(turn, { ...answered, items: items.get(provider) ?? [] }),
      );
    } catch (error) {
      await answered.recorded;
      logger.warn(
        { provider: provider.name, conversationId: turn.conversationId, err: errorSummary(error) },
        'a context provider failed after the answer',
      );
    }
    await answered.recorded;
    if (!notice) continue;
    notices[notice.field] = notice.value;
    await emit({ event: 'notice', name: notice.field, data: notice.value });
  }
  return notices;
}

/** An error as a log line may name it: its class and code, never its message (it may quote the conversation). */
const errorSummary = (error: unknown) => ({
  name: error instanceof Error ? error.name : typeof error,
  code: error instanceof PlatformError ? error.code : undefined,
});

/** A turn has ended: each provider drops what it started for it and did not hand on in afterAnswer. */
export function abandonTurn(providers: readonly ContextProvider[], turn: TurnContext): void {
  for (const provider of providers) provider.abandon?.(turn);
}
