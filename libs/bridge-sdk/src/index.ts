// @agent-platform/bridge-sdk: an App's typed door to the platform (`/api/v1/bridge`). The scope is bound once, at
// construction: `createBridge({ token, serverUrl, agentId })` works for that Agent, without `agentId` it is standalone
// and the Agent namespaces (`knowledge`, `conversation`, `agent`, `llm.getAvailableModels`) throw a
// StandaloneScopeError before any request. No call takes an agentId.
import { StandaloneScopeError, Transport } from './transport.js';
import type {
  AvailableModels,
  BridgeAgent,
  BridgeOptions,
  BridgeScope,
  ConversationFilter,
  ConversationSummary,
  GenerateImageRequest,
  GenerateImageResult,
  GenerateObjectRequest,
  GenerateObjectResult,
  GenerateSpeechRequest,
  GenerateTextRequest,
  GenerateTextResult,
  Tag,
  TranscribeRequest,
} from './types.js';

export * from './types.js';
export { BridgeError, HEADERS_TIMEOUT_MS, StandaloneScopeError } from './transport.js';

export const SDK_VERSION = '1.2.0';

/** At most this many speakers in one speech request (spec, Limits). */
export const MAX_SPEAKERS = 2;

export interface Bridge {
  readonly scope: BridgeScope;
  readonly llm: {
    generateText(request: GenerateTextRequest): Promise<GenerateTextResult>;
    generateObject(request: GenerateObjectRequest): Promise<GenerateObjectResult>;
    generateImage(request: GenerateImageRequest): Promise<GenerateImageResult>;
    transcribe(request: TranscribeRequest): Promise<{ text: string }>;
    generateSpeech(request: GenerateSpeechRequest): Promise<{ base64: string; mimeType: string }>;
    getAvailableModels(): Promise<AvailableModels>;
  };
  readonly conversation: {
    findMany(filter?: ConversationFilter): Promise<ConversationSummary[]>;
  };
  readonly agent: {
    getAgent(): Promise<BridgeAgent>;
  };
  readonly knowledge: {
    listTags(): Promise<Tag[]>;
    createTag(tag: { name: string; color?: string }): Promise<Tag>;
    updateTag(tagId: string, change: { name?: string; color?: string }): Promise<Tag>;
    deleteTag(tagId: string): Promise<void>;
    attachTag(documentId: string, tagId: string): Promise<void>;
    removeTag(documentId: string, tagId: string): Promise<void>;
  };
}

export function createBridge(options: BridgeOptions): Bridge {
  if (typeof options?.token !== 'string' || options.token.length === 0)
    throw new TypeError('createBridge: token is required');
  if (typeof options.serverUrl !== 'string' || !URL.canParse(options.serverUrl))
    throw new TypeError('createBridge: serverUrl must be a URL');
  if (options.agentId !== undefined && (typeof options.agentId !== 'string' || options.agentId.length === 0))
    throw new TypeError('createBridge: agentId, when given, must be a non-empty string');
  const scope: BridgeScope =
    options.agentId === undefined ? { type: 'standalone' } : { type: 'agent', agentId: options.agentId };
  const transport = new Transport(options);
  /** The Agent's path, or a StandaloneScopeError (thrown, so nothing is sent). */
  const agentPath = (operation: string, rest = ''): string => {
    if (scope.type === 'standalone') throw new StandaloneScopeError(operation);
    return `agents/${encodeURIComponent(scope.agentId)}${rest}`;
  };
  /** Agent-or-instance calls: under the Agent, or on a standalone bridge the instance-wide default model. */
  const llmPath = (name: string) =>
    scope.type === 'agent' ? `agents/${encodeURIComponent(scope.agentId)}/llm/${name}` : `llm/${name}`;
  const id = (value: string) => encodeURIComponent(value);

  return {
    scope,
    llm: {
      generateText: (request) => transport.call('POST', llmPath('generateText'), request),
      generateObject: (request) => transport.call('POST', llmPath('generateObject'), request),
      generateImage: (request) => transport.call('POST', llmPath('generateImage'), request),
      transcribe: (request) => transport.call('POST', llmPath('transcribe'), request),
      generateSpeech: async (request) => {
        if (request.speakers && request.speakers.length > MAX_SPEAKERS)
          throw new RangeError(`generateSpeech: at most ${MAX_SPEAKERS} speakers`);
        return transport.call('POST', llmPath('speech'), request);
      },
      getAvailableModels: async () =>
        transport.call('GET', agentPath('llm.getAvailableModels', '/llm/models')),
    },
    conversation: {
      findMany: async (filter) =>
        (
          await transport.call<{ data: ConversationSummary[] }>(
            'POST',
            agentPath('conversation.findMany', '/conversations/find'),
            filter ?? {},
          )
        ).data,
    },
    agent: {
      getAgent: async () => transport.call('GET', agentPath('agent.getAgent')),
    },
    knowledge: {
      listTags: async () =>
        (await transport.call<{ data: Tag[] }>('GET', agentPath('knowledge.listTags', '/knowledge/tags')))
          .data,
      createTag: async (tag) =>
        transport.call('POST', agentPath('knowledge.createTag', '/knowledge/tags'), tag),
      updateTag: async (tagId, change) =>
        transport.call('PUT', agentPath('knowledge.updateTag', `/knowledge/tags/${id(tagId)}`), change),
      deleteTag: async (tagId) => {
        await transport.call('DELETE', agentPath('knowledge.deleteTag', `/knowledge/tags/${id(tagId)}`));
      },
      attachTag: async (documentId, tagId) => {
        await transport.call(
          'POST',
          agentPath('knowledge.attachTag', `/knowledge/documents/${id(documentId)}/tags/${id(tagId)}`),
        );
      },
      removeTag: async (documentId, tagId) => {
        await transport.call(
          'DELETE',
          agentPath('knowledge.removeTag', `/knowledge/documents/${id(documentId)}/tags/${id(tagId)}`),
        );
      },
    },
  };
}
