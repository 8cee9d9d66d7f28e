import { Button, Card, Descriptions, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLive, useReplica } from '../../data/replica-context';
import { desktopBridge } from '../../desktop';
import { useDownloadAgain } from '../../download-again';

/**
 * This device's copy of the data (own profile): what it holds, what waits to be sent, when it was
 * last in sync, and the way to bring it again from the server when it looks wrong.
 */
export function DeviceCard() {
  const { t, i18n } = useTranslation();
  const { status, copySize } = useReplica();
  const downloadAgain = useDownloadAgain();
  const tasks = useLive((replica) => replica.db.tasks.count().$, []);
  const rows = useLive((replica) => replica.db.directory_rows.count().$, []);
  const count = (value: number | undefined) => (value === undefined ? '—' : value.toLocaleString(i18n.language));
  const synced = () => {
    if (!status) return '—';
    if (status.online && (status.sendFailure || status.receiveFailure)) return t('profile.device.troubled');
    if (status.online) return status.ready ? t('profile.device.syncedNow') : t('profile.device.syncing');
    if (status.syncedAt === undefined) return t('profile.device.never');
    return new Date(status.syncedAt).toLocaleString(i18n.language, { dateStyle: 'medium', timeStyle: 'short' });
  };
  // In the browser: whether it keeps the copy for good, and how much space the site uses.
  const [browser, setBrowser] = useState<{ kept?: boolean; usage?: number }>();
  useEffect(() => {
    const storage = globalThis.navigator?.storage;
    if (desktopBridge() || !storage?.persisted) return;
    let current = true;
    void Promise.all([
      storage.persisted().catch(() => undefined),
      storage.estimate?.().then(
        (estimate) => estimate.usage,
        () => undefined,
      ),
    ]).then(([kept, usage]) => current && setBrowser({ kept, usage }));
    return () => {
      current = false;
    };
  }, []);
  // On the desktop: the size of the copy's files, measured again as the copy fills or empties.
  const [onDisk, setOnDisk] = useState<number>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: the counts say when the copy has grown.
  useEffect(() => {
    if (!copySize) return;
    let current = true;
    copySize().then(
      (bytes) => current && setOnDisk(bytes),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [copySize, tasks, rows]);
  const megabytes = (bytes: number) =>
    new Intl.NumberFormat(i18n.language, { style: 'unit', unit: 'megabyte', maximumFractionDigits: 1 }).format(
      bytes / 1_000_000,
    );
  const browserItems = browser
    ? [
        {
          key: 'kept',
          label: t('profile.device.kept'),
          children:
            browser.kept === undefined ? '—' : browser.kept ? t('profile.device.keptYes') : t('profile.device.keptNo'),
        },
        {
          key: 'usage',
          label: t('profile.device.usage'),
          children: browser.usage === undefined ? '—' : megabytes(browser.usage),
        },
      ]
    : [];
  const desktopItems = copySize
    ? [{ key: 'onDisk', label: t('profile.device.onDisk'), children: onDisk === undefined ? '—' : megabytes(onDisk) }]
    : [];
  return (
    <Card title={t('profile.device.title')} size="small" data-testid="device-card">
      <Typography.Paragraph type="secondary">{t('profile.device.intro')}</Typography.Paragraph>
      <Descriptions
        size="small"
        column={1}
        items={[
          { key: 'tasks', label: t('profile.device.tasks'), children: count(tasks) },
          { key: 'rows', label: t('profile.device.rows'), children: count(rows) },
          { key: 'pending', label: t('profile.device.pending'), children: count(status?.pending) },
          { key: 'synced', label: t('profile.device.synced'), children: synced() },
          ...browserItems,
          ...desktopItems,
        ]}
      />
      <Typography.Paragraph type="secondary" style={{ marginTop: 12 }}>
        {t('profile.device.hint')}
      </Typography.Paragraph>
      {/* Without the server the copy would be deleted and nothing brought in its place. */}
      <Button danger disabled={!downloadAgain || !status?.online} onClick={downloadAgain}>
        {t('offline.downloadAgain')}
      </Button>
      {status && !status.online && (
        <Typography.Paragraph type="secondary" style={{ marginTop: 8, marginBottom: 0 }}>
          {t('profile.device.needsServer')}
        </Typography.Paragraph>
      )}
    </Card>
  );
}
