import type { Form } from '@shared/api/forms';
import { MAX_QR_BATCH, QR_COUNT_HEADER, qrApi } from '@shared/api/qr';
import { Alert, Button, Flex, Image, Modal, Progress, Segmented, Select, Space, Spin, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { map } from 'rxjs';
import { ApiError, callForDownload, callForFile, saveBlob } from '../../api';
import { chunk } from '../../batch';
import { useLive, useReplica } from '../../data/replica-context';
import { failureText } from '../../use-api';

const SIZES = [256, 512, 1024] as const;

/** The user's words for a refusal the server explains in English. */
function qrFailure(t: TFunction, caught: unknown): string {
  if (caught instanceof ApiError) {
    if (caught.problem.code === 'qr_generation_disabled') return t('qr.disabled');
    if (caught.problem.code === 'conflict') return t('qr.noTasks');
  }
  return failureText(caught, t);
}

type Phase = { step: 'idle' } | { step: 'making' } | { step: 'receiving'; share?: number; received: number };

/**
 * Makes the QR codes of a form's tasks (SPEC §11) as a ZIP archive and saves it. Forms with more
 * tasks than one archive holds are made in parts, chosen from the replica's tasks by creation.
 */
export function FormQrDialog({ form, onClose }: { form: Form; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const { status } = useReplica();
  const [size, setSize] = useState<number>(512);
  const [part, setPart] = useState(0);
  const [phase, setPhase] = useState<Phase>({ step: 'idle' });
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState<{ fileName: string; count: number }>();
  const taskIds = useLive(
    (r) =>
      r.db.tasks
        .find({ selector: { formId: form.id }, sort: [{ createdAt: 'asc' }, { id: 'asc' }] })
        .$.pipe(map((docs) => docs.map((doc) => doc.id))),
    [form.id],
  );
  const parts = useMemo(() => chunk(taskIds ?? [], MAX_QR_BATCH), [taskIds]);
  const busy = phase.step !== 'idle';
  const online = status?.online !== false;
  const number = new Intl.NumberFormat(i18n.language);

  const make = async () => {
    setError(undefined);
    setSaved(undefined);
    setPhase({ step: 'making' });
    try {
      // One archive: the server takes the form's tasks as it knows them; parts name their tasks.
      const body = parts.length > 1 ? { size, taskIds: parts[part] } : { size };
      const download = await callForDownload(
        qrApi.generateFormQrCodes,
        { params: { formId: form.id }, body },
        (received, share) => setPhase({ step: 'receiving', received, share }),
      );
      const suffix = parts.length > 1 ? ` (${part + 1})` : '';
      const fileName = (download.fileName ?? `QR ${form.name}.zip`).replace(/\.zip$/, `${suffix}.zip`);
      saveBlob(download.blob, fileName);
      setSaved({ fileName, count: Number(download.headers.get(QR_COUNT_HEADER)) || 0 });
    } catch (caught) {
      setError(qrFailure(t, caught));
    } finally {
      setPhase({ step: 'idle' });
    }
  };

  return (
    <Modal
      open
      title={t('qr.title', { name: form.name })}
      onCancel={onClose}
      maskClosable={!busy}
      footer={
        <Space>
          <Button onClick={onClose}>{saved ? t('qr.close') : t('qr.cancel')}</Button>
          <Button type="primary" loading={busy} disabled={!online || parts.length === 0} onClick={make}>
            {t('qr.make')}
          </Button>
        </Space>
      }
    >
      <Flex vertical gap={12}>
        <Typography.Paragraph style={{ margin: 0 }}>
          {taskIds === undefined ? <Spin size="small" /> : t('qr.explain', { count: taskIds.length })}
        </Typography.Paragraph>
        <Flex align="center" gap={8}>
          <Typography.Text>{t('qr.size')}</Typography.Text>
          <Segmented<number>
            value={size}
            onChange={setSize}
            disabled={busy}
            options={SIZES.map((value) => ({ value, label: t('qr.pixels', { count: value }) }))}
          />
        </Flex>
        {parts.length > 1 && (
          <Flex align="center" gap={8}>
            <Typography.Text>{t('qr.part')}</Typography.Text>
            <Select
              aria-label={t('qr.part')}
              value={part}
              onChange={setPart}
              disabled={busy}
              style={{ minWidth: 220 }}
              options={parts.map((ids, i) => ({
                value: i,
                label: t('qr.partRange', {
                  from: number.format(i * MAX_QR_BATCH + 1),
                  to: number.format(i * MAX_QR_BATCH + ids.length),
                }),
              }))}
            />
          </Flex>
        )}
        {taskIds !== undefined && parts.length === 0 && <Alert type="info" showIcon title={t('qr.noTasks')} />}
        {!online && <Alert type="warning" showIcon title={t('qr.offline')} />}
        {phase.step === 'making' && (
          <Flex align="center" gap={8} role="status">
            <Spin size="small" />
            <Typography.Text>{t('qr.making')}</Typography.Text>
          </Flex>
        )}
        {phase.step === 'receiving' && (
          <div role="status">
            <Typography.Text>
              {t('qr.receiving', { size: number.format(Math.round(phase.received / 1024)) })}
            </Typography.Text>
            {phase.share !== undefined && <Progress percent={Math.round(phase.share * 100)} size="small" />}
          </div>
        )}
        {error && <Alert type="error" showIcon title={error} />}
        {saved && (
          <Alert
            type="success"
            showIcon
            title={t('qr.saved', { count: saved.count, file: saved.fileName })}
            description={t('qr.savedHint')}
          />
        )}
      </Flex>
    </Modal>
  );
}

/** The task's QR code, shown to print or save (for forms with QR codes turned on). */
export function TaskQrButton({ taskId, title }: { taskId: string; title: string }) {
  const { t } = useTranslation();
  const { status } = useReplica();
  const [open, setOpen] = useState(false);
  const [image, setImage] = useState<{ blob: Blob; url: string }>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (!open) return;
    let url: string | undefined;
    let cancelled = false;
    setError(undefined);
    callForFile(qrApi.getTaskQrCode, { params: { taskId }, query: { size: 512 } }).then(
      (blob) => {
        if (cancelled) return;
        url = URL.createObjectURL(blob);
        setImage({ blob, url });
      },
      (caught) => !cancelled && setError(qrFailure(t, caught)),
    );
    return () => {
      cancelled = true;
      if (url) URL.revokeObjectURL(url);
      setImage(undefined);
    };
  }, [open, taskId, t]);
  return (
    <>
      <Button
        onClick={() => setOpen(true)}
        disabled={status?.online === false}
        title={status?.online === false ? t('qr.offline') : undefined}
      >
        {t('qr.taskButton')}
      </Button>
      {open && (
        <Modal
          open
          title={t('qr.taskTitle', { title })}
          onCancel={() => setOpen(false)}
          footer={
            <Space>
              <Button onClick={() => setOpen(false)}>{t('qr.close')}</Button>
              <Button type="primary" disabled={!image} onClick={() => image && saveBlob(image.blob, `QR ${title}.png`)}>
                {t('qr.savePng')}
              </Button>
            </Space>
          }
        >
          <Flex justify="center">
            {error ? (
              <Alert type="error" showIcon title={error} />
            ) : image ? (
              <Image src={image.url} alt={t('qr.taskTitle', { title })} width={256} preview={false} />
            ) : (
              <Spin />
            )}
          </Flex>
        </Modal>
      )}
    </>
  );
}
