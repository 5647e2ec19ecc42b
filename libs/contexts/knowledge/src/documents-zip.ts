// Several documents' original files as one zip archive (bounded in size); names that repeat get ` (2)`, ` (3)`…
import { ValidationError } from '#kernel';

export const MAX_ZIP_BYTES = 200 * 1024 * 1024;

/** A file name not yet in the archive: `a.md`, `a (2).md`, … (and never a path). */
function uniqueName(name: string, taken: Record<string, unknown>): string {
  const base = name.replace(/[\\/]/g, '_');
  const dot = base.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [base.slice(0, dot), base.slice(dot)] : [base, ''];
  let candidate = base;
  for (let n = 2; candidate in taken; n++) candidate = `${stem} (${n})${extension}`;
  return candidate;
}

/** Collects named files up to MAX_ZIP_BYTES (400 `download_too_large` beyond), then zips them. */
export class DocumentsZip {
  private readonly files: Record<string, Uint8Array> = {};
  private total = 0;

  add(name: string, bytes: Buffer): void {
    this.total += bytes.length;
    if (this.total > MAX_ZIP_BYTES)
      throw new ValidationError(
        'download_too_large',
        `the selection is larger than ${MAX_ZIP_BYTES} bytes`,
        'documentIds',
      );
    this.files[uniqueName(name, this.files)] = bytes;
  }

  async archive(): Promise<Buffer> {
    // fflate is loaded at the first download, not at start-up.
    const { zip } = await import('fflate');
    const archive = await new Promise<Uint8Array>((resolve, reject) =>
      zip(this.files, { level: 6 }, (error, data) => (error ? reject(error) : resolve(data))),
    );
    return Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  }
}
