// GET /llm/{agentId}/conversation/{conversationId}/sandbox/files?path=… (our design): a file the code produced.
import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiRoute, ZodQuery } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { DownloadSandboxFile } from './download-sandbox-file.query.js';

const FileQuery = z.object({
  path: z.string().min(1).max(1024).describe('The path under /work the run reported'),
});

@Controller('api/v1/core/llm/:agentId/conversation/:conversationId/sandbox')
export class DownloadSandboxFileController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Conversations',
    summary: "A file the conversation's code produced (extension)",
    query: FileQuery,
    response: { status: 200, description: 'The bytes (the latest file at that path)' },
    errors: [400, 403, { status: 404, description: '`conversation_not_found` or `sandbox_file_not_found`' }],
  })
  @Get('files')
  async download(
    @Param('agentId') agentId: string,
    @Param('conversationId') conversationId: string,
    @Query(new ZodQuery(FileQuery)) query: z.output<typeof FileQuery>,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const file = await this.queries.execute(
      new DownloadSandboxFile(agentId, conversationId, query.path, caller),
    );
    void reply
      .header('content-type', 'application/octet-stream')
      .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`);
    return file.bytes;
  }
}
