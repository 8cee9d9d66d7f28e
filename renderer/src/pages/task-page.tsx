import type { Form, FormField } from '@shared/api/forms';
import type { Task } from '@shared/api/tasks';
import {
  Alert,
  Form as AntForm,
  App,
  Button,
  Card,
  Checkbox,
  DatePicker,
  Input,
  List,
  Select,
  Space,
  Spin,
  Typography,
} from 'antd';
import dayjs from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { ApiError, api } from '../api';
import { useApi } from '../use-api';

interface HistoryEntry {
  id: string;
  fieldId: string;
  oldValue: unknown;
  newValue: unknown;
  changedAt: string;
}
interface Message {
  id: string;
  body: string;
  createdAt: string;
}

interface People {
  users: { value: string; label: string }[];
  roles: { value: string; label: string }[];
  labels: { users: string; roles: string };
}

/** Rows of the field's directory, labelled by `displayColumn` or the directory's tree display column. */
function TableFieldInput({ field, ...control }: { field: FormField } & Record<string, unknown>) {
  const directory = useApi<{ columns: { name: string }[]; tree_display_column_index: number }>(
    field.directoryId ? `/api/directories/${field.directoryId}` : undefined,
  );
  const rows = useApi<{ items: { id: string; cells: unknown[] }[] }>(
    field.directoryId ? `/api/directories/${field.directoryId}/rows?limit=1000` : undefined,
  );
  const named = directory.data?.columns.findIndex(
    (c) => c.name.toLowerCase() === (field.displayColumn ?? '').toLowerCase(),
  );
  const index = named !== undefined && named >= 0 ? named : (directory.data?.tree_display_column_index ?? 0);
  return (
    <Select
      {...control}
      aria-label={field.name}
      allowClear
      showSearch={{ optionFilterProp: 'label' }}
      mode={field.allow_multiple ? 'multiple' : undefined}
      loading={rows.loading}
      options={(rows.data?.items ?? []).map((row) => ({ value: row.id, label: String(row.cells[index] ?? '') }))}
    />
  );
}

/**
 * An editor for a value of the field's type; the server normalises what is saved. Form.Item hands
 * `value`/`checked` and `onChange` to this component, which passes them to the control.
 */
function FieldInput({ field, people, ...control }: { field: FormField; people: People } & Record<string, unknown>) {
  switch (field.type) {
    case 'table':
      return <TableFieldInput {...control} field={field} />;
    case 'user':
      // Values are `user:<id>` or `role:<id>`; a role stands for its current members.
      return (
        <Select
          {...control}
          aria-label={field.name}
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          mode={field.allow_multiple ? 'multiple' : undefined}
          options={[
            { label: people.labels.users, title: people.labels.users, options: people.users },
            { label: people.labels.roles, title: people.labels.roles, options: people.roles },
          ]}
        />
      );
    case 'number':
      return <Input {...control} inputMode="decimal" aria-label={field.name} />;
    case 'date':
      return <DatePicker {...control} aria-label={field.name} format="YYYY-MM-DD" />;
    case 'checkbox':
      return <Checkbox {...control} aria-label={field.name} />;
    case 'select':
      return (
        <Select
          {...control}
          aria-label={field.name}
          allowClear
          mode={field.allow_multiple ? 'multiple' : undefined}
          options={(field.options ?? []).map((option) => ({ value: option, label: option }))}
        />
      );
    default:
      return <Input {...control} aria-label={field.name} />;
  }
}

const EDITABLE = new Set(['text', 'number', 'date', 'checkbox', 'select', 'user', 'table']);

