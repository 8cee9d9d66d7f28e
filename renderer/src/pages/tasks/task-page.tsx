import type { Form } from '@shared/api/forms';
import { type AuditEntry, tasksApi } from '@shared/api/tasks';
import { formOpenTo } from '@shared/form-access';
import type { LostEdit } from '@shared/sync';
import {
  Alert,
  Form as AntForm,
  Button,
  Card,
  Input,
  List,
  Popconfirm,
  Select,
  Space,
  Spin,
  Tooltip,
  Typography,
} from 'antd';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { map } from 'rxjs';
import { call } from '../../api';
import { useLive, useReplica, useViewer } from '../../data/replica-context';
import { replicaFailureText } from '../../data/replica-errors';
import type { FormDocument, TaskDocument } from '../../data/schemas';
import { useMessage } from '../../messages';
import { useShortcut } from '../../shortcuts';
import { failureText, saveFailureText, useCall } from '../../use-api';
import { useTaskEditWords } from '../common/edit-words';
import { LostEdits } from '../common/lost-edits';
import { NotSentMark } from '../common/sync-marks';
import { showUndoable } from '../common/undo-notice';
import { TaskQrButton } from '../qr/qr-codes';
import {
  type Assignee,
  assigneesChange,
  fieldsNaming,
  useAssignableUsers,
  useRoleMembers,
  withAssignees,
  withoutPerson,
} from './assignees';
import { EDITABLE, FieldInput, shownValue, storedValue, usePeople, useValueNames } from './field-input';
import { fieldValueText } from './field-values';
import { taskDescriptionRules, taskTitleRules } from './task-text';

/** The task's own text, edited with its fields. */
const DETAILS = ['title', 'description'] as const;

type ReplicaTask = Required<Pick<TaskDocument, 'id' | 'formId' | 'statusId' | 'title' | 'fields' | 'assignees'>> &
  TaskDocument;

/** Offline edits of this task that the server did not keep, with what it kept instead. */
function TaskLostEdits({ taskId, form, remove }: { taskId: string; form: Form; remove: () => Promise<void> }) {
  const { replica } = useReplica();
  const { label, show } = useTaskEditWords(form);
  // The value the user chose is made again, as an edit made here now (sent as any edit is).
  const apply = (edit: LostEdit) => {
    if (!replica) return undefined;
    if (edit.path === '_deleted' && edit.attempted === true) return remove;
    if (edit.path === 'title' || edit.path === 'description') {
      return () => replica.changeTask(taskId, { [edit.path]: String(edit.attempted ?? '') });
    }
    if (edit.path === 'statusId' && typeof edit.attempted === 'string') {
      const statusId = edit.attempted;
      return () => replica.changeTask(taskId, { statusId });
    }
    if (edit.path === 'assignees' && Array.isArray(edit.attempted)) {
      const userIds = edit.attempted.map(String);
      return async () => {
        const current = (await replica.db.tasks.findOne(taskId).exec())?.toJSON().assignees ?? [];
        await replica.changeTask(taskId, { assignees: withAssignees(current as Assignee[], userIds) });
      };
    }
    const field = /^fields\.(.+)$/.exec(edit.path)?.[1];
    if (field) return () => replica.changeTask(taskId, { fields: { [field]: edit.attempted ?? null } });
    return undefined;
  };
  return <LostEdits recordId={taskId} label={label} show={show} apply={apply} />;
}

/**
 * One task, read from the offline replica: its fields by type and status moves (saved on this
 * device and sent when online), edits the server did not keep, and — online — the change history,
 * audit and discussion. The view is recorded on open.
 */
