// An App's documents in Knowledge (admins): an MCP App's resource, or a text a URL App's `/meta` declares, is imported
// as a synced document (its provider `app:<appId>`, its `sourceUri` the resource's) of an Agent's own Knowledge, a
// Space's or the Global one (synced-document-places.ts); a sync reads each synced document again — changed text is
// ingested again (as a new version; the Knowledge decider records nothing when it is the same), a document the App no
// longer has removes it. The Knowledge commands do the writing, asked as the admin who syncs. Only text is synced
// (what an MCP server sends as text or a text-typed blob; text/markdown or text/plain from a URL App).
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { NotFoundError } from '#kernel';
import {
  AddDocument,
  ChangeDocument,
  DeleteDocument,
  KNOWLEDGE_DOCUMENTS,
  type DocumentView,
} from '#knowledge';
import type { Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import {
  AppDocumentSources,
  documentUnreachable,
  DocumentUnreadable,
  type DocumentSource,
} from './app-document-sources.js';
import { SyncedDocumentPlaces, type SyncedPlace } from './synced-document-places.js';

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
    private readonly sources: AppDocumentSources,
    private readonly places: SyncedDocumentPlaces,
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /** Imports one document of the App into the place's Knowledge; the App must reach that place. */
  async import(
    appId: string,
    request: { readonly place: SyncedPlace; readonly uri: string; readonly name?: string | undefined },
    context: CommandContext,
    principal: Principal,
  ): Promise<string> {
    const source = await this.sources.open(appId);
    let read: Awaited<ReturnType<DocumentSource['read']>>;
    let through: string;
    try {
      through = await this.places.importThrough(appId, source.app.enablement, request.place);
      read = await source.read(request.uri);
    } catch (error) {
      if (error instanceof DocumentUnreadable) throw documentUnreachable(error.reason);
      throw error;
    } finally {
      await source.close();
    }
    if (read === 'gone') throw new NotFoundError('Resource', request.uri);
    const declaredName = source.app.meta?.documents?.find((document) => document.uri === request.uri)?.name;
    const added = await this.commands.execute(
      new AddDocument(
        through,
        async () => ({
          name:
            request.name ?? declaredName ?? (request.uri.split('/').filter(Boolean).at(-1) || request.uri),
          scope: request.place.scope,
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

  /** Reads every document synced from the App again, whatever its place. */
  async sync(appId: string, context: CommandContext, principal: Principal): Promise<SyncOutcome[]> {
    const synced = await this.readStore
      .reader<DocumentView>(KNOWLEDGE_DOCUMENTS)
      .find({ provider: `app:${appId}` }, { limit: MAX_SYNCED });
    const outcomes: SyncOutcome[] = [];
    const source = await this.sources.open(appId);
    try {
      for (const document of synced.data)
        outcomes.push(await this.syncOne(appId, source, document, context, principal));
    } finally {
      await source.close();
    }
    return outcomes;
  }

  private async syncOne(
    appId: string,
    source: DocumentSource,
    document: DocumentView,
    context: CommandContext,
    principal: Principal,
  ): Promise<SyncOutcome> {
    const uri = document.sourceUri ?? '';
    const agentId = await this.places.syncThrough(appId, document);
    if (agentId === null)
      return { documentId: document.id, uri, outcome: 'failed', error: 'no Agent reads it any more' };
    try {
      const read = await source.read(uri);
      if (read === 'gone') {
        await this.commands.execute(
          new DeleteDocument(document.id, 'requested', agentId, context, principal),
        );
        return { documentId: document.id, uri, outcome: 'removed' };
      }
      const changed = await this.commands.execute(
        new ChangeDocument(agentId, document.id, { text: read.text }, context, principal),
      );
      await changed.stored;
      // The decider records a new version only for other text, and the write's position says whether it did (the
      // documents' read model may not show the new version yet).
      return { documentId: document.id, uri, outcome: changed.position > 0 ? 'updated' : 'unchanged' };
    } catch (error) {
      if (!(error instanceof DocumentUnreadable)) throw error;
      return { documentId: document.id, uri, outcome: 'failed', error: error.reason };
    }
  }
}
