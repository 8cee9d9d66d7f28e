import type { Directory } from '@shared/api/directories';
import type { LostEdit } from '@shared/sync';
import { Alert, App, Button, List } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { map } from 'rxjs';
import type { Replica } from '../data/replica';
import { useLive, useReplica } from '../data/replica-context';
import type { RowDocument, TaskDocument } from '../data/schemas';
import { cellText } from './directories/data';

/** A value of a lost edit as the user reads it. */
export function shownEditValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Offline edits of one record (a task, a directory row) that the server did not keep, each with
 * what it kept instead and why; the user dismisses them once read, or makes one again over what the
 * server kept ("Use my value", where `apply` can: a value changed on the server meanwhile, not a
 * change the server refused).
 */
export function LostEdits({
  recordId,
  label,
  show = (_edit, value) => shownEditValue(value),
  apply,
}: {
  recordId: string;
  /** What the edit changed, in the user's words (a field, a column). */
  label: (edit: LostEdit) => string;
  show?: (edit: LostEdit, value: unknown) => string;
  /** Makes the edit again (it is then sent as any change is); undefined where it cannot be. */
  apply?: (edit: LostEdit) => (() => Promise<void>) | undefined;
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const { replica } = useReplica();
  const [applying, setApplying] = useState<string>();
  const lost = useLive((r) => r.lost$.pipe(map((all) => all.filter((edit) => edit.id === recordId))), [recordId]);
  if (!lost?.length) return null;
  const makeAgain = async (edit: LostEdit, action: () => Promise<void>) => {
    setApplying(edit.path);
    try {
      await action();
      replica?.dismissLost(recordId, edit.path);
    } catch (caught) {
      message.error(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setApplying(undefined);
    }
  };
  return (
    <Alert
      type="warning"
      role="alert"
      data-testid="lost-edits"
      style={{ marginBottom: 16 }}
      title={t('conflicts.title')}
      description={
        <List
          size="small"
          dataSource={lost}
          renderItem={(edit) => {
            const action = edit.reason === 'changed_on_server' ? apply?.(edit) : undefined;
            return (
              <List.Item
                data-testid="lost-edit"
                actions={
                  action && [
                    <Button
                      key="mine"
                      size="small"
                      loading={applying === edit.path}
                      onClick={() => void makeAgain(edit, action)}
                    >
                      {t('conflicts.useMine')}
                    </Button>,
                  ]
                }
              >
                <span>
                  <strong>{label(edit)}</strong>: {t('conflicts.yours', { value: show(edit, edit.attempted) })};{' '}
                  {t('conflicts.kept', { value: show(edit, edit.kept) })} —{' '}
                  {edit.reason === 'refused' ? (edit.detail ?? t('conflicts.refused')) : t('conflicts.changedOnServer')}
                </span>
              </List.Item>
            );
          }}
        />
      }
      action={
        <Button size="small" onClick={() => replica?.dismissLost(recordId)}>
          {t('conflicts.dismiss')}
        </Button>
      }
    />
  );
}

/** Records listed by name in the notice; the rest are counted. */
const NOTICE_LIMIT = 5;

/** A record with lost edits as the notice names it: where it opens, and what it is called. */
interface LostRecord {
  id: string;
  to?: string;
  name: string;
}

/** Names and places of the records `ids` in the replica (tasks, then directory rows). */
async function lostRecords(replica: Replica, ids: string[]): Promise<LostRecord[]> {
  const tasks = await replica.db.tasks.findByIds(ids).exec();
  const rows = await replica.db.directory_rows.findByIds(ids).exec();
  const directoryIds = [...new Set([...rows.values()].map((row) => (row.toJSON() as RowDocument).directoryId))];
  const directories = await replica.db.directories.findByIds(directoryIds).exec();
  return ids.map((id) => {
    const task = tasks.get(id)?.toJSON() as TaskDocument | undefined;
    if (task) return { id, to: `/tasks/${id}`, name: task.title ?? '' };
    const row = rows.get(id)?.toJSON() as RowDocument | undefined;
    if (!row) return { id, name: '' };
    const directory = directories.get(row.directoryId)?.toJSON() as unknown as Directory | undefined;
    const label = cellText(row.cells[directory?.tree_display_column_index ?? 0]);
    return { id, to: `/directories/${row.directoryId}?row=${id}`, name: `${directory?.name ?? ''}: ${label}` };
  });
}

/**
 * Says, wherever the user is, that offline edits were not kept, and leads to the records concerned
 * (each shows what was kept instead), except the task open on the page, which says so itself.
 * Hidden once every record's edits are dismissed, there or here.
 */
export function LostEditsNotice() {
  const { t } = useTranslation();
  const { replica } = useReplica();
  // The task open on this page shows its own lost edits: the notice speaks of the others.
  const openTask = /^\/tasks\/([^/]+)$/.exec(useLocation().pathname)?.[1];
  const ids = useLive(
    (r) => r.lost$.pipe(map((all) => [...new Set(all.map((edit) => edit.id))].filter((id) => id !== openTask))),
    [openTask],
  );
  const key = ids?.join(',') ?? '';
  const [records, setRecords] = useState<LostRecord[]>([]);
  useEffect(() => {
    if (!replica || !key) return setRecords([]);
    let current = true;
    void lostRecords(replica, key.split(',')).then((found) => {
      if (current) setRecords(found);
    });
    return () => {
      current = false;
    };
  }, [replica, key]);
  if (!ids?.length) return null;
  const named = records.slice(0, NOTICE_LIMIT);
  return (
    <Alert
      banner
      type="warning"
      role="alert"
      data-testid="lost-notice"
      title={t('conflicts.notice', { count: ids.length })}
      description={
        <>
          {named.map((record, index) => (
            <span key={record.id}>
              {index > 0 && ', '}
              {record.to ? <Link to={record.to}>{record.name || t('conflicts.unnamed')}</Link> : t('conflicts.gone')}
            </span>
          ))}
          {ids.length > named.length &&
            named.length > 0 &&
            ` ${t('conflicts.more', { count: ids.length - named.length })}`}
        </>
      }
      action={
        <Button size="small" onClick={() => replica?.dismissAllLost()}>
          {t('conflicts.dismissAll')}
        </Button>
      }
    />
  );
}