export function TaskPage() {
  const { t, i18n } = useTranslation();
  const message = useMessage();
  const { taskId = '' } = useParams();
  const { replica, status, me } = useReplica();
  const viewer = useViewer();
  const navigate = useNavigate();
  const online = status?.online ?? false;
  const task = useLive(
    (r) => r.db.tasks.findOne(taskId).$.pipe(map((doc) => (doc ? (doc.toJSON() as unknown as ReplicaTask) : null))),
    [taskId],
  );
  const formId = task?.formId ?? '';
  const form = useLive(
    (r) => r.db.forms.findOne(formId).$.pipe(map((doc) => (doc ? (doc.toJSON() as unknown as FormDocument) : null))),
    [formId],
  );
  // Server-side records, shown while connected; reloaded whenever the server's copy of the task changes.
  const serverVersion = online ? task?.updatedAt : undefined;
  const history = useCall(tasksApi.getTaskFieldHistory, serverVersion ? { params: { taskId } } : undefined);
  const messages = useCall(tasksApi.listTaskMessages, online ? { params: { taskId } } : undefined);
  const audit = useCall(tasksApi.getTaskAudit, serverVersion ? { params: { taskId } } : undefined);
  const { reload: reloadHistory } = history;
  const { reload: reloadAudit } = audit;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new server version is the reload trigger.
  useEffect(() => {
    reloadHistory();
    reloadAudit();
  }, [serverVersion, reloadHistory, reloadAudit]);
  // The server answered a push of this task: its history and audit have the change now.
  useEffect(() => {
    const subscription = replica?.pushed$.subscribe((ids) => {
      if (!ids.includes(taskId)) return;
      reloadHistory();
      reloadAudit();
    });
    return () => subscription?.unsubscribe();
  }, [replica, taskId, reloadHistory, reloadAudit]);
  const people = usePeople();
  const { userName } = people;
  /** The returning assignee has seen what their substitute did (on this device; sent when online). */
  const acknowledge = async () => {
    try {
      await replica?.acknowledgeDelegation(taskId);
      message.success(online ? t('task.acknowledged') : t('task.acknowledgedOffline'));
    } catch (caught) {
      message.error(failureText(caught, t));
    }
  };
  const activeUsers = useAssignableUsers();
  const roleMembers = useRoleMembers();
  const names = useValueNames(form?.fields ?? []);
  const [error, setError] = useState<string>();
  const [draft, setDraft] = useState('');
  const [editor] = AntForm.useForm();
  const chatInput = useRef<HTMLInputElement>(null);

  // The view is recorded on opening, whether or not the replica is connected yet, and again when
  // the connection comes back (a view made without the server is not recorded).
  useEffect(() => {
    void online;
    void call(tasksApi.recordTaskView, { params: { taskId } }).catch(() => undefined);
  }, [taskId, online]);
  useShortcut('Mod+s', () => editor.submit());
  // Values that arrive (from the server, or saved here) replace what the user has not touched —
  // before any click is handled (a layout effect), as a save compares the fields with the task shown.
  const valuesKey = JSON.stringify([task?.title, task?.description, task?.fields ?? null]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `valuesKey` stands for the task's values.
  useLayoutEffect(() => {
    if (!task || !form) return;
    editor.setFields([
      ...DETAILS.filter((name) => !editor.isFieldTouched(name)).map((name) => ({ name, value: task[name] ?? '' })),
      ...form.fields
        .filter((field) => EDITABLE.has(field.type) && !editor.isFieldTouched(field.id))
        .map((field) => ({ name: field.id, value: shownValue(field, task.fields[field.id]) })),
    ]);
  }, [valuesKey, form, editor]);

  const fail = (caught: unknown) => setError(saveFailureText(caught, t));

  if (!replica || task === undefined || (task === null && !status?.ready)) {
    return <Spin description={t('home.loading')} style={{ display: 'block', padding: 48 }} />;
  }
  if (task === null) {
    return (
      <div style={{ padding: 24 }}>
        <Alert type="error" role="alert" title={t('task.notFound')} />
        <Link to="/tasks">← {t('task.back')}</Link>
      </div>
    );
  }
  // A form not on the replica: still arriving while the first sync runs; offline, it cannot arrive
  // until the connection is back (a first sync cut short), which the user is told instead of a
  // spinner; synced and still missing, the user may not read it.
  if (form === null && (!online || status?.ready)) {
    return (
      <div style={{ padding: 24 }}>
        <Alert
          type="warning"
          role="alert"
          data-testid="task-form-missing"
          title={online ? t('task.formUnavailable') : t('task.formNotDownloaded')}
        />
        <Link to="/tasks">← {t('task.back')}</Link>
      </div>
    );
  }
  if (!form) return <Spin description={t('home.loading')} style={{ display: 'block', padding: 48 }} />;
  const current = task;
  const fields = form.fields.filter((f) => EDITABLE.has(f.type));
  const initial = {
    title: current.title,
    description: current.description ?? '',
    ...Object.fromEntries(fields.map((f) => [f.id, shownValue(f, current.fields[f.id])])),
  };
  const moves = form.transitions
    .filter((move) => move.from === current.statusId)
    .map((move) => form.statuses.find((s) => s.id === move.to))
    .filter((next) => next !== undefined);
  // Saved on this device like any edit, and merged per person when it reaches the server. The people
  // chosen here are put on and taken off the task as the replica holds it when written.
  const changeAssignees = async (userIds: string[], fields?: Record<string, unknown>) => {
    try {
      await replica.changeTask(current.id, { assign: assigneesChange(current.assignees, userIds), fields });
      setError(undefined);
    } catch (caught) {
      fail(caught);
    }
  };
  // As the server allows: its author, an administrator, or someone the form is open to.
  const mayDelete =
    viewer !== undefined &&
    (viewer.isAdmin || current.createdBy === me?.user.id || formOpenTo(form.visibleRoleIds, viewer));
  /**
   * Deletes the task on this device (sent as any change is) and goes back to its list, offering
   * for a while to take the deletion back.
   */
  const remove = async () => {
    const deleted = { ...current };
    const { id, title } = deleted;
    await replica.removeTask(id);
    showUndoable(message, {
      key: `deleted-${id}`,
      text: online ? t('task.deletedDone') : t('task.deletedOffline'),
      undoLabel: t('task.undoDelete'),
      testId: 'task-deleted',
      undo: async () => {
        try {
          // Keyed: a second undo of the same task replaces the first one's notice.
          const key = `task-restored-${id}`;
          if (await replica.restoreTask(deleted)) message.success({ key, content: t('task.restored', { title }) });
          else message.info({ key, content: t('task.restoreNothing') });
        } catch (caught) {
          message.error(replicaFailureText(caught, t));
        }
      },
    });
    navigate(`/tasks?formId=${current.formId}`);
  };
  const fieldName = (id: string) => form.fields.find((f) => f.id === id)?.name ?? id;
  const quotedList = (names: string[]) => names.map((name) => t('task.quoted', { name })).join(', ');
  const statusName = (id: unknown) => form.statuses.find((s) => s.id === id)?.name ?? String(id);
  const valueText = (fieldId: string, value: unknown) =>
    fieldValueText(
      form.fields.find((f) => f.id === fieldId),
      value,
      names,
    );
  const byWhom = (userId: string | null) => (userId ? ` · ${userName(userId)}` : '');
  const when = (at: string) => ` (${new Date(at).toLocaleString(i18n.language)})`;
  /** An activity entry in words: what was done, to what. */
  const auditText = ({ action, details }: AuditEntry) => {
    const done = t(`task.actions.${action}`, { defaultValue: action });
    let what = '';
    if (action === 'status_changed') {
      what = `${statusName(details.fromStatusId)} → ${statusName(details.toStatusId)}`;
      if (typeof details.comment === 'string') what += ` «${details.comment}»`;
    } else if (action === 'updated') {
      what = [
        details.title ? t('tasks.taskTitle') : undefined,
        details.description ? t('tasks.description') : undefined,
        ...(Array.isArray(details.fields) ? details.fields.map((id) => fieldName(String(id))) : []),
      ]
        .filter(Boolean)
        .join(', ');
    } else if ((action === 'assignee_added' || action === 'assignee_removed') && typeof details.userId === 'string') {
      what = userName(details.userId);
    }
    return what ? `${done}: ${what}` : done;
  };

  const save = async (values: Record<string, unknown>) => {
    // The title and description as the server keeps them (a title trimmed, as it trims it).
    const details: Partial<Record<(typeof DETAILS)[number], string>> = {};
    const title = typeof values.title === 'string' ? values.title.trim() : current.title;
    if (title !== current.title) details.title = title;
    const description = typeof values.description === 'string' ? values.description : (current.description ?? '');
    if (description !== (current.description ?? '')) details.description = description;
    const changed: Record<string, unknown> = {};
    for (const field of fields) {
      if (!(field.id in values)) continue;
      const stored = storedValue(field, values[field.id]);
      if ('invalid' in stored) {
        editor.setFields([{ name: field.id, errors: [t('task.notANumber')] }]);
        return;
      }
      if (JSON.stringify(stored.value) !== JSON.stringify(current.fields[field.id] ?? null)) {
        changed[field.id] = stored.value;
      }
    }
    const untouch = () =>
      editor.setFields([
        ...DETAILS.map((name) => ({ name, touched: false, value: details[name] ?? current[name] ?? '' })),
        ...fields.map((field) => ({
          name: field.id,
          touched: false,
          ...(field.id in changed ? { value: shownValue(field, changed[field.id]) } : {}),
        })),
      ]);
    if (Object.keys(changed).length === 0 && Object.keys(details).length === 0) return untouch();
    try {
      await replica.changeTask(current.id, {
        ...details,
        ...(Object.keys(changed).length > 0 ? { fields: changed } : {}),
      });
      untouch();
      setError(undefined);
      message.success(online ? t('task.saved') : t('task.savedOffline'));
    } catch (caught) {
      fail(caught);
    }
  };

  return (
    <div style={{ maxWidth: 960, margin: '0 auto', padding: 24 }}>
      <Link to={`/tasks?formId=${current.formId}`}>← {t('task.back')}</Link>
      <Typography.Title level={3}>
        {current.title}
        <NotSentMark id={current.id} />
      </Typography.Title>
      {error && <Alert type="error" title={error} role="alert" style={{ marginBottom: 16 }} />}
      {form.deleted && (
        <Alert
          type="info"
          data-testid="task-form-deleted"
          title={t('task.formDeleted', { name: form.name })}
          style={{ marginBottom: 16 }}
        />
      )}
      <TaskLostEdits taskId={current.id} form={form} remove={remove} />
      <Space style={{ marginBottom: 16 }}>
        <Typography.Text strong data-testid="task-status">
          {form.statuses.find((s) => s.id === current.statusId)?.name}
        </Typography.Text>
        <Select
          aria-label={t('task.moveTo')}
          placeholder={t('task.moveTo')}
          style={{ width: 220 }}
          value={null}
          disabled={moves.length === 0}
          options={moves.map((next) => ({ value: next.id, label: next.name }))}
          onChange={async (statusId: string) => {
            try {
              // Checked again by the server when it arrives; a refused move comes back as a lost edit.
              await replica.changeTask(current.id, { statusId });
              setError(undefined);
            } catch (caught) {
              fail(caught);
            }
          }}
        />
        {form.qr_generation_enabled && <TaskQrButton taskId={current.id} title={current.title} />}
        {mayDelete && (
          <Popconfirm
            title={t('task.deleteTitle')}
            description={t('task.deleteText')}
            okText={t('task.deleteConfirm')}
            cancelText={t('task.deleteCancel')}
            okButtonProps={{ danger: true }}
            onConfirm={() => remove().catch(fail)}
          >
            <Button danger>{t('task.deleteTask')}</Button>
          </Popconfirm>
        )}
      </Space>
      <Card title={t('task.fields')} style={{ marginBottom: 16 }}>
        <AntForm form={editor} layout="vertical" initialValues={initial} onFinish={save}>
          <AntForm.Item name="title" label={t('tasks.taskTitle')} rules={taskTitleRules(t)}>
            <Input aria-label={t('tasks.taskTitle')} />
          </AntForm.Item>
          <AntForm.Item name="description" label={t('tasks.description')} rules={taskDescriptionRules(t)}>
            <Input.TextArea aria-label={t('tasks.description')} autoSize={{ minRows: 2, maxRows: 12 }} />
          </AntForm.Item>
          {fields.map((field) => (
            <AntForm.Item
              key={field.id}
              name={field.id}
              label={field.name}
              required={field.required}
              valuePropName={field.type === 'checkbox' ? 'checked' : 'value'}
            >
              <FieldInput field={field} people={people} />
            </AntForm.Item>
          ))}
          <Button type="primary" htmlType="submit" title="Ctrl+S">
            {t('task.save')}
          </Button>
        </AntForm>
      </Card>
      <Card title={t('task.assignees')} style={{ marginBottom: 16 }}>
        <List
          size="small"
          dataSource={current.assignees}
          locale={{ emptyText: t('task.noAssignees') }}
          renderItem={(assignee) => {
            const name = userName(assignee.userId);
            // The fields naming an active person keep them assigned (the server assigns no one
            // else through a field): the name goes out of those fields with them, or, named
            // through a role, the person stays until that field changes.
            const active = !activeUsers || activeUsers.some((user) => user.id === assignee.userId);
            const namings = active
              ? fieldsNaming(form.fields, current.fields, assignee.userId, roleMembers ?? new Map())
              : [];
            const direct = namings.filter((naming) => !naming.roleId).map((naming) => fieldName(naming.fieldId));
            const viaRole = namings.find((naming) => naming.roleId);
            const roleName = viaRole ? people.personName(`role:${viaRole.roleId}`) : '';
            const others = current.assignees.map((a) => a.userId).filter((userId) => userId !== assignee.userId);
            const takeOff = (
              <Button
                key="unassign"
                type="link"
                size="small"
                disabled={viaRole !== undefined}
                aria-label={
                  viaRole
                    ? t('task.assignedThroughRole', { name, role: roleName, field: fieldName(viaRole.fieldId) })
                    : direct.length > 0
                      ? t('task.unassignFromFields', { name, fields: quotedList(direct) })
                      : t('task.unassign', { name })
                }
                onClick={() =>
                  void changeAssignees(
                    others,
                    direct.length > 0
                      ? Object.fromEntries(
                          namings.map((naming) => [
                            naming.fieldId,
                            withoutPerson(current.fields[naming.fieldId], assignee.userId),
                          ]),
                        )
                      : undefined,
                  )
                }
              >
                ×
              </Button>
            );
            return (
              <List.Item
                data-testid="assignee"
                actions={[
                  viaRole ? (
                    <Tooltip
                      key="unassign"
                      title={t('task.assignedThroughRole', { name, role: roleName, field: fieldName(viaRole.fieldId) })}
                    >
                      <span>{takeOff}</span>
                    </Tooltip>
                  ) : (
                    takeOff
                  ),
                ]}
              >
                <Space orientation="vertical" size={0}>
                  {name}
                  {assignee.delegated_from_user_id && (
                    <Typography.Text type="secondary" style={{ fontSize: 12 }} data-testid="substitute-for">
                      {t('task.substituteFor', { name: userName(assignee.delegated_from_user_id) })}
                    </Typography.Text>
                  )}
                  {assignee.pending_review && assignee.userId === me?.user.id && (
                    <Button size="small" onClick={() => void acknowledge()} data-testid="acknowledge">
                      {t('task.acknowledge')}
                    </Button>
                  )}
                  {namings.length > 0 && (
                    <Typography.Text type="secondary" style={{ fontSize: 12 }} data-testid="assignee-naming">
                      {viaRole
                        ? t('task.namedThroughRole', { role: roleName, field: fieldName(viaRole.fieldId) })
                        : t(direct.length === 1 ? 'task.namedInField' : 'task.namedInFields', {
                            fields: quotedList(direct),
                          })}
                    </Typography.Text>
                  )}
                </Space>
              </List.Item>
            );
          }}
        />
        <Select
          showSearch
          aria-label={t('task.assign')}
          placeholder={t('task.assign')}
          style={{ width: 280, marginTop: 8 }}
          value={null}
          optionFilterProp="label"
          options={(activeUsers ?? [])
            .filter((user) => !current.assignees.some((assignee) => assignee.userId === user.id))
            .map((user) => ({ value: user.id, label: user.name }))}
          onChange={(userId: string) =>
            void changeAssignees([...current.assignees.map((assignee) => assignee.userId), userId])
          }
        />
      </Card>
      <Card title={t('task.history')} style={{ marginBottom: 16 }}>
        {online ? (
          <List
            size="small"
            loading={history.loading && !history.data}
            dataSource={history.data?.items ?? []}
            locale={{ emptyText: history.error ?? t('task.noHistory') }}
            renderItem={(entry) => (
              <List.Item data-testid="history-entry">
                {fieldName(entry.fieldId)}: {valueText(entry.fieldId, entry.oldValue)} →{' '}
                {valueText(entry.fieldId, entry.newValue)}
                {byWhom(entry.actorUserId)}
                {when(entry.changedAt)}
              </List.Item>
            )}
          />
        ) : (
          <Typography.Text type="secondary">{t('task.onlineOnly')}</Typography.Text>
        )}
      </Card>
      <Card title={t('task.audit')} style={{ marginBottom: 16 }}>
        {online ? (
          <List
            size="small"
            loading={audit.loading && !audit.data}
            dataSource={audit.data?.items ?? []}
            locale={{ emptyText: audit.error ?? t('task.noHistory') }}
            renderItem={(entry) => (
              <List.Item data-testid="audit-entry">
                {auditText(entry)}
                {byWhom(entry.actorUserId)}
                {when(entry.createdAt)}
              </List.Item>
            )}
          />
        ) : (
          <Typography.Text type="secondary">{t('task.onlineOnly')}</Typography.Text>
        )}
      </Card>
      <Card title={t('task.chat')}>
        {online ? (
          <>
            <List
              size="small"
              dataSource={messages.data?.items ?? []}
              locale={{ emptyText: messages.error ?? t('task.noMessages') }}
              renderItem={(item) => <List.Item data-testid="chat-message">{item.body}</List.Item>}
            />
            <Space.Compact style={{ width: '100%', marginTop: 12 }}>
              <Input
                ref={chatInput as never}
                aria-label={t('task.message')}
                value={draft}
                onChange={(event) => setDraft(event.target.value)}
                onKeyDown={(event) => {
                  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void sendMessage();
                }}
              />
              <Button type="primary" disabled={!draft.trim()} onClick={() => void sendMessage()}>
                {t('task.send')}
              </Button>
            </Space.Compact>
          </>
        ) : (
          <Typography.Text type="secondary">{t('task.onlineOnly')}</Typography.Text>
        )}
      </Card>
    </div>
  );

  async function sendMessage() {
    if (!draft.trim()) return;
    try {
      await call(tasksApi.postTaskMessage, { params: { taskId: current.id }, body: { body: draft } });
      setDraft('');
      messages.reload();
    } catch (caught) {
      fail(caught);
    }
  }
}
