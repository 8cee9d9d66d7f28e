import { App } from 'antd';
import { useTranslation } from 'react-i18next';
import { pendingOnDevice, useReplica } from './data/replica-context';
import { copyRemovalReason } from './data/replica-errors';
import { useMessage } from './messages';

/**
 * Asks whether to delete this device's copy of the data and bring it again from the server, saying
 * how many changes not yet sent that loses, then does it; undefined while it cannot be done (no
 * copy here: another tab holds it, or the session is ending). For a copy that cannot be opened, or
 * one the user no longer trusts.
 */
export function useDownloadAgain(): (() => void) | undefined {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const message = useMessage();
  const { me, status, downloadAgain } = useReplica();
  if (!downloadAgain) return undefined;
  return () => {
    const pending = status?.pending ?? (me ? pendingOnDevice(me.user.id) : 0);
    modal.confirm({
      title: t('offline.downloadAgainTitle'),
      content: (
        <>
          <p>{t('offline.downloadAgainWhy')}</p>
          {pending > 0 && <p>{t('offline.downloadAgainPending', { count: pending })}</p>}
        </>
      ),
      okText: t('offline.downloadAgainOk'),
      okButtonProps: { danger: true },
      cancelText: t('settings.cancel'),
      onOk: () =>
        downloadAgain().catch((caught: unknown) => {
          message.error(t('offline.downloadAgainFailed', { reason: copyRemovalReason(caught, t) }));
        }),
    });
  };
}
