import type { Directory } from '@shared/api/directories';
import type { GoneRecord, LostEdit } from '@shared/sync';
import { Alert, Button, List, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { combineLatest, map, type Observable, switchMap } from 'rxjs';
import type { Replica } from '../../data/replica';
import { useLive, useReplica } from '../../data/replica-context';
import type { FormDocument, RowDocument, TaskDocument } from '../../data/schemas';
import { useMessage } from '../../messages';
import { saveFailureText } from '../../use-api';
import { cellText } from '../directories/data';
import { asSentence, refusalText, rowEditLabel, shownEditValue, useTaskEditWords } from './edit-words';

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
  const message = useMessage();
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
      // A write to this device's copy: a full disk, or the record gone meanwhile, said in the user's words.
      message.error(saveFailureText(caught, t));
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
                  {edit.reason === 'refused'
                    ? refusalText(t, edit)
                    : edit.reason === 'gone_on_server'
                      ? t('conflicts.goneOnServer')
                      : t('conflicts.changedOnServer')}
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
  /** Gone on the server: what it was (its edits are shown in a dialog, there is nothing to open). */
  gone?: GoneRecord;
}

/**
 * Names and places of the records `ids` (tasks, then directory rows, from the replica), kept up to
 * date as the replica changes (a task the server kept after a deletion here comes back, a title
 * changes); those the server reported gone (`gone`) as their edits had them, whether or not the
 * replica has caught up.
 */
function lostRecords(replica: Replica, ids: string[], gone: ReadonlyMap<string, GoneRecord>): Observable<LostRecord[]> {
  return combineLatest([replica.db.tasks.findByIds(ids).$, replica.db.directory_rows.findByIds(ids).$]).pipe(
    switchMap(async ([tasks, rows]) => {
      const directoryIds = [...new Set([...rows.values()].map((row) => (row.toJSON() as RowDocument).directoryId))];
      const directories = await replica.db.directories.findByIds(directoryIds).exec();
      return ids.map((id): LostRecord => {
        const record = gone.get(id);
        if (record) return { id, name: record.name, gone: record };
        const task = tasks.get(id)?.toJSON() as TaskDocument | undefined;
        if (task) return { id, to: `/tasks/${id}`, name: task.title ?? '' };
        const row = rows.get(id)?.toJSON() as RowDocument | undefined;
        if (!row) return { id, name: '' };
        const directory = directories.get(row.directoryId)?.toJSON() as unknown as Directory | undefined;
        const label = cellText(row.cells[directory?.tree_display_column_index ?? 0]);
        return { id, to: `/directories/${row.directoryId}?row=${id}`, name: `${directory?.name ?? ''}: ${label}` };
      });
    }),
  );
}

/**
 * What the user changed offline in a record the server does not hold (deleted meanwhile, no longer
 * shared with them, or made offline and refused): nothing can be made again there, so the values
 * are shown to keep elsewhere, until the user has read them.
 */
