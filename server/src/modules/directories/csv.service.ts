import type { TreeNodeShape } from '@shared/api/directories';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import { type Actor, memberOf } from '../../platform/auth/actor';
import { inUnit } from '../../platform/db/unit-of-work';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import { buildTree } from './directories.presenter';
import * as repo from './directories.repo';
import { type DirectoriesDeps, requireDirectory, requireDirectoryTree } from './directories.service';
import { assertMayEditRows, assertMayReadDirectory, type Cell, normalizeCells, searchText } from './rows.service';

const ID_HEADER = 'id';
const PARENT_HEADER = 'parent_id';

/** CSV of the directory: `id`, `parent_id`, then one column per directory column (UTF-8 with BOM, for spreadsheets). */
export async function exportCsv(deps: DirectoriesDeps, auth: Actor, directoryId: string): Promise<string> {
  assertMayReadDirectory(auth, directoryId);
  const directory = await requireDirectory(deps.db, auth, directoryId);
  const rows = await repo.allRows(deps.db, auth.organizationId, directoryId);
  const ordered = buildTree(rows, 0, null);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const records: string[][] = [];
  // Parents before children, siblings in order: an import recreates the same tree.
  const walk = (nodes: TreeNodeShape[]) => {
    for (const node of nodes) {
      const row = byId.get(node.id) as repo.RowRecord;
      records.push([
        row.id,
        row.parent_id ?? '',
        ...directory.columns.map((_, i) =>
          row.cells[i] === null || row.cells[i] === undefined ? '' : String(row.cells[i]),
        ),
      ]);
      walk(node.children);
    }
  };
  walk(ordered);
  return `\ufeff${stringify([[ID_HEADER, PARENT_HEADER, ...directory.columns.map((c) => c.name)], ...records])}`;
}

/**
 * Imports CSV rows: a header names the columns (by name, any case; `id` and `parent_id` optional).
 * Every row is checked first; with any error nothing is written, and the errors are returned
 * (a dry run reports them without writing even when there are none).
 */
