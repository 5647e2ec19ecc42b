// An MCP App's resources in an Agent's Knowledge (admins): a resource is imported as a synced document (its provider
// `app:<appId>`, its `sourceUri` the resource's), and a sync reads each synced document's resource again — changed
// text is ingested again (as a new version; the Knowledge decider records nothing when it is the same), a resource the
// server no longer has removes its document. The Knowledge commands do the writing, asked as the admin who syncs.
// Only text resources are synced (what the server sends as text, or a text-typed blob).
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
import { NotFoundError, ValidationError } from '#kernel';
import {
  AddDocument,
  ChangeDocument,
  DeleteDocument,
  KNOWLEDGE_DOCUMENTS,
  type DocumentView,
} from '#knowledge';
import type { Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { appDecider } from '../../app.decider.js';
import { appStreamId } from '../../app.events.js';
import { APP_ALLOWLIST, type AppAllowlistEntry } from '../../apps.read-model.js';
import { appUnreachable, McpServers, type McpSource } from '../mcp-servers.js';
import { McpUnreachable, type McpConnection } from '../mcp-client.js';

export interface SyncOutcome {
  readonly documentId: string;
  readonly uri: string;
  readonly outcome: 'unchanged' | 'updated' | 'removed' | 'failed';
  readonly error?: string;
}

/** Synced documents one sync reads at most (the newest first are not favoured: the read model's order). */
const MAX_SYNCED = 1_000;

@Injectable()
export class AppResources {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly servers: McpServers,
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /** Imports one resource into the Agent's own Knowledge; the App must be enabled for the Agent. */
  async import(
    appId: string,
    request: { readonly agentId: string; readonly uri: string; readonly name?: string | undefined },
    context: CommandContext,
    principal: Principal,
  ): Promise<string> {
    const source = await this.mcpSource(appId);
    const enabled = await this.readStore
      .reader<AppAllowlistEntry>(APP_ALLOWLIST)
      .find({ agentId: request.agentId, appId }, { limit: 1 });
    if (enabled.data.length === 0)
      throw new ValidationError(
        'app_not_enabled',
        `the App '${appId}' is not enabled for the Agent '${request.agentId}'`,
        'agentId',
      );
    const read = await this.read(appId, source, request.uri);
    if (read === 'gone') throw new NotFoundError('Resource', request.uri);
    const added = await this.commands.execute(
      new AddDocument(
        request.agentId,
        async () => ({
          name: request.name ?? (request.uri.split('/').filter(Boolean).at(-1) || request.uri),
          scope: 'agent',
          tagIds: [],
          bytes: Buffer.from(read.text, 'utf8'),
          declaredType: read.mimeType ?? 'text/plain',
          provider: `app:${appId}`,
          sourceUri: request.uri,
        }),
        context,
        principal,
      ),
    );
    await added.stored;
    return added.id;
  }

  /** Reads every document synced from the App again. */
  async sync(appId: string, context: CommandContext, principal: Principal): Promise<SyncOutcome[]> {
    const source = await this.mcpSource(appId);
    const synced = await this.readStore
      .reader<DocumentView>(KNOWLEDGE_DOCUMENTS)
      .find({ provider: `app:${appId}` }, { limit: MAX_SYNCED });
    const outcomes: SyncOutcome[] = [];
    let connection: McpConnection | null = null;
    try {
      connection = await this.servers.connect(appId, source);
      for (const document of synced.data) {
        const uri = document.sourceUri ?? '';
        const agentId = document.ownerId;
        try {
          const read = await connection.readResource(uri);
          if (read === 'gone') {
            await this.commands.execute(
              new DeleteDocument(document.id, 'requested', agentId, context, principal),
            );
            outcomes.push({ documentId: document.id, uri, outcome: 'removed' });
            continue;
          }
          const changed = await this.commands.execute(
            new ChangeDocument(agentId, document.id, { text: read.text }, context, principal),
          );
          await changed.stored;
          const after = await this.readStore.reader<DocumentView>(KNOWLEDGE_DOCUMENTS).get(document.id);
          const updated = after !== null && after.contentHash !== document.contentHash;
          outcomes.push({ documentId: document.id, uri, outcome: updated ? 'updated' : 'unchanged' });
        } catch (error) {
          if (!(error instanceof McpUnreachable)) throw error;
          outcomes.push({ documentId: document.id, uri, outcome: 'failed', error: error.reason });
        }
      }
    } finally {
      await connection?.close();
    }
    return outcomes;
  }

  private async mcpSource(appId: string) {
    const { state } = await this.aggregates.load(appStreamId(appId), appDecider);
    if (state.status !== 'active') throw new NotFoundError('App', appId);
    if (state.source.type !== 'mcp')
      throw new ValidationError('not_an_mcp_app', `the App '${appId}' is not an MCP server`, 'appId');
    return state.source;
  }

  private async read(appId: string, source: McpSource, uri: string) {
    const connection = await this.servers.connect(appId, source);
    try {
      return await connection.readResource(uri);
    } catch (error) {
      if (error instanceof McpUnreachable) throw appUnreachable(error.reason);
      throw error;
    } finally {
      await connection.close();
    }
  }
}
