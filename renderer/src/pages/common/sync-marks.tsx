import { Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { map } from 'rxjs';
import { useLive, useReplica } from '../../data/replica-context';
import { useHeld } from '../../offline-banner';

/** How long a change may wait to be sent while connected before its record is marked. */
const NOT_SENT_NOTICE_MS = 3_000;

function Mark({ color, testId, text, hint }: { color: string; testId: string; text: string; hint: string }) {
  return (
    <Tooltip title={hint}>
      <Tag color={color} data-testid={testId} style={{ marginInlineStart: 8 }}>
        {text}
      </Tag>
    </Tooltip>
  );
}

/**
 * Marks a task or directory row changed on this device and not yet accepted by the server. Without
 * the connection at once; connected, only once the change has waited a while (it is usually sent
 * within moments, and a mark that flashed at every save would say nothing).
 */
export function NotSentMark({ id }: { id: string }) {
  const { t } = useTranslation();
  const { status } = useReplica();
  const waiting = Boolean(status?.pendingIds.has(id));
  const held = useHeld(waiting, NOT_SENT_NOTICE_MS);
  if (!waiting || (status?.online && !held)) return null;
  return <Mark color="warning" testId="not-sent" text={t('offline.notSent')} hint={t('offline.notSentHint')} />;
}

/** Marks a task or directory row with offline edits the server did not keep (until dismissed). */
export function LostMark({ id }: { id: string }) {
  const { t } = useTranslation();
  const lost = useLive((r) => r.lost$.pipe(map((all) => all.some((edit) => edit.id === id))), [id]);
  if (!lost) return null;
  return <Mark color="error" testId="not-kept" text={t('conflicts.mark')} hint={t('conflicts.markHint')} />;
}

/** What a list shows beside a record about its sync: not sent yet, and edits not kept. */
export function SyncMarks({ id }: { id: string }) {
  return (
    <>
      <NotSentMark id={id} />
      <LostMark id={id} />
    </>
  );
}
