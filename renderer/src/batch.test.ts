import type { FormField } from '@shared/api/forms';
import { describe, expect, it } from 'vitest';
import {
  armLock,
  batchFingerprint,
  type ChunkState,
  chunk,
  chunkKey,
  lockedUntil,
  readPastedTable,
  rowProblems,
  sendChunks,
  splitTable,
} from './batch';

const field = (id: string, name: string, type: FormField['type'], allow_multiple = false) =>
  ({ id, name, type, allow_multiple, required: false }) as FormField;

describe('a table pasted from a spreadsheet', () => {
  it('splits tab-separated rows with spreadsheet quoting and skips blank lines', () => {
    expect(splitTable('a\tb\r\n"x ""y"""\t"two\nlines"\n\n\tlast\n')).toEqual([
      ['a', 'b'],
      ['x "y"', 'two\nlines'],
      ['', 'last'],
    ]);
    expect(splitTable('a;b\n1;2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('maps headers to the title, description and form fields by name, reporting what it ignored', () => {
    const fields = [
      field('f1', 'Amount', 'number'),
      field('f2', 'Tags', 'select', true),
      field('f3', 'Done', 'checkbox'),
    ];
    const read = readPastedTable(
      'Название\tamount\tTAGS\tDone\tComment\tОписание\nFirst\t1 000,5\ta; b\tда\tx\tdesc\n\t5\t\t\t\t\nSecond\t\t\tno\t\t',
      fields,
    );
    expect(read.tasks).toEqual([
      { title: 'First', description: 'desc', fields: { f1: '1 000,5', f2: ['a', 'b'], f3: true } },
      { title: 'Second', fields: { f3: false } },
    ]);
    expect(read.lines).toEqual([2, 4]);
    expect(read.ignored).toEqual(['Comment']);
    expect(read.untitled).toEqual([3]);
  });

  it('takes the first free column as the title when no header names it', () => {
    const read = readPastedTable('Amount\tName\n5\tPump', [field('f1', 'Amount', 'number')]);
    expect(read.tasks).toEqual([{ title: 'Pump', fields: { f1: '5' } }]);
  });
});

describe('sending a batch in chunks', () => {
  it('cuts 250 tasks into chunks of 100, 100 and 50 with keys made of the request id and chunk number', () => {
    const chunks = chunk(Array.from({ length: 250 }, (_, i) => i));
    expect(chunks.map((c) => c.length)).toEqual([100, 100, 50]);
    expect(chunkKey('req-1', 0)).toBe('req-1:1');
    expect(chunkKey('req-1', 2)).toBe('req-1:3');
  });

  it('stops at the first failure and, retried, sends only what is not done', async () => {
    const states: ChunkState[] = ['waiting', 'waiting', 'waiting'];
    const sent: number[] = [];
    let fail = true;
    const send = async (index: number) => {
      sent.push(index);
      if (index === 1 && fail) {
        fail = false;
        throw new Error('network');
      }
    };
    const onState = (index: number, state: ChunkState) => {
      states[index] = state;
    };
    expect(await sendChunks(states, send, onState)).toBe(false);
    expect(states).toEqual(['done', 'failed', 'waiting']);
    expect(await sendChunks(states, send, onState)).toBe(true);
    expect(states).toEqual(['done', 'done', 'done']);
    expect(sent).toEqual([0, 1, 1, 2]);
  });

  it('places the server’s problems of a chunk on the lines of the pasted table, by field name', () => {
    const lines = Array.from({ length: 150 }, (_, i) => i + 3); // one untitled line skipped before
    const problems = rowProblems(
      [
        { pointer: '#/tasks/20/fields/f1', detail: 'Not a number' },
        { pointer: '#/tasks/3', detail: 'Bad row' },
      ],
      1,
      lines,
      [{ id: 'f1', name: 'Amount' }],
    );
    expect(problems).toEqual([
      { line: 123, field: 'Amount', detail: 'Not a number' },
      { line: 106, detail: 'Bad row' },
    ]);
  });

  it('locks the same table for ten minutes once armed, and only that table', () => {
    const store = new Map<string, string>();
    const storage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => store.set(k, v),
    };
    const print = batchFingerprint('form-1', 'Title\nA\n');
    expect(print).toBe(batchFingerprint('form-1', 'Title\nA'));
    expect(print).not.toBe(batchFingerprint('form-2', 'Title\nA'));
    expect(lockedUntil(storage, print, 1_000)).toBeUndefined();
    const until = armLock(storage, print, 1_000);
    expect(until).toBe(1_000 + 10 * 60 * 1000);
    expect(lockedUntil(storage, print, until - 1)).toBe(until);
    expect(lockedUntil(storage, print, until)).toBeUndefined();
    expect(lockedUntil(storage, batchFingerprint('form-1', 'Title\nB'), 2_000)).toBeUndefined();
  });
});
