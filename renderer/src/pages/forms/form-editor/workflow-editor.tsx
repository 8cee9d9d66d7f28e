import type { ProblemFieldError } from '@shared/api/problem';
import { Button, Checkbox, Empty, Input, Radio, Space, Table, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { type MoveDraft, moved, moveId, type StatusDraft } from './draft';
import { InlineProblems, problemText } from './problem-text';

interface StatusesProps {
  statuses: StatusDraft[];
  onChange: (statuses: StatusDraft[]) => void;
  problems: Record<string, Record<string, ProblemFieldError>>;
  readOnly: boolean;
}

/** Statuses in their order; exactly one is initial, any may be final. */
export function StatusesEditor({ statuses, onChange, problems, readOnly }: StatusesProps) {
  const { t } = useTranslation();
  const update = (key: string, patch: Partial<StatusDraft>) =>
    onChange(statuses.map((status) => (status.key === key ? { ...status, ...patch } : status)));
  const remove = (key: string) => {
    const rest = statuses.filter((status) => status.key !== key);
    // Tasks must start somewhere: the first remaining status takes over as initial.
    const first = rest[0];
    if (first && !rest.some((status) => status.initial)) rest[0] = { ...first, initial: true };
    onChange(rest);
  };
  return (
    <Table<StatusDraft>
      rowKey="key"
      size="small"
      pagination={false}
      dataSource={statuses}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('formEditor.noStatuses')} /> }}
      columns={[
        { title: t('formEditor.columns.position'), width: 44, render: (_, _status, index) => index + 1 },
        {
          title: t('formEditor.columns.name'),
          render: (_, status, index) => {
            const { name, ...rest } = problems[status.key] ?? {};
            return (
              <>
                <Input
                  size="small"
                  aria-label={t('formEditor.statusName', { n: index + 1 })}
                  value={status.name}
                  disabled={readOnly}
                  maxLength={200}
                  status={name ? 'error' : undefined}
                  onChange={(event) => update(status.key, { name: event.target.value })}
                />
                <InlineProblems errors={[name, ...Object.values(rest)]} />
              </>
            );
          },
        },
        {
          title: t('formEditor.initial'),
          width: 90,
          align: 'center',
          render: (_, status, index) => (
            <Radio
              aria-label={t('formEditor.statusInitial', { n: index + 1 })}
              checked={status.initial}
              disabled={readOnly}
              onChange={() => onChange(statuses.map((s) => ({ ...s, initial: s.key === status.key })))}
            />
          ),
        },
        {
          title: t('formEditor.final'),
          width: 90,
          align: 'center',
          render: (_, status, index) => (
            <Checkbox
              aria-label={t('formEditor.statusFinal', { n: index + 1 })}
              checked={status.final}
              disabled={readOnly}
              onChange={(event) => update(status.key, { final: event.target.checked })}
            />
          ),
        },
        {
          title: t('formEditor.columns.actions'),
          width: 112,
          render: (_, status, index) => (
            <Space.Compact size="small">
              <Button
                aria-label={t('formEditor.statusUp', { n: index + 1 })}
                disabled={readOnly || index === 0}
                onClick={() => onChange(moved(statuses, index, -1))}
              >
                ↑
              </Button>
              <Button
                aria-label={t('formEditor.statusDown', { n: index + 1 })}
                disabled={readOnly || index === statuses.length - 1}
                onClick={() => onChange(moved(statuses, index, 1))}
              >
                ↓
              </Button>
              <Button
                danger
                aria-label={t('formEditor.statusRemove', { n: index + 1 })}
                disabled={readOnly || statuses.length === 1}
                onClick={() => remove(status.key)}
              >
                ✕
              </Button>
            </Space.Compact>
          ),
        },
      ]}
    />
  );
}

interface MovesProps {
  statuses: StatusDraft[];
  moves: MoveDraft[];
  onChange: (moves: MoveDraft[]) => void;
  problems: Record<string, ProblemFieldError>;
  readOnly: boolean;
}

/** The allowed moves as a matrix: a row per status a task leaves, a column per status it enters. */
export function MovesMatrix({ statuses, moves, onChange, problems, readOnly }: MovesProps) {
  const { t } = useTranslation();
  const label = (status: StatusDraft, index: number) =>
    status.name.trim() || `${index + 1} (${t('formEditor.unnamed')})`;
  const allowed = new Set(moves.map(moveId));
  const toggle = (move: MoveDraft, on: boolean) =>
    onChange(on ? [...moves, move] : moves.filter((m) => moveId(m) !== moveId(move)));
  if (statuses.length === 0) {
    return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('formEditor.noStatuses')} />;
  }
  return (
    <>
      <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
        {t('formEditor.movesHint')}
      </Typography.Paragraph>
      <Table<StatusDraft>
        rowKey="key"
        size="small"
        bordered
        pagination={false}
        scroll={{ x: 'max-content' }}
        dataSource={statuses}
        columns={[
          {
            title: t('formEditor.fromTo'),
            fixed: 'left',
            render: (_, status, index) => <Typography.Text strong>{label(status, index)}</Typography.Text>,
          },
          ...statuses.map((to, toIndex) => ({
            key: to.key,
            title: label(to, toIndex),
            align: 'center' as const,
            width: 96,
            render: (_: unknown, from: StatusDraft, fromIndex: number) => {
              if (from.key === to.key) return <Typography.Text type="secondary">—</Typography.Text>;
              const move = { from: from.key, to: to.key };
              const problem = problems[moveId(move)];
              const box = (
                <Checkbox
                  aria-label={t('formEditor.move', { from: label(from, fromIndex), to: label(to, toIndex) })}
                  checked={allowed.has(moveId(move))}
                  disabled={readOnly}
                  onChange={(event) => toggle(move, event.target.checked)}
                  style={problem ? { outline: '2px solid #ff4d4f' } : undefined}
                />
              );
              return problem ? <Tooltip title={problemText(t, problem)}>{box}</Tooltip> : box;
            },
          })),
        ]}
      />
    </>
  );
}
