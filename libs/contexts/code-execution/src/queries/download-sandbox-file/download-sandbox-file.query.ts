// A file the conversation's code produced (kept in the blob store when the run recorded it): the latest one at that
// path. Only the conversation's user reaches it. The bytes are sealed with the run's key (since the second shape of
// CodeRan): an erased run's file is gone (404).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { AgentResolver } from '#agents';
import { ConversationDirectory } from '#conversations';
import { Requires, type Caller } from '#access';
import { ContentCipher } from '#key-store';
import { NotFoundError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { CONVERSATION_SANDBOXES, type SandboxView } from '../../sandbox.read-model.js';
import { openCallFiles } from '../sandbox-files.js';

// The conversation is then the caller's own or 404 (the ConversationDirectory finds only the caller's).
@Requires(AgentResolver, (agents, { agentId }: DownloadSandboxFile) => agents.use(agentId))
export class DownloadSandboxFile extends Query<{ name: string; bytes: Buffer }> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly path: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(DownloadSandboxFile)
export class DownloadSandboxFileHandler implements IQueryHandler<DownloadSandboxFile> {
  constructor(
    private readonly directory: ConversationDirectory,
    private readonly cipher: ContentCipher,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ agentId, conversationId, path, caller }: DownloadSandboxFile) {
    const owned = await this.directory.owned(agentId, conversationId, caller);
    const view = await this.readStore.reader<SandboxView>(CONVERSATION_SANDBOXES).get(owned.record.id);
    const calls = view?.calls ?? [];
    const files = (await openCallFiles(this.cipher, calls)).flatMap((list) => list ?? []);
    const file = files.findLast((candidate) => candidate.path === path);
    const stored = file ? await this.blobs.get(file.blobId) : null;
    const bytes = stored && this.cipher.isSealedBytes(stored) ? await this.cipher.openBytes(stored) : stored;
    if (!file || !bytes) throw new NotFoundError('Sandbox file', path);
    return { name: path.split('/').at(-1) ?? 'file', bytes };
  }
}