/** One task: its fields by type, status moves, change history and discussion. View recorded on open. */
export function TaskPage() {
  const { t, i18n } = useTranslation();
  const { message } = App.useApp();
  const { taskId } = useParams();
  const task = useApi<Task>(`/api/tasks/${taskId}`);
  const form = useApi<Form>(task.data ? `/api/forms/${task.data.formId}` : undefined);
  const history = useApi<{ items: HistoryEntry[] }>(`/api/tasks/${taskId}/history`);
  const messages = useApi<{ items: Message[] }>(`/api/tasks/${taskId}/messages`);
  const audit = useApi<{ items: { id: string; action: string; actorUserId: string | null; createdAt: string }[] }>(
    `/api/tasks/${taskId}/audit`,
  );
  const users = useApi<{ items: { id: string; name: string }[] }>('/api/users?limit=200');
  const roles = useApi<{ items: { id: string; name: string }[] }>('/api/roles');
  const people: People = {
    users: (users.data?.items ?? []).map((u) => ({ value: `user:${u.id}`, label: u.name })),
    roles: (roles.data?.items ?? []).map((r) => ({ value: `role:${r.id}`, label: r.name })),
    labels: { users: t('task.users'), roles: t('task.roles') },
  };
  const userName = (id: string) => users.data?.items.find((u) => u.id === id)?.name ?? id;
  const [error, setError] = useState<string>();
  const [draft, setDraft] = useState('');

  useEffect(() => {
    void api('POST', `/api/tasks/${taskId}/view`).catch(() => undefined);
  }, [taskId]);

  const fail = (caught: unknown) =>
    setError(caught instanceof ApiError && caught.problem.status > 0 ? caught.problem.detail : t('errors.network'));
  const refresh = () => {
    task.reload();
    history.reload();
    audit.reload();
  };

  if (task.error) return <Alert type="error" title={task.error} role="alert" />;
  if (!task.data || !form.data) return <Spin description={t('home.loading')} />;
  const current = task.data;
  const fields = form.data.fields.filter((f) => EDITABLE.has(f.type));
  const initial = Object.fromEntries(
    fields.map((f) => [
      f.id,
      f.type === 'date' && current.fields[f.id] ? dayjs(String(current.fields[f.id])) : current.fields[f.id],
    ]),
  );
  const moves = form.data.transitions
    .filter((move) => move.from === current.statusId)
    .map((move) => form.data?.statuses.find((s) => s.id === move.to))
    .filter((status) => status !== undefined);
  const fieldName = (id: string) => form.data?.fields.find((f) => f.id === id)?.name ?? id;

  const save = async (values: Record<string, unknown>) => {
    const changed = Object.fromEntries(
      Object.entries(values).map(([id, value]) => [
        id,
        dayjs.isDayjs(value) ? value.format('YYYY-MM-DD') : (value ?? null),
      ]),
    );
    try {
      await api('PATCH', `/api/tasks/${current.id}`, { fields: changed });
      setError(undefined);
      message.success(t('task.saved'));
      refresh();
    } catch (caught) {
      fail(caught);
    }
  };

  return (
    <div style={{ maxWidth: 960, margin: '0 auto', padding: 24 }}>
      <Link to={`/tasks?formId=${current.formId}`}>← {t('task.back')}</Link>
      <Typography.Title level={3}>{current.title}</Typography.Title>
      {current.description && <Typography.Paragraph>{current.description}</Typography.Paragraph>}
      {error && <Alert type="error" title={error} role="alert" style={{ marginBottom: 16 }} />}
      <Space style={{ marginBottom: 16 }}>
        <Typography.Text strong data-testid="task-status">
          {form.data.statuses.find((s) => s.id === current.statusId)?.name}
        </Typography.Text>
        <Select
          aria-label={t('task.moveTo')}
          placeholder={t('task.moveTo')}
          style={{ width: 220 }}
          value={null}
          options={moves.map((status) => ({ value: status.id, label: status.name }))}
          onChange={async (statusId: string) => {
            try {
              await api('POST', `/api/tasks/${current.id}/transition`, { statusId });
              setError(undefined);
              refresh();
            } catch (caught) {
              fail(caught);
            }
          }}
        />
      </Space>
      <Card title={t('task.fields')} style={{ marginBottom: 16 }}>
        <AntForm layout="vertical" initialValues={initial} onFinish={save} key={current.updatedAt}>
          {fields.map((field) => (
            <AntForm.Item
              key={field.id}
              name={field.id}
              label={field.name}
              valuePropName={field.type === 'checkbox' ? 'checked' : 'value'}
            >
              <FieldInput field={field} people={people} />
            </AntForm.Item>
          ))}
          <Button type="primary" htmlType="submit">
            {t('task.save')}
          </Button>
        </AntForm>
      </Card>
      <Card title={t('task.assignees')} style={{ marginBottom: 16 }}>
        <List
          size="small"
          dataSource={current.assignees}
          locale={{ emptyText: t('task.noAssignees') }}
          renderItem={(assignee) => <List.Item data-testid="assignee">{userName(assignee.userId)}</List.Item>}
        />
      </Card>
      <Card title={t('task.history')} style={{ marginBottom: 16 }}>
        <List
          size="small"
          dataSource={history.data?.items ?? []}
          locale={{ emptyText: t('task.noHistory') }}
          renderItem={(entry) => (
            <List.Item data-testid="history-entry">
              {fieldName(entry.fieldId)}: {JSON.stringify(entry.oldValue)} → {JSON.stringify(entry.newValue)} (
              {new Date(entry.changedAt).toLocaleString(i18n.language)})
            </List.Item>
          )}
        />
      </Card>
      <Card title={t('task.audit')} style={{ marginBottom: 16 }}>
        <List
          size="small"
          dataSource={audit.data?.items ?? []}
          renderItem={(entry) => (
            <List.Item data-testid="audit-entry">
              {t(`task.actions.${entry.action}`, { defaultValue: entry.action })}
              {entry.actorUserId ? ` — ${userName(entry.actorUserId)}` : ''} (
              {new Date(entry.createdAt).toLocaleString(i18n.language)})
            </List.Item>
          )}
        />
      </Card>
      <Card title={t('task.chat')}>
        <List
          size="small"
          dataSource={messages.data?.items ?? []}
          locale={{ emptyText: t('task.noMessages') }}
          renderItem={(item) => <List.Item data-testid="chat-message">{item.body}</List.Item>}
        />
        <Space.Compact style={{ width: '100%', marginTop: 12 }}>
          <Input aria-label={t('task.message')} value={draft} onChange={(event) => setDraft(event.target.value)} />
          <Button
            type="primary"
            disabled={!draft.trim()}
            onClick={async () => {
              try {
                await api('POST', `/api/tasks/${current.id}/messages`, { body: draft });
                setDraft('');
                messages.reload();
              } catch (caught) {
                fail(caught);
              }
            }}
          >
            {t('task.send')}
          </Button>
        </Space.Compact>
      </Card>
    </div>
  );
}
