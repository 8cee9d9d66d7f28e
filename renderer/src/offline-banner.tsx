import { Alert, Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useReplica } from './data/replica-context';

/** Says when the app works without the server, and how many changes wait to be sent. */
export function OfflineBanner() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { status, error, elsewhere, useHere } = useReplica();
  if (error) return <Alert banner type="error" role="alert" title={t('offline.replicaFailed', { error })} />;
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
    return (
      <Alert
        banner
        type="warning"
        role="status"
        data-testid="offline-banner"
        title={status.pending > 0 ? t('offline.pending', { count: status.pending }) : t('offline.offline')}
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
  return null;
}
