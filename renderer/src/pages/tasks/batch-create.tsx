import type { Form } from '@shared/api/forms';
import { tasksApi } from '@shared/api/tasks';
import { Alert, Button, Input, List, Modal, Progress, Select, Space, Tag, Typography } from 'antd';
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { v4 as uuidv4 } from 'uuid';
import { ApiError, call } from '../../api';
import {
  armLock,
  batchFingerprint,
  type ChunkState,
  chunk,
  chunkKey,
  lockedUntil,
  type RowProblem,
  readPastedTable,
  rowProblems,
  sendChunks,
} from '../../batch';
import { problemWords } from '../../problem-words';

const STATE_COLOR: Record<ChunkState, string> = {
  waiting: 'default',
  sending: 'processing',
  done: 'success',
  failed: 'error',
};

/**
 * Creates many tasks from a table pasted from a spreadsheet: chunks of 100, each with its own
 * idempotency key, progress per chunk, retry of what failed, and a 10-minute lock against sending
 * the same table again once all of it was created.
 */
export function BatchCreateDialog({ forms, formId, onClose }: { forms: Form[]; formId?: string; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const [targetId, setTargetId] = useState(formId ?? forms[0]?.id);
  const [text, setText] = useState('');
  const [states, setStates] = useState<ChunkState[]>([]);
  const [error, setError] = useState<string>();
  const [problems, setProblems] = useState<RowProblem[]>([]);
  const [running, setRunning] = useState(false);
  const [finished, setFinished] = useState(false);
  // One request id per batch: a retry sends the remaining chunks under the same keys.
  const requestId = useRef<string>(undefined);
  const form = forms.find((f) => f.id === targetId);
  const table = useMemo(() => readPastedTable(text, form?.fields ?? []), [text, form]);
  const chunks = useMemo(() => chunk(table.tasks), [table]);
  const fingerprint = form ? batchFingerprint(form.id, text) : '';
  const locked = fingerprint ? lockedUntil(localStorage, fingerprint) : undefined;
  const done = states.filter((s) => s === 'done').length;
  const started = states.length > 0;

  const edit = (change: () => void) => {
    change();
    // Another table is another batch.
    requestId.current = undefined;
    setStates([]);
    setError(undefined);
    setProblems([]);
    setFinished(false);
  };

  const run = async () => {
    if (!form || chunks.length === 0) return;
    requestId.current ??= uuidv4();
    const id = requestId.current;
    const current = states.length === chunks.length ? [...states] : chunks.map((): ChunkState => 'waiting');
    setStates(current);
    setRunning(true);
    setError(undefined);
    setProblems([]);
    const ok = await sendChunks(
      current,
      async (index) => {
        await call(tasksApi.createTaskBatch, {
          params: { formId: form.id },
          body: { tasks: chunks[index] ?? [] },
          headers: { 'Idempotency-Key': chunkKey(id, index) },
        });
      },
      (index, state, failure) => {
        current[index] = state;
        setStates([...current]);
        if (failure) {
          const detail =
            failure instanceof ApiError && failure.problem.status > 0
              ? problemWords(t, failure.problem)
              : t('errors.network');
          setError(t('batch.chunkFailed', { chunk: index + 1, detail }));
          if (failure instanceof ApiError && failure.problem.errors) {
            setProblems(rowProblems(failure.problem.errors, index, table.lines, form.fields));
          }
        }
      },
    );
    setRunning(false);
    if (ok) {
      armLock(localStorage, fingerprint);
      setFinished(true);
    }
  };

  return (
    <Modal
      open
      width={760}
      title={t('batch.title')}
      onCancel={running ? undefined : onClose}
      closable={!running}
      maskClosable={false}
      footer={
        <Space>
          <Button onClick={onClose} disabled={running}>
            {finished ? t('batch.close') : t('tasks.cancel')}
          </Button>
          {!finished && (
            <Button
              type="primary"
              loading={running}
              disabled={chunks.length === 0 || (locked !== undefined && !started)}
              onClick={run}
            >
              {started && !running ? t('batch.retry') : t('batch.create', { count: table.tasks.length })}
            </Button>
          )}
        </Space>
      }
    >
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Select
          aria-label={t('tasks.form')}
          style={{ width: 280 }}
          value={targetId}
          disabled={started}
          onChange={(value: string) => edit(() => setTargetId(value))}
          options={forms.map((f) => ({ value: f.id, label: f.name }))}
        />
        <Typography.Text type="secondary">
          {t('batch.hint', { fields: (form?.fields ?? []).map((f) => f.name).join(', ') || '—' })}
        </Typography.Text>
        <Input.TextArea
          aria-label={t('batch.table')}
          rows={8}
          value={text}
          disabled={started}
          placeholder={t('batch.placeholder')}
          onChange={(event) => {
            const value = event.target.value;
            edit(() => setText(value));
          }}
          style={{ fontFamily: 'monospace' }}
        />
        {text.trim() && (
          <Typography.Text data-testid="batch-summary">
            {t('batch.summary', { count: table.tasks.length, chunks: chunks.length })}
            {table.ignored.length > 0 && ` ${t('batch.ignored', { columns: table.ignored.join(', ') })}`}
            {table.untitled.length > 0 && ` ${t('batch.untitled', { lines: table.untitled.slice(0, 10).join(', ') })}`}
          </Typography.Text>
        )}
        {locked !== undefined && !started && (
          <Alert
            type="warning"
            role="alert"
            title={t('batch.locked', { time: new Date(locked).toLocaleTimeString(i18n.language) })}
          />
        )}
        {started && (
          <>
            <Progress percent={Math.round((done / states.length) * 100)} aria-label={t('batch.progress')} />
            <List
              size="small"
              dataSource={states.map((state, index) => ({ state, index }))}
              renderItem={({ state, index }) => (
                <List.Item data-testid="batch-chunk" data-state={state}>
                  {t('batch.chunk', {
                    chunk: index + 1,
                    from: index * 100 + 1,
                    to: index * 100 + (chunks[index]?.length ?? 0),
                  })}
                  <Tag color={STATE_COLOR[state]}>{t(`batch.states.${state}`)}</Tag>
                </List.Item>
              )}
            />
          </>
        )}
        {error && (
          <Alert
            type="error"
            role="alert"
            title={error}
            description={
              <>
                {problems.length > 0 && (
                  <List
                    size="small"
                    dataSource={problems.slice(0, 20)}
                    renderItem={(problem) => (
                      <List.Item data-testid="batch-problem">
                        {t('batch.line', { line: problem.line })}
                        {problem.field ? ` · ${problem.field}` : ''}: {problem.detail}
                      </List.Item>
                    )}
                  />
                )}
                {t('batch.retryHint')}
              </>
            }
          />
        )}
        {finished && <Alert type="success" role="status" title={t('batch.finished', { count: table.tasks.length })} />}
      </Space>
    </Modal>
  );
}
