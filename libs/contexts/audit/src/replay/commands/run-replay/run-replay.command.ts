// Replaying recorded turns from the API (POST /replays, admins: the policy's `audit.replay`): the same TurnReplay the
// CLI runs — each answer's prompt rebuilt from the log as its turn saw it, re-sent to another model, the old and new
// answers with their citations kept, lost and added, tokens and cost — bounded to a few turns per request, then the
// run recorded (ReplayRan: who replayed which answers against which model; no content).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ValidationError } from '#kernel';
import { AggregateRepository, newEntityId, type CommandContext } from '#eventsourcing';
import { ask, Requires, type Principal } from '#access';
import { TurnReplay } from '../../turn-replay.js';
import type { ReplayOptions, ReplayReport, ReplaySelection } from '../../replay-report.types.js';
import { replayRunDecider } from '../../replay-run.decider.js';
import { replayRunStreamId } from '../../replay-run.events.js';

export interface ReplayRun {
  readonly id: string;
  readonly report: ReplayReport;
}

@Requires(() => ask('audit.replay', null, 'only admins replay recorded turns'))
export class RunReplay extends Command<ReplayRun> {
  constructor(
    readonly selection: ReplaySelection,
    readonly options: Omit<ReplayOptions, 'signal'>,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(RunReplay)
export class RunReplayHandler implements ICommandHandler<RunReplay> {
  constructor(
    private readonly replays: TurnReplay,
    private readonly aggregates: AggregateRepository,
  ) {}

  async execute({ selection, options, context }: RunReplay): Promise<ReplayRun> {
    if (!selection.agentId && !selection.messageIds?.length && !selection.from && !selection.to)
      throw new ValidationError(
        'missing_field',
        'choose the turns: agentId, messageIds or a time range',
        'agentId',
      );
    const report = await this.replays.replay(selection, options);
    const id = newEntityId(context, 'rpl');
    await this.aggregates.decide(
      replayRunStreamId(id),
      replayRunDecider,
      {
        replayId: id,
        model: report.model,
        retrieval: report.retrieval,
        selection,
        messageIds: report.turns.map((turn) => turn.messageId),
        replayed: report.totals.replayed,
      },
      context,
    );
    return { id, report };
  }
}
