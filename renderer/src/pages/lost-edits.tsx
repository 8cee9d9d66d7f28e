import type { LostEdit } from '@shared/sync';
import { Alert, Button, List } from 'antd';
import { useTranslation } from 'react-i18next';
import { map } from 'rxjs';
import { useLive, useReplica } from '../data/replica-context';

/** A value of a lost edit as the user reads it. */
export function shownEditValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Offline edits of one record (a task, a directory row) that the server did not keep, each with
 * what it kept instead and why; the user dismisses them once read.
 */
export function LostEdits({
  recordId,
  label,
  show = (_edit, value) => shownEditValue(value),
}: {
  recordId: string;
  /** What the edit changed, in the user's words (a field, a column). */
  label: (edit: LostEdit) => string;
  show?: (edit: LostEdit, value: unknown) => string;
}) {
  const { t } = useTranslation();
  const { replica } = useReplica();
  const lost = useLive((r) => r.lost$.pipe(map((all) => all.filter((edit) => edit.id === recordId))), [recordId]);
  if (!lost?.length) return null;
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
          renderItem={(edit) => (
            <List.Item data-testid="lost-edit">
              <strong>{label(edit)}</strong>: {t('conflicts.yours', { value: show(edit, edit.attempted) })};{' '}
              {t('conflicts.kept', { value: show(edit, edit.kept) })} —{' '}
              {edit.reason === 'refused' ? (edit.detail ?? t('conflicts.refused')) : t('conflicts.changedOnServer')}
            </List.Item>
          )}
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
