// CSV to one table block with csv-parse. Each data row becomes one self-describing line, `name: value; …`, named by
// the header row, so any row quoted alone (a citation, a chunk that starts mid-table) still says what its values
// are. The delimiter (comma, semicolon or tab) is the one under which the first records agree on their width.
import { lazyModule } from '#kernel';
import { IngestionError } from '../ingestion-error.js';
import { collapseWhitespace, type DocumentBuilder } from '../parsed-document.js';

// Required at the first text sniffed or CSV parsed, not at start-up.
const csvParse = lazyModule<typeof import('csv-parse/sync')>('csv-parse/sync');

export const CSV_DELIMITERS = [',', ';', '\t'] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];

const SAMPLE_CHARS = 65_536;
const SAMPLE_RECORDS = 50;

export interface CsvShape {
  readonly delimiter: CsvDelimiter;
  /** Records in the sample (at most 50). */
  readonly records: number;
  readonly columns: number;
}

/**
 * How the start of `text` reads as CSV: the delimiter under which every sampled record has the same number (two or
 * more) of fields, preferring the widest; null when no delimiter gives a consistent table.
 */
export const csvShape = (text: string): CsvShape | null => {
  let sample = text.slice(0, SAMPLE_CHARS);
  if (sample.length < text.length) sample = sample.slice(0, sample.lastIndexOf('\n') + 1);
  let best: CsvShape | null = null;
  for (const delimiter of CSV_DELIMITERS) {
    if (!sample.includes(delimiter)) continue;
    let records: string[][];
    try {
      records = csvParse().parse(sample, {
        delimiter,
        skip_empty_lines: true,
        to: SAMPLE_RECORDS,
        bom: true,
      });
    } catch {
      continue;
    }
    const columns = records[0]?.length ?? 0;
    if (columns < 2 || records.some((record) => record.length !== columns)) continue;
    if (!best || columns > best.columns) best = { delimiter, records: records.length, columns };
  }
  return best;
};

export const addCsvBlocks = (text: string, builder: DocumentBuilder, maxChars: number): void => {
  const delimiter = csvShape(text)?.delimiter ?? ',';
  const records: string[][] = csvParse().parse(text, {
    delimiter,
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    trim: true,
  });
  const [header, ...rows] = records;
  if (!header) return;
  const names = header.map((name, index) => collapseWhitespace(name) || `column ${index + 1}`);
  if (rows.length === 0) {
    builder.add('table', names.join(' | '), { headerRows: 1 });
    return;
  }
  const lines: string[] = [];
  let length = 0;
  for (const row of rows) {
    const line = row
      .map((value, index) => {
        const cell = collapseWhitespace(value);
        return cell.length > 0 ? `${names[index] ?? `column ${index + 1}`}: ${cell}` : '';
      })
      .filter((part) => part.length > 0)
      .join('; ');
    if (line.length === 0) continue;
    length += line.length + 1;
    // Stop building early: the builder would refuse the block anyway, after the memory was spent.
    if (length > maxChars)
      throw new IngestionError('too_large', `the extracted text exceeds ${maxChars} characters`);
    lines.push(line);
  }
  builder.add('table', lines.join('\n'));
};
