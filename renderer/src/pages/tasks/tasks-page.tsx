import { formOpenTo } from '@shared/form-access';
import {
  Alert,
  Form as AntForm,
  Button,
  Checkbox,
  Flex,
  Input,
  Modal,
  Select,
  Space,
  Table,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { map, type Observable } from 'rxjs';
import { v7 as uuidv7 } from 'uuid';
import { useLive, useReplica, useViewer } from '../../data/replica-context';
import { replicaFailureText } from '../../data/replica-errors';
import type { FormDocument, TaskDocument } from '../../data/schemas';
import { newestTasksPage, taskListSelector } from '../../data/task-pages';
import { useMessage } from '../../messages';
import { useShortcut } from '../../shortcuts';
import { SyncMarks } from '../common/sync-marks';
import { manualAssignee, useAssignableUsers } from './assignees';
import { BatchCreateDialog } from './batch-create';
import { EDITABLE, FieldInput, storedValue, usePeople } from './field-input';
import { taskDescriptionRules, taskTitleRules } from './task-text';

type ListedTask = Required<Pick<TaskDocument, 'id' | 'formId' | 'statusId' | 'title' | 'updatedAt'>> & TaskDocument;

/** Tasks per page of the list. */
const PAGE_SIZE = 50;

/** Newer (greater) first, as plain strings: ISO timestamps and UUIDs order that way. */
function byNewest(a: string, b: string): number {
  return a === b ? 0 : a > b ? -1 : 1;
}

/**
 * Task list, read from the offline replica: filter by form, status and assignee, substring
 * search, creation of a task (also offline) and batch creation from a pasted table.
 */
export function TasksPage() {
  const { t, i18n } = useTranslation();
  const message = useMessage();
  const { replica, status, me } = useReplica();
  const viewer = useViewer();
  const [params, setParams] = useSearchParams();
  const formId = params.get('formId') ?? undefined;
  const statusId = params.get('statusId') ?? undefined;
  const mine = params.get('mine') === '1';
  const [query, setQuery] = useState('');
  const [creating, setCreating] = useState(false);
  const [batch, setBatch] = useState(false);
  const [createError, setCreateError] = useState<string>();
  const [creator] = AntForm.useForm();
  const [createFormId, setCreateFormId] = useState<string>();
  const people = usePeople();
  const assignable = useAssignableUsers();
  const search = useRef<{ focus(): void }>(null);
  useShortcut('/', () => search.current?.focus());
  useShortcut('n', () => setCreating(true));

  const forms = useLive(
    (r) => r.db.forms.find().$.pipe(map((docs) => docs.map((doc) => doc.toJSON() as unknown as FormDocument))),
    [],
  );
  // Without "mine" or a search, the list is read one page at a time through the replica's
  // (status or form, updatedAt) indexes (`newestTasksPage`). With them, the replica's storage
  // tests every task of the form and only the matching ones are read (`taskListSelector`).
  const paged = !mine && !query;
  const selector = statusId ? { statusId } : formId ? { formId } : {};
  const [page, setPage] = useState(1);
  const total = useLive((r) => (paged ? r.db.tasks.count({ selector }).$ : undefined), [paged, selector]);
  const pageTasks = useLive(
    (r) => {
      if (!paged || total === undefined) return undefined;
      const last = Math.max(1, Math.ceil(total / PAGE_SIZE));
      const at = Math.min(page, last);
      return newestTasksPage(r.db.tasks as never, selector, at, PAGE_SIZE, total) as Observable<ListedTask[]>;
    },
    [paged, selector, total, page],
  );
  const myId = me?.user.id;
  const filter = paged
    ? undefined
    : JSON.stringify(
        taskListSelector({ formId, statusId, search: query, assigneeId: mine ? (myId ?? '-') : undefined }),
      );
  const tasks = useLive(
    (r) =>
      filter === undefined
        ? undefined
        : r.db.tasks
            .find({ selector: JSON.parse(filter) })
            .$.pipe(map((docs) => docs.map((doc) => doc.toJSON() as unknown as ListedTask))),
    [filter],
  );
  const sortedForms = [...(forms ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  // The replica also holds forms of tasks assigned to the user that are not open to them, and
  // deleted forms: their tasks are listed and filtered, but only open forms take new tasks.
  const openForms = sortedForms.filter((f) => !f.deleted && viewer && formOpenTo(f.visibleRoleIds, viewer));
  const form = sortedForms.find((f) => f.id === formId);
  // Said once the replica has everything: while the first sync runs the forms may still be coming.
  const noOpenForms = Boolean(status?.ready && forms && viewer && openForms.length === 0);
  const noFormsText = me?.user.isAdmin ? t('tasks.noFormsAdmin') : t('tasks.noFormsMember');
  const statusOf = (task: ListedTask) =>
    forms?.find((f) => f.id === task.formId)?.statuses.find((s) => s.id === task.statusId);
  // Ordered once per change of the matching tasks (not per render), comparing ISO timestamps and
  // ids as plain strings (localeCompare is far slower).
  const filtered = useMemo(
    () => [...(tasks ?? [])].sort((a, b) => byNewest(a.updatedAt, b.updatedAt) || byNewest(a.id, b.id)),
    [tasks],
  );
  const shown = paged ? (pageTasks ?? []) : filtered.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const count = paged ? (total ?? 0) : filtered.length;
  const listed = paged ? pageTasks : tasks;
  // A new filter starts at the first page.
  const filterKey = JSON.stringify([formId, statusId, mine, query]);
  const [shownFilter, setShownFilter] = useState(filterKey);
  if (shownFilter !== filterKey) {
    setShownFilter(filterKey);
    setPage(1);
  }
  // Fewer tasks than before (deleted, or moved to another status): the last page that has some.
  const lastPage = Math.max(1, Math.ceil(count / PAGE_SIZE));
  if (listed !== undefined && page > lastPage) setPage(lastPage);

  const setFilter = (name: string, value: string | undefined) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    if (name === 'formId') next.delete('statusId');
    setParams(next);
  };

  const target = openForms.find((f) => f.id === (createFormId ?? formId)) ?? openForms[0];
  const targetFields = (target?.fields ?? []).filter((f) => EDITABLE.has(f.type));
  const create = async ({
    title,
    description,
    assignees,
    ...values
  }: { title: string; description?: string; assignees?: string[] } & Record<string, unknown>) => {
    const initial = target?.statuses.find((s) => s.initial) ?? target?.statuses[0];
    if (!replica || !target || !initial) return;
    const fields: Record<string, unknown> = {};
    for (const field of targetFields) {
      const stored = storedValue(field, values[field.id]);
      if ('invalid' in stored) return creator.setFields([{ name: field.id, errors: [t('task.notANumber')] }]);
      if (stored.value !== null) fields[field.id] = stored.value;
    }
    try {
      await replica.createTask({
        id: uuidv7(),
        formId: target.id,
        statusId: initial.id,
        title: title.trim(),
        description: description ?? '',
        fields,
        assignees: (assignees ?? []).map(manualAssignee),
      });
      setCreating(false);
      setCreateError(undefined);
      message.success(status?.online ? t('tasks.created') : t('tasks.createdOffline'));
    } catch (caught) {
      setCreateError(replicaFailureText(caught, t));
    }
  };

  return (
    <div style={{ padding: 24 }}>
      <Space style={{ marginBottom: 16, width: '100%', justifyContent: 'space-between' }} wrap>
        <Typography.Title level={3} style={{ margin: 0 }}>
          {t('tasks.title')}
        </Typography.Title>
        <Space wrap>
          <Select
            aria-label={t('tasks.form')}
            style={{ width: 220 }}
            value={formId ?? ''}
            onChange={(value: string) => setFilter('formId', value || undefined)}
            options={[
              { value: '', label: t('tasks.allForms') },
              ...sortedForms.map((f) => ({
                value: f.id,
                label: f.deleted ? t('tasks.deletedForm', { name: f.name }) : f.name,
              })),
            ]}
          />
          {form && (
            <Select
              aria-label={t('tasks.status')}
              style={{ width: 180 }}
              value={statusId ?? ''}
              onChange={(value: string) => setFilter('statusId', value || undefined)}
              options={[
                { value: '', label: t('tasks.allStatuses') },
                ...form.statuses.map((s) => ({ value: s.id, label: s.name })),
              ]}
            />
          )}
          <Checkbox checked={mine} onChange={(event) => setFilter('mine', event.target.checked ? '1' : undefined)}>
            {t('tasks.mine')}
          </Checkbox>
          <Input.Search
            ref={search as never}
            aria-label={t('tasks.search')}
            placeholder={t('tasks.search')}
            allowClear
            onSearch={setQuery}
            style={{ width: 300 }}
          />
          <Button onClick={() => setBatch(true)} disabled={!openForms.length || !status?.online}>
            {t('batch.open')}
          </Button>
          <Tooltip title={noOpenForms ? noFormsText : undefined}>
            <Button type="primary" onClick={() => setCreating(true)} disabled={!openForms.length}>
              {t('tasks.create')}
            </Button>
          </Tooltip>
        </Space>
      </Space>
      <Table<ListedTask>
        rowKey="id"
        size="small"
        // While the first sync runs an empty list means "not here yet", unless the user searched.
        loading={!listed || (!status?.ready && shown.length === 0 && !query)}
        dataSource={shown}
        // Nothing is said to be missing while the matching tasks are still being read.
        locale={{
          emptyText: !listed ? (
            ' '
          ) : query ? (
            t('tasks.nothingFound')
          ) : noOpenForms && !formId && !mine ? (
            <Flex vertical gap={8} align="center" data-testid="no-open-forms">
              <Typography.Text type="secondary">{noFormsText}</Typography.Text>
              {me?.user.isAdmin && <Link to="/forms/new">{t('tasks.createForm')}</Link>}
            </Flex>
          ) : (
            t('tasks.empty')
          ),
        }}
        pagination={{
          current: page,
          pageSize: PAGE_SIZE,
          total: count,
          onChange: setPage,
          hideOnSinglePage: true,
          showSizeChanger: false,
        }}
        columns={[
          {
            title: t('tasks.taskTitle'),
            dataIndex: 'title',
            render: (title: string, task) => (
              <>
                <Link to={`/tasks/${task.id}`}>{title}</Link>
                <SyncMarks id={task.id} />
              </>
            ),
          },
          { title: t('tasks.status'), render: (_, task) => <Tag>{statusOf(task)?.name ?? ''}</Tag>, width: 160 },
          {
            title: t('tasks.updated'),
            dataIndex: 'updatedAt',
            width: 200,
            render: (value: string) => new Date(value).toLocaleString(i18n.language),
          },
        ]}
      />
      <Modal
        title={t('tasks.create')}
        open={creating}
        onCancel={() => setCreating(false)}
        afterOpenChange={(open) => {
          if (!open) setCreateFormId(undefined);
        }}
        footer={null}
        destroyOnHidden
      >
        {createError && <Alert type="error" title={createError} role="alert" style={{ marginBottom: 12 }} />}
        <AntForm form={creator} layout="vertical" onFinish={create}>
          <AntForm.Item label={t('tasks.form')}>
            <Select
              aria-label={t('tasks.newTaskForm')}
              value={target?.id}
              onChange={(value: string) => setCreateFormId(value)}
              options={openForms.map((f) => ({ value: f.id, label: f.name }))}
            />
          </AntForm.Item>
          <AntForm.Item name="title" label={t('tasks.taskTitle')} rules={taskTitleRules(t)}>
            <Input autoFocus />
          </AntForm.Item>
          <AntForm.Item name="description" label={t('tasks.description')} rules={taskDescriptionRules(t)}>
            <Input.TextArea rows={3} />
          </AntForm.Item>
          <AntForm.Item name="assignees" label={t('task.assignees')}>
            <Select
              mode="multiple"
              aria-label={t('task.assignees')}
              optionFilterProp="label"
              options={(assignable ?? []).map((user) => ({ value: user.id, label: user.name }))}
            />
          </AntForm.Item>
          {targetFields.map((field) => (
            <AntForm.Item
              key={field.id}
              name={field.id}
              label={field.name}
              valuePropName={field.type === 'checkbox' ? 'checked' : 'value'}
              rules={
                field.required && field.type !== 'checkbox'
                  ? [{ required: true, message: t('errors.required') }]
                  : undefined
              }
            >
              <FieldInput field={field} people={people} />
            </AntForm.Item>
          ))}
          <Space>
            <Button type="primary" htmlType="submit">
              {t('tasks.save')}
            </Button>
            <Button onClick={() => setCreating(false)}>{t('tasks.cancel')}</Button>
          </Space>
        </AntForm>
      </Modal>
      {batch && <BatchCreateDialog forms={openForms} formId={form?.id} onClose={() => setBatch(false)} />}
    </div>
  );
}
