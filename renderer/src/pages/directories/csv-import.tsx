import { type CsvImportResult, directoriesApi } from '@shared/api/directories';
import { Alert, Button, Modal, Progress, Radio, Space, Steps, Table, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, call } from '../../api';
import { type Directory, failureText } from './data';

type ImportResult = CsvImportResult;
type LineError = CsvImportResult['errors'][number];
type Phase = 'idle' | 'reading' | 'checking' | 'importing' | 'done' | 'failed';
type Mode = 'append' | 'replace';

const STEPS = ['reading', 'checking', 'importing'] as const;

function readText(file: File, onProgress: (percent: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onprogress = (event) => {
      if (event.lengthComputable) onProgress(Math.round((event.loaded / event.total) * 100));
    };
    reader.onload = () => resolve(String(reader.result ?? ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsText(file, 'utf-8');
  });
}

/** A refused import lists its problems as `#/csv/line/<n>` pointers: shown as line errors. */
function lineErrors(caught: unknown): LineError[] {
  if (!(caught instanceof ApiError)) return [];
  return (caught.problem.errors ?? []).map((e) => ({
    line: Number(/\/line\/(\d+)/.exec(e.pointer)?.[1] ?? 0),
    column: null,
    detail: e.detail,
  }));
}

interface CsvImportProps {
  directory: Directory;
  onClose: () => void;
  onImported: () => void;
}

/**
 * Imports a CSV file: read, checked by the server (a dry run that lists every error), then
 * imported whole. With any error nothing is written.
 */
export function CsvImport({ directory, onClose, onImported }: CsvImportProps) {
  const { t } = useTranslation();
  const [file, setFile] = useState<File>();
  const [mode, setMode] = useState<Mode>('append');
  const [phase, setPhase] = useState<Phase>('idle');
  const [failedAt, setFailedAt] = useState<(typeof STEPS)[number]>();
  const [readPercent, setReadPercent] = useState(0);
  const [result, setResult] = useState<ImportResult>();
  const [problem, setProblem] = useState<string>();
  const [errors, setErrors] = useState<LineError[]>([]);
  const busy = phase === 'reading' || phase === 'checking' || phase === 'importing';

  const run = async (checkOnly: boolean) => {
    if (!file) return;
    setResult(undefined);
    setProblem(undefined);
    setErrors([]);
    setFailedAt(undefined);
    let step: (typeof STEPS)[number] = 'reading';
    try {
      setPhase('reading');
      setReadPercent(0);
      const csv = await readText(file, setReadPercent);
      step = 'checking';
      setPhase('checking');
      const check = await call(directoriesApi.importRows, {
        params: { directoryId: directory.id },
        body: { csv, mode, dryRun: true },
      });
      if (check.errors.length > 0 || checkOnly) {
        setResult(check);
        setErrors(check.errors);
        if (check.errors.length > 0) setFailedAt('checking');
        setPhase(check.errors.length > 0 ? 'failed' : 'done');
        return;
      }
      step = 'importing';
      setPhase('importing');
      const imported = await call(directoriesApi.importRows, {
        params: { directoryId: directory.id },
        body: { csv, mode, dryRun: false },
      });
      setResult(imported);
      setPhase('done');
      onImported();
    } catch (caught) {
      setProblem(failureText(caught, t));
      setErrors(lineErrors(caught));
      setFailedAt(step);
      setPhase('failed');
    }
  };

  const stepStatus = (step: (typeof STEPS)[number], index: number) => {
    if (failedAt === step) return 'error' as const;
    const current = STEPS.indexOf(phase as (typeof STEPS)[number]);
    if (phase === 'done') return result?.dryRun && step === 'importing' ? ('wait' as const) : ('finish' as const);
    if (phase === 'failed') {
      return failedAt && index < STEPS.indexOf(failedAt) ? ('finish' as const) : ('wait' as const);
    }
    if (current === index) return 'process' as const;
    return current > index ? ('finish' as const) : ('wait' as const);
  };

  return (
    <Modal
      open
      title={t('directories.importTitle', { name: directory.name })}
      onCancel={onClose}
      footer={
        <Button onClick={onClose} disabled={busy}>
          {t('directories.done')}
        </Button>
      }
      width={720}
    >
      <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
        {t('directories.importHint', { columns: directory.columns.map((c) => c.name).join(', ') })}
      </Typography.Paragraph>
      <Space orientation="vertical" style={{ width: '100%' }} size="small">
        <input
          type="file"
          accept=".csv,text/csv"
          aria-label={t('directories.csvFile')}
          disabled={busy}
          onChange={(event) => {
            setFile(event.target.files?.[0]);
            setPhase('idle');
            setResult(undefined);
            setProblem(undefined);
            setErrors([]);
            setFailedAt(undefined);
          }}
        />
        <Radio.Group
          aria-label={t('directories.importMode')}
          value={mode}
          disabled={busy}
          onChange={(event) => setMode(event.target.value as Mode)}
          options={[
            { value: 'append', label: t('directories.modes.append') },
            { value: 'replace', label: t('directories.modes.replace') },
          ]}
        />
        {mode === 'replace' && <Alert type="warning" showIcon title={t('directories.replaceWarning')} />}
        <Space>
          <Button onClick={() => run(true)} disabled={!file || busy}>
            {t('directories.checkFile')}
          </Button>
          <Button type="primary" onClick={() => run(false)} disabled={!file || busy}>
            {t('directories.importRun')}
          </Button>
        </Space>
        {phase !== 'idle' && (
          <Steps
            size="small"
            items={STEPS.map((step, index) => ({
              title: t(`directories.importSteps.${step}`),
              status: stepStatus(step, index),
            }))}
          />
        )}
        {phase === 'reading' && (
          <Progress percent={readPercent} size="small" aria-label={t('directories.importSteps.reading')} />
        )}
        {result && phase === 'done' && (
          <Alert
            type="success"
            role="status"
            data-testid="import-result"
            title={
              result.dryRun
                ? t('directories.checkPassed', { n: result.imported })
                : t('directories.importedRows', { n: result.imported })
            }
          />
        )}
        {phase === 'failed' && (
          <Alert
            type="error"
            role="alert"
            data-testid="import-result"
            title={problem ?? t('directories.importRefused', { n: errors.length })}
            description={t('directories.nothingImported')}
          />
        )}
        {errors.length > 0 && (
          <Table<LineError & { key: number }>
            aria-label={t('directories.importErrors')}
            data-testid="import-errors"
            size="small"
            pagination={{ pageSize: 10, hideOnSinglePage: true, size: 'small' }}
            dataSource={errors.map((e, index) => ({ ...e, key: index }))}
            columns={[
              { title: t('directories.errorLine'), dataIndex: 'line', width: 80 },
              {
                title: t('directories.errorColumn'),
                dataIndex: 'column',
                width: 160,
                render: (c: string | null) => c ?? '—',
              },
              { title: t('directories.errorDetail'), dataIndex: 'detail' },
            ]}
          />
        )}
      </Space>
    </Modal>
  );
}
