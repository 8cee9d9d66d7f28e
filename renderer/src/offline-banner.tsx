import { tasksApi } from '@shared/api/tasks';
import { Alert, Button, Progress } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useLive, useReplica } from './data/replica-context';
import { useDownloadAgain } from './download-again';
import { asSentence } from './pages/common/edit-words';
import { GoneRecordEdits, LostEditsNotice, type ShownGone } from './pages/common/lost-edits';
import { problemWords } from './problem-words';
import { useCall } from './use-api';

/** How long the first pull may take before the app says it is bringing the data over. */
const FIRST_SYNC_NOTICE_MS = 700;

/** `flag`, once it has held for `ms` (so a quick pull never flashes a notice). */
export function useHeld(flag: boolean, ms: number): boolean {
  const [held, setHeld] = useState(false);
  useEffect(() => {
    setHeld(false);
    if (!flag) return;
    const timer = setTimeout(() => setHeld(true), ms);
    return () => clearTimeout(timer);
  }, [flag, ms]);
  return flag && held;
}

/**
 * The replica's banner, and the dialog of a gone record's edits opened from its lost-edits notice:
 * the dialog stays open while the banner changes (changes being sent, the connection lost).
 */
export function OfflineBanner() {
  const [gone, setGone] = useState<ShownGone>();
  return (
    <>
      <ReplicaBanner onShowGone={setGone} />
      {gone && <GoneRecordEdits recordId={gone.id} record={gone.record} onClose={() => setGone(undefined)} />}
    </>
  );
}

/**
 * The copy of the data could not be opened: why, and the way out — deleting it and bringing it again
 * from the server (`useDownloadAgain`).
 */
function ReplicaFailed({ error }: { error: string }) {
  const { t } = useTranslation();
  const downloadAgain = useDownloadAgain();
  return (
    <Alert
      banner
      type="error"
      role="alert"
      data-testid="replica-failed"
      title={t('offline.replicaFailed', { error })}
      action={
        downloadAgain && (
          <Button size="small" danger onClick={downloadAgain}>
            {t('offline.downloadAgain')}
          </Button>
        )
      }
    />
  );
}

/**
 * Says when the app works without the server, how many changes wait to be sent, how far the first
 * sync has come while the organization's data is brought to this device, and how far a replica of
 * an earlier release has been brought to this one.
 */
function ReplicaBanner({ onShowGone }: { onShowGone: (shown: ShownGone) => void }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { status, error, elsewhere, useHere, upgrading } = useReplica();
  const syncing = useHeld(
    Boolean(status && !status.ready && !status.signedOut && (status.online || status.connecting)),
    FIRST_SYNC_NOTICE_MS,
  );
  const received = useLive((replica) => (syncing ? replica.db.tasks.count().$ : undefined), [syncing]);
  // How many tasks the user can see: what the first sync brings (unknown until the server answers).
  const total = useCall(tasksApi.countTasks, syncing ? {} : undefined).data?.count;
  if (error) return <ReplicaFailed error={error} />;
  if (upgrading) {
    return (
      <Alert
        banner
        type="info"
        role="status"
        data-testid="upgrading"
        title={t('offline.upgrading', {
          handled: upgrading.handled.toLocaleString(i18n.language),
          total: upgrading.total.toLocaleString(i18n.language),
        })}
      />
    );
  }
  // Screens that read the replica wait; the others (settings, profile) keep working.
  if (elsewhere) {
    return (
      <Alert
        banner
        type="info"
        role="status"
        data-testid="other-tab"
        title={t('tabs.elsewhere')}
        description={t('tabs.why')}
        action={
          <Button size="small" type="primary" onClick={useHere}>
            {t('tabs.useHere')}
          </Button>
        }
      />
    );
  }
  if (!status) return null;
  if (status.signedOut) {
    return (
      <Alert
        banner
        type="error"
        role="alert"
        data-testid="offline-banner"
        title={t('offline.signedOut', { count: status.pending })}
        action={
          <Button size="small" onClick={() => navigate('/sign-in')}>
            {t('signIn.submit')}
          </Button>
        }
      />
    );
  }
  if (!status.online && !status.connecting) {
    // How old what the device shows may be: as of the last moment it was in sync.
    const asOf =
      status.syncedAt === undefined
        ? ''
        : ` ${t('offline.asOf', {
            time: new Date(status.syncedAt).toLocaleString(i18n.language, { dateStyle: 'medium', timeStyle: 'short' }),
          })}`;
    return (
      <Alert
        banner
        type="warning"
        role="status"
        data-testid="offline-banner"
        title={(status.pending > 0 ? t('offline.pending', { count: status.pending }) : t('offline.offline')) + asOf}
      />
    );
  }
  if (status.receiveFailure) {
    return (
      <Alert
        banner
        type="warning"
        role="alert"
        data-testid="receive-failed"
        title={t('offline.receiveFailed', { reason: asSentence(problemWords(t, status.receiveFailure)) })}
      />
    );
  }
  if (syncing && status.pending === 0) {
    const count = received ?? 0;
    // Tasks created while the sync runs may take the count past the total asked at its start.
    const known = total !== undefined && total > 0 && count <= total;
    return (
      <Alert
        banner
        type="info"
        role="status"
        data-testid="first-sync"
        title={
          known
            ? t('offline.receivingOf', {
                received: count.toLocaleString(i18n.language),
                total: total.toLocaleString(i18n.language),
              })
            : t('offline.receiving', { received: count.toLocaleString(i18n.language) })
        }
        description={
          known ? (
            <Progress
              percent={Math.floor((count / total) * 100)}
              status="active"
              size="small"
              style={{ maxWidth: 480 }}
            />
          ) : undefined
        }
      />
    );
  }
  if (status.pending > 0 && status.sendFailure) {
    return (
      <Alert
        banner
        type="warning"
        role="alert"
        data-testid="send-failed"
        title={t('offline.sendFailed', {
          count: status.pending,
          reason: asSentence(problemWords(t, status.sendFailure)),
        })}
      />
    );
  }
  if (status.pending > 0) {
    return (
      <Alert
        banner
        type="info"
        role="status"
        data-testid="sending-banner"
        title={t('offline.sending', { count: status.pending })}
      />
    );
  }
  return <LostEditsNotice onShowGone={onShowGone} />;
}
