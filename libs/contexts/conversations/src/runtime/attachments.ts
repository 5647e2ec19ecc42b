// A turn's attachments as the model reads them: a Knowledge document the Agent can reach (its extracted text, by
// the existing query and its access rules), or a file sent inline, decoded and parsed by the existing parsers in
// their bounded child processes (never in this process), or the attachments of an earlier question of the same
// conversation (an edited question keeps its files). Anything unreadable is a 400 naming the attachment.
import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Caller } from '#access';
import {
  DOCUMENTS_READ_MODEL,
  GetDocumentText,
  IngestionError,
  prepareDocument,
  type DocumentView,
} from '#knowledge';
import { PlatformError, ValidationError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import type { PlainAttachment, PlainMessage } from '../conversation-records.js';

export type AttachmentInput =
  | { readonly documentId: string }
  | { readonly fromMessageId: string }
  | { readonly name: string; readonly mimeType: string; readonly dataBase64: string };

/** Bytes of one inline attachment, decoded. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** Characters of text an attachment may bring into the prompt. */
const MAX_ATTACHMENT_TEXT = 200_000;

/**
 * The first MAX_ATTACHMENT_TEXT characters of an extracted text, as a string of their own: a slice of a string is a
 * view that keeps the whole string alive (V8's sliced strings), so the 200,000 characters an incognito conversation
 * keeps would hold the 5 MB text they were cut from.
 */
const bounded = (text: string): string =>
  text.length <= MAX_ATTACHMENT_TEXT ? text : structuredClone(text.slice(0, MAX_ATTACHMENT_TEXT));

@Injectable()
export class TurnAttachments {
  constructor(
    private readonly queries: QueryBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async resolve(
    agentId: string,
    inputs: readonly AttachmentInput[],
    caller: Caller,
    /** A message of the turn's conversation (null: not one of it). */
    earlier: (messageId: string) => Promise<PlainMessage | null>,
  ): Promise<PlainAttachment[]> {
    const resolved: PlainAttachment[] = [];
    for (const [index, input] of inputs.entries()) {
      const param = `message.attachments.${index}`;
      if ('fromMessageId' in input) resolved.push(...(await this.kept(input.fromMessageId, earlier, param)));
      else
        resolved.push(
          'documentId' in input
            ? await this.document(agentId, input.documentId, caller, param)
            : await this.inline(input, param),
        );
    }
    return resolved;
  }

  /** An earlier question's attachments as it kept them (their text read then: nothing is parsed again). */
  private async kept(
    messageId: string,
    earlier: (messageId: string) => Promise<PlainMessage | null>,
    param: string,
  ): Promise<readonly PlainAttachment[]> {
    const message = await earlier(messageId);
    if (!message || message.role !== 'user')
      throw new ValidationError(
        'invalid_attachment',
        `${param}: '${messageId}' is not a question of this conversation`,
        `${param}.fromMessageId`,
      );
    return message.attachments;
  }

  private async document(
    agentId: string,
    documentId: string,
    caller: Caller,
    param: string,
  ): Promise<PlainAttachment> {
    let text: string;
    try {
      text = await this.queries.execute(new GetDocumentText(agentId, documentId, caller));
    } catch (error) {
      if (
        error instanceof PlatformError &&
        (error.kind === 'not_found' || error.kind === 'conflict' || error.kind === 'forbidden')
      )
        throw new ValidationError('invalid_attachment', `${param}: ${error.message}`, `${param}.documentId`);
      throw error;
    }
    const document = await this.readStore.reader<DocumentView>(DOCUMENTS_READ_MODEL.name).get(documentId);
    return {
      documentId,
      name: document?.name ?? documentId,
      mimeType: document?.mimeType ?? 'text/plain',
      sizeBytes: Buffer.byteLength(text),
      text: bounded(text),
    };
  }

  private async inline(
    input: { name: string; mimeType: string; dataBase64: string },
    param: string,
  ): Promise<PlainAttachment> {
    const bytes = Buffer.from(input.dataBase64, 'base64');
    if (bytes.length === 0)
      throw new ValidationError(
        'invalid_attachment',
        `${param}: dataBase64 decodes to no bytes`,
        `${param}.dataBase64`,
      );
    if (bytes.length > MAX_ATTACHMENT_BYTES)
      throw new ValidationError(
        'attachment_too_large',
        `${param} is ${bytes.length} bytes; an attachment may have at most ${MAX_ATTACHMENT_BYTES}`,
        `${param}.dataBase64`,
      );
    try {
      const prepared = await prepareDocument(bytes, input.name);
      return {
        documentId: null,
        name: input.name,
        mimeType: prepared.mimeType,
        sizeBytes: bytes.length,
        text: bounded(prepared.text),
      };
    } catch (error) {
      if (error instanceof IngestionError)
        throw new ValidationError(
          'invalid_attachment',
          `${param} could not be read (${error.reason}): ${error.message}`,
          `${param}.dataBase64`,
        );
      throw error;
    }
  }
}
