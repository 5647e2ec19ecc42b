// POST /knowledge/{agentId}/documents (spec): a text document as JSON `{ name, text, scope?, tagIds? }`, or a
// file as multipart/form-data (fields `name?`, `scope?`, `tagIds?` comma-separated, then the `file` part). The type is
// sniffed from the bytes later, never taken from the name or the declared type.
import { Controller, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute, parseOrThrow } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, principalOf, CurrentCaller, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { DOCUMENTS_READ_MODEL } from '../../knowledge.read-model.js';
import { GetDocument } from '../../queries/get-document/get-document.query.js';
import { Param, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { declaredTextType } from '../../document-bytes.js';
import { readUpload } from '../../http/multipart-upload.js';
import { AddTextDocumentBody, DocumentDto } from '../../knowledge.schemas.js';
import { AddDocument, type NewDocument } from './add-document.command.js';

const textDocument = (raw: unknown): NewDocument => {
  const body = parseOrThrow(AddTextDocumentBody, raw);
  return {
    name: body.name,
    scope: body.scope,
    tagIds: body.tagIds,
    bytes: Buffer.from(body.text, 'utf8'),
    declaredType: declaredTextType(body.name),
  };
};

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId')
export class AddDocumentController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary:
      'Add a document at the Agent, Space or Global level: JSON text, or a file as multipart/form-data',
    description:
      'JSON `{ name, text, scope?, tagIds? }`, or multipart/form-data with fields `name?`, `scope?`, `tagIds?` ' +
      '(comma-separated) and then the `file` part (at most 25 MiB; text, Markdown, HTML, PDF, DOCX, CSV or JSON, ' +
      'sniffed from the bytes). The document starts `Pending`; ingestion takes it to `Ready` or `Failed`.',
    body: AddTextDocumentBody,
    response: { status: 201, schema: DocumentDto, description: 'The document' },
    errors: [
      400,
      {
        status: 403,
        description:
          '`agent_access_denied`: the key is not granted the Agent; `space_change_denied`: a Space-level document ' +
          'needs the right to manage the Agent (to change its Space); `admin_required`: a Global one',
      },
      404,
    ],
    idempotent: true,
  })
  @Post('documents')
  async add(
    @Param('agentId') agentId: string,
    @Req() request: FastifyRequest,
    @CurrentCaller() caller: Caller,
  ) {
    const read = async (): Promise<NewDocument> =>
      request.isMultipart() ? readUpload(request) : textDocument(request.body);
    const { id, stored } = await this.writes.send(
      new AddDocument(agentId, read, commandContext(caller), principalOf(caller)),
      [DOCUMENTS_READ_MODEL],
    );
    const added = await this.queries.execute(new GetDocument(agentId, id, caller));
    await stored;
    return added;
  }
}
