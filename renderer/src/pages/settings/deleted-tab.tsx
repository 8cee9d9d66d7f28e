import { type DeletedDirectory, directoriesApi } from '@shared/api/directories';
import { type DeletedForm, formsApi } from '@shared/api/forms';
import { type DeletedTask, tasksApi } from '@shared/api/tasks';
import { Button, Table, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { call } from '../../api';
import { useMessage } from '../../messages';
import { usePages } from '../../use-api';
import { ActionFailed, formatDateTime, LoadFailed, problemText, useLoad } from './load';

const PAGE_SIZE = 50;

/** A deleted record as the tab restores it: named by `label`, brought back by `restore`, opened at `link`, `said` once back. */
interface Restorable {
  label: string;
  restore: () => Promise<unknown>;
  link: string;
  said: string;
}

/**
 * Restoring one row at a time from a table of deleted records: `describe(record).restore()`, then
 * `restored(record)` and a notice with a link (`testId`) to the record brought back. Gives the
 * table's last column and the refusal to show above it.
 */
function useRestore<T extends { id: string }>(options: {
  describe: (record: T) => Restorable;
  testId: string;
  restored: (record: T) => void;
}) {
  const { t } = useTranslation();
  const message = useMessage();
  const [actionError, setActionError] = useState<string>();
  const [restoring, setRestoring] = useState<string>();
  const restore = async (record: T) => {
    const described = options.describe(record);
    setRestoring(record.id);
    try {
      await described.restore();
      setActionError(undefined);
      message.success(
        <span data-testid={options.testId}>
          {described.said} <Link to={described.link}>{t('settings.deleted.open')}</Link>
        </span>,
      );
      options.restored(record);
    } catch (caught) {
      setActionError(problemText(caught, t));
    } finally {
      setRestoring(undefined);
    }
  };
  const column = {
    title: t('settings.deleted.actions'),
    key: 'restore',
    render: (_: unknown, record: T) => (
      <Button
        size="small"
        loading={restoring === record.id}
        aria-label={t('settings.deleted.restoreOne', { title: options.describe(record).label })}
        onClick={() => void restore(record)}
      >
        {t('settings.deleted.restore')}
      </Button>
    ),
  };
  const refusal = <ActionFailed error={actionError} onClose={() => setActionError(undefined)} />;
  return { column, refusal };
}

/** What the organization deleted, for an administrator to bring back: forms, tasks, directories. */
export function DeletedTab() {
  const { t } = useTranslation();
  return (
    <>
      <Typography.Title level={5}>{t('settings.deleted.forms')}</Typography.Title>
      <DeletedForms />
      <Typography.Title level={5} style={{ marginTop: 24 }}>
        {t('settings.deleted.tasks')}
      </Typography.Title>
      <DeletedTasks />
      <Typography.Title level={5} style={{ marginTop: 24 }}>
        {t('settings.deleted.directories')}
      </Typography.Title>
      <DeletedDirectories />
    </>
  );
}

/** The deleted forms, most recently deleted first; one brought back takes new tasks again. */
function DeletedForms() {
  const { t } = useTranslation();
  return (
    <DeletedRecords<DeletedForm>
      name="forms"
      load={() => call(formsApi.listDeletedForms)}
      describe={(form) => ({
        label: form.name,
        restore: () => call(formsApi.restoreForm, { params: { formId: form.id } }),
        link: `/forms/${form.id}/edit`,
        said: t('settings.deleted.formRestored', { name: form.name }),
      })}
      testId="form-restored"
      nameTitle={t('settings.deleted.form')}
      count={{ title: t('settings.deleted.taskCount'), of: (form) => form.taskCount }}
      emptyText={t('settings.deleted.noForms')}
    />
  );
}

/** The deleted directories, most recently deleted first; one brought back has all its rows, its tree as it was. */
function DeletedDirectories() {
  const { t } = useTranslation();
  return (
    <DeletedRecords<DeletedDirectory>
      name="directories"
      load={() => call(directoriesApi.listDeletedDirectories)}
      describe={(directory) => ({
        label: directory.name,
        restore: () => call(directoriesApi.restoreDirectory, { params: { directoryId: directory.id } }),
        link: `/directories/${directory.id}`,
        said: t('settings.deleted.directoryRestored', { name: directory.name }),
      })}
      testId="directory-restored"
      nameTitle={t('settings.deleted.directory')}
      count={{ title: t('settings.deleted.rowCount'), of: (directory) => directory.rowCount }}
      emptyText={t('settings.deleted.noDirectories')}
    />
  );
}

/**
 * A short list of deleted records (`GET …/deleted`, all at once), most recently deleted first, each
 * with its name, when it was deleted, what it keeps (`count`) and a button that restores it.
 */
function DeletedRecords<T extends { id: string; name: string; deletedAt: string }>(props: {
  name: string;
  load: () => Promise<{ items: T[] }>;
  describe: (record: T) => Restorable;
  testId: string;
  nameTitle: string;
  count: { title: string; of: (record: T) => number };
  emptyText: string;
}) {
  const { t, i18n } = useTranslation();
  const list = useLoad(`deleted-${props.name}`, props.load);
  const { column, refusal } = useRestore<T>({
    describe: props.describe,
    testId: props.testId,
    restored: () => list.reload(),
  });
  return (
    <>
      {list.error && <LoadFailed error={list.error} onRetry={list.reload} />}
      {refusal}
      <Table<T>
        rowKey="id"
        size="small"
        data-testid={`deleted-${props.name}`}
        loading={list.loading && !list.data}
        dataSource={list.data?.items ?? []}
        pagination={false}
        locale={{ emptyText: list.data ? props.emptyText : ' ' }}
        columns={[
          { title: props.nameTitle, dataIndex: 'name' },
          {
            title: t('settings.deleted.deletedAt'),
            dataIndex: 'deletedAt',
            render: (value: string) => formatDateTime(value, i18n.language),
          },
          { title: props.count.title, key: 'count', render: (_: unknown, record: T) => props.count.of(record) },
          column,
        ]}
      />
    </>
  );
}

/**
 * The deleted tasks, most recently deleted first, page after page: an administrator brings one
 * back as it was (its values, assignees and history), for everyone who saw it.
 */
function DeletedTasks() {
  const { t, i18n } = useTranslation();
  const pages = usePages(tasksApi.listDeletedTasks, {}, PAGE_SIZE);
  const { items } = pages;

  const { column, refusal } = useRestore<DeletedTask>({
    describe: (task) => ({
      label: task.title,
      restore: () => call(tasksApi.restoreTask, { params: { taskId: task.id } }),
      link: `/tasks/${task.id}`,
      said: t('settings.deleted.taskRestored', { title: task.title }),
    }),
    testId: 'task-restored',
    restored: (task) => pages.drop(task.id),
  });

  return (
    <>
      <Typography.Paragraph type="secondary">{t('settings.deleted.tasksIntro')}</Typography.Paragraph>
      {pages.error && <LoadFailed error={pages.error} onRetry={() => void pages.reload()} />}
      {refusal}
      <Table<DeletedTask>
        rowKey="id"
        size="small"
        data-testid="deleted-tasks"
        loading={pages.loading && items === undefined}
        dataSource={items ?? []}
        pagination={false}
        locale={{ emptyText: items === undefined ? ' ' : t('settings.deleted.noTasks') }}
        columns={[
          { title: t('settings.deleted.task'), dataIndex: 'title' },
          { title: t('settings.deleted.form'), dataIndex: 'formName' },
          {
            title: t('settings.deleted.deletedAt'),
            dataIndex: 'deletedAt',
            render: (value: string) => formatDateTime(value, i18n.language),
          },
          {
            title: t('settings.deleted.deletedBy'),
            dataIndex: 'deletedBy',
            render: (by: DeletedTask['deletedBy']) => by?.name ?? '—',
          },
          column,
        ]}
      />
      {pages.nextCursor && (
        <Button style={{ marginTop: 12 }} loading={pages.loading} onClick={() => void pages.more()}>
          {t('settings.deleted.more')}
        </Button>
      )}
    </>
  );
}