export async function importCsv(
  deps: DirectoriesDeps,
  auth: Actor,
  directoryId: string,
  input: { csv: string; mode: 'append' | 'replace'; dryRun: boolean },
) {
  assertMayEditRows(auth, directoryId);
  return inUnit(deps, async ({ tx }) => {
    const directory = await requireDirectoryTree(tx, auth, directoryId);
    const errors: { line: number; column: string | null; detail: string }[] = [];
    let records: string[][];
    try {
      records = parse(input.csv.replace(/^\ufeff/, ''), {
        relax_column_count: true,
        skip_empty_lines: true,
        bom: true,
      });
    } catch (error) {
      throw Problem.of('validation_failed', `The file is not valid CSV: ${(error as Error).message}`, {
        errors: [{ location: 'body', pointer: '#/csv', detail: (error as Error).message, code: 'invalid_csv' }],
      });
    }
    const [header, ...lines] = records;
    if (!header) throw Problem.of('validation_failed', 'The file is empty: it needs a header line naming the columns.');
    const columnAt = header.map((name) => name.trim().toLowerCase());
    const indexOf = (name: string) => columnAt.indexOf(name.toLowerCase());
    for (const [i, name] of header.entries()) {
      const known = [ID_HEADER, PARENT_HEADER, ...directory.columns.map((c) => c.name.toLowerCase())].includes(
        columnAt[i] as string,
      );
      if (!known) errors.push({ line: 1, column: name, detail: `Unknown column "${name}"` });
    }
    const idIndex = indexOf(ID_HEADER);
    const parentIndex = indexOf(PARENT_HEADER);
    const rows: {
      id: string;
      parentId: string | null;
      position: number;
      cells: Cell[];
      parentRowIds: string[];
      searchText: string;
    }[] = [];
    const fileIds = new Set<string>();
    for (const [n, record] of lines.entries()) {
      const line = n + 2;
      const raw = directory.columns.map((column) => {
        const at = indexOf(column.name);
        return at === -1 ? null : (record[at] ?? null);
      });
      const { cells, errors: cellErrors } = normalizeCells(directory.columns, raw, '#');
      for (const e of cellErrors)
        errors.push({
          line,
          column: directory.columns[Number(e.pointer.split('/')[1])]?.name ?? null,
          detail: e.detail,
        });
      const id = idIndex >= 0 && record[idIndex] ? (record[idIndex] as string).trim() : newId();
      if (!z.uuid().safeParse(id).success) errors.push({ line, column: ID_HEADER, detail: `"${id}" is not a UUID` });
      if (fileIds.has(id)) errors.push({ line, column: ID_HEADER, detail: `Row id ${id} appears twice` });
      fileIds.add(id);
      const parentId = parentIndex >= 0 && record[parentIndex] ? (record[parentIndex] as string).trim() : null;
      rows.push({ id, parentId, position: 0, cells, parentRowIds: [], searchText: searchText(cells) });
    }
    const existing = await repo.findRows(
      tx,
      auth.organizationId,
      [...fileIds].filter((id) => z.uuid().safeParse(id).success),
    );
    const live = input.mode === 'replace' ? [] : await repo.allRows(tx, auth.organizationId, directoryId);
    for (const row of existing) {
      if (input.mode === 'append' || row.directory_id !== directoryId) {
        errors.push({
          line: 2 + rows.findIndex((r) => r.id === row.id),
          column: ID_HEADER,
          detail: `A row with id ${row.id} already exists`,
        });
      }
    }
    const liveIds = new Set(live.map((r) => r.id));
    for (const [n, row] of rows.entries()) {
      if (row.parentId && !fileIds.has(row.parentId) && !liveIds.has(row.parentId)) {
        errors.push({
          line: n + 2,
          column: PARENT_HEADER,
          detail: `Parent ${row.parentId} is neither in the file nor in the directory`,
        });
      }
    }
    if (errors.length > 0 || input.dryRun) {
      if (errors.length > 0 && !input.dryRun) {
        throw Problem.of(
          'validation_failed',
          `Nothing was imported: ${errors.length} problem(s), first on line ${errors[0]?.line}. Fix the file and import again.`,
          {
            errors: errors.slice(0, 1000).map((e) => ({
              location: 'body' as const,
              pointer: `#/csv/line/${e.line}`,
              detail: `${e.column ? `${e.column}: ` : ''}${e.detail}`,
              code: 'invalid_row',
            })),
          },
        );
      }
      return { imported: errors.length > 0 ? 0 : rows.length, dryRun: true, errors };
    }
    if (input.mode === 'replace') {
      if (existing.length > 0) {
        // Re-imported ids replace their old (now deleted) rows: free the ids first.
        await repo.hardDeleteRows(
          tx,
          auth.organizationId,
          directoryId,
          existing.map((r) => r.id),
        );
      }
      await repo.deleteAllRows(tx, auth.organizationId, directoryId, memberOf(auth)?.userId ?? null);
    }
    // Positions: after existing siblings, in file order.
    const nextPosition = new Map<string, number>();
    for (const row of live) {
      const key = row.parent_id ?? '';
      nextPosition.set(key, Math.max(nextPosition.get(key) ?? 0, row.position + 1));
    }
    for (const row of rows) {
      const key = row.parentId ?? '';
      row.position = nextPosition.get(key) ?? 0;
      nextPosition.set(key, row.position + 1);
    }
    // Parents first, so the parent link holds at every insert.
    const pending = [...rows];
    const inserted = new Set(liveIds);
    while (pending.length > 0) {
      const ready = pending.filter((r) => !r.parentId || inserted.has(r.parentId));
      if (ready.length === 0) throw Problem.of('validation_failed', 'The parent links in the file form a cycle.');
      if ((await repo.insertRows(tx, auth.organizationId, directoryId, ready)) < ready.length) {
        throw Problem.of(
          'conflict',
          'Rows with ids of this file were created meanwhile: nothing was imported. Import again.',
        );
      }
      for (const r of ready) inserted.add(r.id);
      for (const r of ready) pending.splice(pending.indexOf(r), 1);
    }
    return { imported: rows.length, dryRun: false, errors: [] };
  });
}
