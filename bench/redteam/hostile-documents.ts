// Hostile documents against a running api: a PDF whose one FlateDecode content stream inflates to 1 GiB, a zip bomb
// disguised as .docx (1 GiB of document.xml), 2,000,000 × "x", 2 MiB of invalid UTF-8. Each must end Failed or
// Ready while /health keeps answering within 1 s; then the api is killed (-9) and restarted, and none may be resumed.
import { deflateSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import { zipSync } from 'fflate';
import {
  call,
  HealthProber,
  log,
  report,
  rssMb,
  spaceAndAgent,
  startApi,
  type RunningApi,
} from './harness.js';

const GiB = 1024 ** 3;

/** One page whose content stream is `inflated` bytes of text operators, deflated (about 1 MiB for 1 GiB). */
export function flateBombPdf(inflated = GiB): Buffer {
  const page = Buffer.alloc(inflated, 0x20);
  Buffer.from('BT /F1 12 Tf 72 712 Td (bomb) Tj ET\n').copy(page);
  const stream = deflateSync(page, { level: 9 });
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    null,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((body, i) => {
    offsets.push(length);
    const chunk =
      body === null
        ? Buffer.concat([
            Buffer.from(`${i + 1} 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`),
            stream,
            Buffer.from('\nendstream\nendobj\n'),
          ])
        : Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`);
    parts.push(chunk);
    length += chunk.length;
  });
  const xref =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(xref));
  return Buffer.concat(parts);
}

/** A .docx-shaped zip whose word/document.xml unpacks to `inflated` bytes. */
export function zipBombDocx(inflated = GiB): Buffer {
  const head =
    '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>';
  const body = Buffer.alloc(inflated, 0x61);
  Buffer.from(head).copy(body);
  const types =
    '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
  const rels =
    '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';
  return Buffer.from(
    zipSync(
      {
        '[Content_Types].xml': new TextEncoder().encode(types),
        '_rels/.rels': new TextEncoder().encode(rels),
        'word/document.xml': [new Uint8Array(body.buffer, body.byteOffset, body.length), { level: 9 }],
      },
      { level: 6 },
    ),
  );
}

/** 2 MiB of bytes that are not UTF-8 (lone continuation bytes and invalid lead bytes). */
export function invalidUtf8(size = 2 * 1024 * 1024): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = i % 3 === 0 ? 0xff : 0x80 + (i % 64);
  return bytes;
}

interface Upload {
  readonly label: string;
  readonly filename: string;
  readonly bytes: Buffer;
}

async function upload(base: string, agentId: string, item: Upload): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(item.bytes)]), item.filename);
  const reply = await call(base, 'POST', `/api/v1/core/knowledge/${agentId}/documents`, { body: form });
  if (reply.status !== 201)
    throw new Error(`${item.label}: upload answered ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.id as string;
}

async function statusOf(base: string, agentId: string, documentId: string) {
  const reply = await call(base, 'GET', `/api/v1/core/knowledge/${agentId}/documents/${documentId}`);
  return {
    status: reply.body?.status as string | undefined,
    reason: reply.body?.error?.reason as string | undefined,
  };
}

export async function hostileDocuments(dataDir: string): Promise<void> {
  log('building the hostile documents (1 GiB inflations take a few seconds)');
  const uploads: Upload[] = [
    { label: 'FlateDecode PDF (1 GiB inflated)', filename: 'report.pdf', bytes: flateBombPdf() },
    { label: 'zip bomb .docx (1 GiB inflated)', filename: 'letter.docx', bytes: zipBombDocx() },
    { label: '2,000,000 × "x"', filename: 'xs.txt', bytes: Buffer.alloc(2_000_000, 'x') },
    { label: '2 MiB invalid UTF-8', filename: 'garbage.txt', bytes: invalidUtf8() },
  ];
  for (const item of uploads) log(`${item.label}: ${(item.bytes.length / 1024).toFixed(0)} KiB`);
  let api: RunningApi = await startApi(dataDir);
  const prober = new HealthProber(() => api.base);
  const { agentId } = await spaceAndAgent(api.base, 'Hostile');
  const baselineRss = rssMb(api.api.child.pid!);
  let peakRss = baselineRss;
  const ids = new Map<string, string>();
  for (const item of uploads) ids.set(item.label, await upload(api.base, agentId, item));
  const started = performance.now();
  const outcomes = new Map<string, string>();
  while (outcomes.size < uploads.length && performance.now() - started < 15 * 60_000) {
    peakRss = Math.max(peakRss, rssMb(api.api.child.pid!));
    for (const [label, id] of ids) {
      if (outcomes.has(label)) continue;
      const { status, reason } = await statusOf(api.base, agentId, id);
      if (status === 'Ready' || status === 'Failed')
        outcomes.set(
          label,
          `${status}${reason ? ` (${reason})` : ''} after ${((performance.now() - started) / 1000).toFixed(1)} s`,
        );
    }
    await sleep(250);
  }
  const during = prober.snapshot();
  const alive = api.api.child.exitCode === null && api.api.child.signalCode === null;
  log('kill -9 and restart: nothing may be resumed');
  await prober.pauseCounting(async () => {
    await api.kill();
    api = await startApi(dataDir);
  });
  const afterRestartRss = rssMb(api.api.child.pid!);
  await sleep(20_000);
  const after: Record<string, string> = {};
  for (const [label, id] of ids) {
    const { status, reason } = await statusOf(api.base, agentId, id);
    after[label] = `${status}${reason ? ` (${reason})` : ''}`;
  }
  const health = await prober.stop();
  report('hostile documents', {
    outcomes: Object.fromEntries(outcomes),
    'unfinished after 15 min': uploads.filter((item) => !outcomes.has(item.label)).map((item) => item.label),
    'api alive throughout': alive,
    'api RSS baseline / peak (MB, children included)': `${baselineRss} / ${peakRss}`,
    'health during processing (worst ms, probes over 1 s, failed probes)': `${during.worstMs} / ${during.overOneSecond} / ${during.failures} of ${during.probes}`,
    'after kill -9 and restart (20 s later)': after,
    'api RSS after restart (MB)': afterRestartRss,
    'health overall (worst ms, over 1 s, failed)': `${health.worstMs} / ${health.overOneSecond} / ${health.failures} of ${health.probes}`,
  });
  await api.stop();
}
