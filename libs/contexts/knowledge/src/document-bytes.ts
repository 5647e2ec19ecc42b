// A document's bytes in the blob store: the content its events refer to by address (a content hash).
import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import type { DocumentContent } from './document.events.js';

/** The type a text document declares from its name: Markdown or plain text. */
export const declaredTextType = (name: string): string =>
  /\.(md|markdown)$/i.test(name) ? 'text/markdown' : 'text/plain';

@Injectable()
export class DocumentBytes {
  constructor(@Inject(BLOB_STORE) private readonly blobs: BlobStore) {}

  async store(bytes: Buffer, declaredType: string | null): Promise<DocumentContent> {
    const blob = await this.blobs.put(bytes, declaredType ? { contentType: declaredType } : {});
    return { blobId: blob.id, contentHash: blob.id, sizeBytes: blob.sizeBytes, declaredType };
  }

  /**
   * Puts the bytes back if a purge of another document with the same content removed them between `store` and the
   * event (the purge counts a content's users only once the documents list has caught up with the log).
   */
  async keepStored(bytes: Buffer, content: DocumentContent): Promise<void> {
    if (!(await this.blobs.has(content.blobId))) await this.store(bytes, content.declaredType);
  }
}
