// Where a synced document's text is read: an MCP App's resource (`resources/read` over one connection for a whole
// sync), or a text a URL (or container) App's `/meta` declares (`GET <App URL><path>`, url-app-client.ts). Either
// answers the text, `gone` (the server no longer has it, a URL App no longer declares it or answers 404/410), or throws
// DocumentUnreadable with a reason safe to show.
import { Injectable } from '@nestjs/common';
import { AggregateRepository } from '#eventsourcing';
import { NotFoundError, PlatformError } from '#kernel';
import { appDecider } from '../../app.decider.js';
import { appStreamId, type AppRecord } from '../../app.events.js';
import { UrlAppClient } from '../../url/url-app-client.js';
import { McpUnreachable } from '../mcp-client.js';
import { McpServers } from '../mcp-servers.js';

export class DocumentUnreadable extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'DocumentUnreadable';
  }
}

export type DocumentRead = { readonly text: string; readonly mimeType?: string | null } | 'gone';

export interface DocumentSource {
  readonly app: AppRecord;
  read(uri: string): Promise<DocumentRead>;
  close(): Promise<void>;
}

/** 422 `app_unreachable`: the App, or the document it should give, could not be read. */
export const documentUnreachable = (reason: string): PlatformError =>
  new PlatformError(
    'unprocessable',
    'app_unreachable',
    `The App's document could not be read: ${reason}`,
    'uri',
  );

@Injectable()
export class AppDocumentSources {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly servers: McpServers,
    private readonly urlApps: UrlAppClient,
  ) {}

  /** The live App's documents; 404 for no such App, 422 `app_unreachable` when its MCP server cannot be opened. */
  async open(appId: string): Promise<DocumentSource> {
    const { state } = await this.aggregates.load(appStreamId(appId), appDecider);
    if (state.status !== 'active') throw new NotFoundError('App', appId);
    const app: AppRecord = state;
    const source = app.source;
    if (source.type === 'mcp') {
      const connection = await this.servers.connect(appId, source);
      return {
        app,
        read: async (uri) => {
          try {
            return await connection.readResource(uri);
          } catch (error) {
            if (error instanceof McpUnreachable) throw new DocumentUnreadable(error.reason);
            throw error;
          }
        },
        close: () => connection.close(),
      };
    }
    const target = { id: appId, upstreamUrl: app.upstreamUrl, lastError: app.lastError };
    return {
      app,
      read: async (uri) => {
        const declared = app.meta?.documents?.find((document) => document.uri === uri);
        if (!declared) return 'gone';
        const read = await this.urlApps.readDocument(target, declared);
        if (read !== 'gone' && 'error' in read) throw new DocumentUnreadable(read.error);
        return read;
      },
      close: async () => undefined,
    };
  }
}
