// What the Knowledge pages share: documents and tags as the API answers them, the paths of one Agent's Knowledge, the
// API's refusals and a document's failure reason as labels of sentences in the page's language, and a tag chip's text colour.
import { ApiError, CORE, failure } from '../../api';
import { errorLabel } from '../../errors';
import type { Label } from '../../i18n';

export type Scope = 'agent' | 'space' | 'global';
export type Status = 'Pending' | 'Processing' | 'Ready' | 'Failed';

export interface KnowledgeDocument {
  readonly id: string;
  readonly name: string;
  readonly scope: Scope;
  readonly status: Status;
  /** This Agent's tags on it (tags are per Agent). */
  readonly tags: readonly string[];
  readonly sizeBytes: number;
  readonly error: { readonly reason: string; readonly message: string } | null;
}

export interface Tag {
  readonly id: string;
  readonly name: string;
  readonly color: string;
}

/** The API path of an Agent's Knowledge, below `/api/v1/core/`. */
export const knowledgePath = (agentId: string, rest: string): string =>
  `knowledge/${encodeURIComponent(agentId)}/${rest}`;

export const STATUS_LABELS: Readonly<Record<Status, Label>> = {
  Pending: 'knPending',
  Processing: 'knProcessing',
  Ready: 'knReady',
  Failed: 'knFailed',
};

export const isUnderWay = (status: Status): boolean => status === 'Pending' || status === 'Processing';

const REASONS: Readonly<Record<string, Label>> = {
  unsupported_type: 'knReasonUnsupported',
  too_large: 'knReasonTooLarge',
  parse_failed: 'knReasonParse',
  timeout: 'knReasonTimeout',
  parser_crashed: 'knReasonCrashed',
  empty: 'knReasonEmpty',
  content_missing: 'knReasonMissing',
};

/** Why a document is Failed, as a sentence (ingestion's reason codes; any other: the generic one). */
export const reasonLabel = (reason: string): Label => REASONS[reason] ?? 'knReasonOther';

const REFUSALS: Readonly<Record<string, Label>> = {
  empty_file: 'knEmptyFile',
  body_too_large: 'knFileTooLarge',
  request_too_large: 'knFileTooLarge',
  blob_too_large: 'knFileTooLarge',
  missing_file: 'knEmptyFile',
  invalid_upload: 'knInvalidUpload',
  invalid_multipart: 'knInvalidUpload',
  invalid_name: 'knInvalidName',
  invalid_color: 'knInvalidColour',
  document_not_found: 'errorNotFound',
  tag_not_found: 'errorNotFound',
  document_not_ready: 'knNotReady',
  summary_build_running: 'knBuildRunning',
  no_summary_build: 'knNoBuild',
  no_chat_model: 'knNoChatModel',
  space_change_denied: 'knWriteDenied',
};

/** The label of the API's refusal: Knowledge's own codes first, then the codes every page meets. */
export const knowledgeError = (error: unknown): Label => errorLabel(error, REFUSALS);

/** An error known by its code alone (a bulk result per document, a summary build's): no HTTP status decides. */
export const codeLabel = (error: { code: string; message: string }): Label =>
  knowledgeError(new ApiError(0, error.code, error.message));

/** Black or white, whichever reads better on `color` (WCAG relative luminance; both pass 4.5:1 at the split). */
export function inkOn(color: string): string {
  const hex = /^#?([0-9a-f]{6})$/i.exec(color)?.[1];
  if (!hex) return '#000000';
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
  return luminance > 0.179 ? '#000000' : '#ffffff';
}

/**
 * POSTs a file upload, telling `onProgress` the share of it sent so far (fetch cannot tell, XMLHttpRequest can); a
 * refusal rejects with the ApiError of the envelope, as `api()` does.
 */
export function uploadWithProgress(
  path: string,
  body: FormData,
  onProgress: (sent: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `${CORE}/${path}`);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () =>
      request.status < 300
        ? resolve()
        : void failure(new Response(request.responseText, { status: request.status })).then(reject);
    request.onerror = () => reject(new TypeError('network'));
    request.send(body);
  });
}

/** Saves what the API answers to a POST as a file (the zip of several documents): a link the browser follows once. */
export async function saveDownload(path: string, body: unknown, fileName: string): Promise<void> {
  const response = await fetch(`${CORE}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    credentials: 'same-origin',
    body: JSON.stringify(body),
  });
  if (!response.ok) throw await failure(response);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