export function GoneRecordEdits({
  recordId,
  record,
  onClose,
}: {
  recordId: string;
  record: GoneRecord;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const { replica } = useReplica();
  const edits = useLive((r) => r.lost$.pipe(map((all) => all.filter((edit) => edit.id === recordId))), [recordId]);
  const form = useLive(
    (r) =>
      record.formId
        ? r.db.forms
            .findOne(record.formId)
            .$.pipe(map((doc) => (doc?.toJSON() as FormDocument | undefined) ?? undefined))
        : undefined,
    [record.formId],
  );
  const directory = useLive(
    (r) =>
      record.directoryId
        ? r.db.directories
            .findOne(record.directoryId)
            .$.pipe(map((doc) => (doc?.toJSON() as unknown as Directory | undefined) ?? undefined))
        : undefined,
    [record.directoryId],
  );
  // Rows a move or a binding named, by their labels: each by its own directory's display column
  // (the row's directory for a move, the parent directory for bindings), as the row editor names them.
  const rowIds = (edits ?? []).flatMap((edit) =>
    edit.path === 'parentId' || edit.path === 'parentRowIds' ? [edit.attempted].flat().map(String) : [],
  );
  const rowLabels = useLive(
    (r) =>
      r.db.directory_rows.findByIds(rowIds).$.pipe(
        switchMap(async (found) => {
          const rows = [...found.values()].map((doc) => doc.toJSON() as RowDocument);
          const directories = await r.db.directories.findByIds([...new Set(rows.map((row) => row.directoryId))]).exec();
          return new Map(
            rows.map((row) => {
              const own = directories.get(row.directoryId)?.toJSON() as unknown as Directory | undefined;
              return [row.id, cellText(row.cells[own?.tree_display_column_index ?? 0])];
            }),
          );
        }),
      ),
    [rowIds.join(',')],
  );
  const task = useTaskEditWords(form);
  const label = (edit: LostEdit) => (record.formId ? task.label(edit) : rowEditLabel(t, directory, edit));
  const show = (edit: LostEdit, value: unknown) => {
    if (record.formId) return task.show(edit, value);
    if (edit.path === 'parentId' && (value === null || value === undefined)) return t('directories.topLevel');
    if (edit.path === 'parentId' || edit.path === 'parentRowIds') {
      return [value]
        .flat()
        .map((id) => rowLabels?.get(String(id)) || t('directories.noLabel'))
        .join(', ');
    }
    return shownEditValue(value);
  };
  const name = record.name || t('conflicts.unnamed');
  // Made offline and refused by the server: its reason; else deleted or no longer shared.
  const refused = edits?.find((edit) => edit.reason === 'refused');
  const refusal = refused && asSentence(refusalText(t, refused));
  return (
    <Modal
      open
      title={t('conflicts.goneTitle', { name })}
      onCancel={onClose}
      footer={[
        <Button key="close" onClick={onClose}>
          {t('conflicts.later')}
        </Button>,
        <Button
          key="dismiss"
          type="primary"
          onClick={() => {
            replica?.dismissLost(recordId);
            onClose();
          }}
        >
          {t('conflicts.dismiss')}
        </Button>,
      ]}
    >
      <Typography.Paragraph>
        {refusal ? t('conflicts.refusedWhy', { reason: refusal }) : t('conflicts.goneWhy')}
      </Typography.Paragraph>
      <List
        size="small"
        dataSource={edits ?? []}
        renderItem={(edit) => (
          <List.Item data-testid="gone-edit">
            <Typography.Text copyable={{ text: show(edit, edit.attempted) }}>
              <strong>{label(edit)}</strong>: {show(edit, edit.attempted)}
            </Typography.Text>
          </List.Item>
        )}
      />
    </Modal>
  );
}

/** A record gone on the server whose edits the user asked to see (`GoneRecordEdits`). */
export interface ShownGone {
  id: string;
  record: GoneRecord;
}

/**
 * Says, wherever the user is, that offline edits were not kept, and leads to the records concerned
 * (each shows what was kept instead), except the task open on the page, which says so itself.
 * Hidden once every record's edits are dismissed, there or here. A gone record's edits open with
 * `onShowGone`: the dialog is kept by whoever shows the notice, since the banner gives way to
 * others (sending, offline) while it is read.
 */
export function LostEditsNotice({ onShowGone }: { onShowGone: (shown: ShownGone) => void }) {
  const { t } = useTranslation();
  const { replica } = useReplica();
  // The task open on this page shows its own lost edits: the notice speaks of the others, and of
  // that task too once it is gone (the page has nothing to show them on).
  const openTask = /^\/tasks\/([^/]+)$/.exec(useLocation().pathname)?.[1];
  const lost = useLive(
    (r) => r.lost$.pipe(map((all) => all.filter((edit) => edit.id !== openTask || edit.record !== undefined))),
    [openTask],
  );
  const ids = lost && [...new Set(lost.map((edit) => edit.id))];
  // Records not on the server (deleted meanwhile, or made offline and refused), as the edits had them.
  const gone = new Map((lost ?? []).flatMap((edit) => (edit.record ? [[edit.id, edit.record]] : [])));
  const refused = new Set((lost ?? []).filter((edit) => edit.record && edit.reason === 'refused').map((e) => e.id));
  const key = JSON.stringify([ids ?? [], [...gone]]);
  // `key` stands for the ids and the gone records.
  const records = useLive((r) => (ids?.length ? lostRecords(r, ids, gone) : undefined), [key]);
  if (!ids?.length) return null;
  const named = (records ?? []).slice(0, NOTICE_LIMIT);
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
              {record.to ? (
                <Link to={record.to}>{record.name || t('conflicts.unnamed')}</Link>
              ) : record.gone ? (
                <Button
                  type="link"
                  size="small"
                  style={{ padding: 0 }}
                  onClick={() => record.gone && onShowGone({ id: record.id, record: record.gone })}
                >
                  {t(refused.has(record.id) ? 'conflicts.refusedName' : 'conflicts.goneName', {
                    name: record.name || t('conflicts.unnamed'),
                  })}
                </Button>
              ) : (
                t('conflicts.gone')
              )}
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
