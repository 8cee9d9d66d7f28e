import type { FormField } from '@shared/api/forms';

/** Tasks per request (SPEC §8: at most 100 per batch request). */
export const CHUNK_SIZE = 100;
/** After a whole batch succeeded, the same table cannot be sent again for this long (SPEC §8). */
export const RESUBMIT_LOCK_MS = 10 * 60 * 1000;

export interface BatchTask {
  title: string;
  description?: string;
  fields: Record<string, unknown>;
}

export interface PastedTable {
  tasks: BatchTask[];
  /** The table line (1-based, the header is line 1) each task came from. */
  lines: number[];
  /** Header cells that name neither the title, the description nor a field of the form. */
  ignored: string[];
  /** 1-based line numbers of rows without a title (skipped). */
  untitled: number[];
}

/**
 * Splits text copied from a spreadsheet into rows of cells: tab-separated (or `;` when the first
 * line has no tab), with spreadsheet quoting ("a ""b""", line breaks inside quotes).
 */
export function splitTable(text: string): string[][] {
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  const separator = firstLine.includes('\t') ? '\t' : firstLine.includes(';') ? ';' : '\t';
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"' && cell === '') quoted = true;
    else if (char === separator) {
      row.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += char;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows.filter((cells) => cells.some((c) => c.trim() !== ''));
}

const TITLE_HEADERS = ['title', 'название', 'заголовок', 'задача', 'task'];
const DESCRIPTION_HEADERS = ['description', 'описание'];

/**
 * Reads a pasted table whose first row names the columns: the title column (`Title`/`Название`),
 * optionally the description, and form fields by name (case-insensitive). Multiple-value fields
 * take values separated by `;` or `,`. The server normalises and validates the values.
 */
export function readPastedTable(text: string, fields: readonly FormField[]): PastedTable {
  const [header = [], ...rows] = splitTable(text);
  const names = header.map((cell) => cell.trim().toLocaleLowerCase());
  let titleAt = names.findIndex((name) => TITLE_HEADERS.includes(name));
  const descriptionAt = names.findIndex((name) => DESCRIPTION_HEADERS.includes(name));
  const fieldAt = new Map<number, FormField>();
  names.forEach((name, index) => {
    const field = fields.find((f) => f.name.trim().toLocaleLowerCase() === name);
    if (field && index !== titleAt && index !== descriptionAt) fieldAt.set(index, field);
  });
  // Without a title header the first column not bound to a field is the title.
  if (titleAt < 0) titleAt = names.findIndex((_, index) => index !== descriptionAt && !fieldAt.has(index));
  const ignored = header.filter((_, index) => index !== titleAt && index !== descriptionAt && !fieldAt.has(index));
  const tasks: BatchTask[] = [];
  const lines: number[] = [];
  const untitled: number[] = [];
  rows.forEach((cells, index) => {
    const title = (cells[titleAt] ?? '').trim();
    if (!title) {
      untitled.push(index + 2);
      return;
    }
    const values: Record<string, unknown> = {};
    for (const [at, field] of fieldAt) {
      const raw = (cells[at] ?? '').trim();
      if (raw === '') continue;
      values[field.id] = fieldValue(field, raw);
    }
    const description = descriptionAt >= 0 ? (cells[descriptionAt] ?? '').trim() : '';
    tasks.push({ title, ...(description ? { description } : {}), fields: values });
    lines.push(index + 2);
  });
  return { tasks, lines, ignored: ignored.map((cell) => cell.trim()).filter(Boolean), untitled };
}

function fieldValue(field: FormField, raw: string): unknown {
  if (field.type === 'checkbox') return /^(1|true|yes|да|x|✓|✔)$/i.test(raw);
  if (field.allow_multiple) {
    return raw
      .split(/[;,]/)
      .map((part) => part.trim())
      .filter(Boolean);
  }
  return raw;
}

export function chunk<T>(items: readonly T[], size = CHUNK_SIZE): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/** The Idempotency-Key of one chunk: the request id and the chunk number (SPEC §8). */
export function chunkKey(requestId: string, index: number): string {
  return `${requestId}:${index + 1}`;
}

export interface RowProblem {
  /** The table line of the task. */
  line: number;
  /** The field's name, when the problem is in a field. */
  field?: string;
  detail: string;
}

/**
 * The server's problems with one chunk (pointers such as `#/tasks/20/fields/<id>`), placed on the
 * lines of the pasted table and named by field.
 */
export function rowProblems(
  errors: readonly { pointer: string; detail: string }[],
  chunkIndex: number,
  lines: readonly number[],
  fields: readonly Pick<FormField, 'id' | 'name'>[],
): RowProblem[] {
  return errors.map((error) => {
    const [, row, part, fieldId] = /^#?\/tasks\/(\d+)(?:\/(\w+)(?:\/([^/]+))?)?/.exec(error.pointer) ?? [];
    const task = chunkIndex * CHUNK_SIZE + Number(row ?? 0);
    const field =
      part === 'fields' ? (fields.find((f) => f.id === fieldId)?.name ?? fieldId) : part === 'title' ? 'Title' : part;
    return { line: lines[task] ?? task + 2, ...(field ? { field } : {}), detail: error.detail };
  });
}

export type ChunkState = 'waiting' | 'sending' | 'done' | 'failed';

/**
 * Sends the chunks in order, skipping those already done (a retry after an error resends only the
 * rest, under the same keys, so nothing is created twice). Stops at the first failure.
 */
export async function sendChunks(
  states: ChunkState[],
  send: (index: number) => Promise<void>,
  onState: (index: number, state: ChunkState, error?: unknown) => void,
): Promise<boolean> {
  for (let index = 0; index < states.length; index++) {
    if (states[index] === 'done') continue;
    onState(index, 'sending');
    try {
      await send(index);
      onState(index, 'done');
    } catch (error) {
      onState(index, 'failed', error);
      return false;
    }
  }
  return true;
}

/** A short fingerprint of a batch (form + table text), to recognise a re-submission. */
export function batchFingerprint(formId: string, text: string): string {
  let hash = 0x811c9dc5;
  const input = `${formId}\n${text.trim()}`;
  for (let i = 0; i < input.length; i++) {
    hash ^= input.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${hash.toString(16)}-${input.length}`;
}

/** Where locks are kept (localStorage in the app). */
type LockStore = Pick<Storage, 'getItem' | 'setItem'>;

/** Until when (ms since epoch) the batch is locked against re-submission, or undefined. */
export function lockedUntil(store: LockStore, fingerprint: string, now = Date.now()): number | undefined {
  const until = Number(store.getItem(`orbita.batch.${fingerprint}`));
  return Number.isFinite(until) && until > now ? until : undefined;
}

/** Arms the re-submit lock; called only once every chunk of the batch succeeded. */
export function armLock(store: LockStore, fingerprint: string, now = Date.now()): number {
  const until = now + RESUBMIT_LOCK_MS;
  store.setItem(`orbita.batch.${fingerprint}`, String(until));
  return until;
}
