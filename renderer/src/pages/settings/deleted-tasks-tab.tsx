import type { DeletedTask, DeletedTaskList } from '@shared/api/tasks';
import { App, Button, Table, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { api } from '../../api';
import { ActionFailed, formatDateTime, LoadFailed, problemText } from './load';

const PAGE_SIZE = 50;

/**
 * The organization's deleted tasks, most recently deleted first, page after page: an administrator
 * brings one back as it was (its values, assignees and history), for everyone who saw it.
 */
export function DeletedTasksTab() {
  const { t, i18n } = useTranslation();
  const { message } = App.useApp();
  const [items, setItems] = useState<DeletedTask[]>();
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState<string>();
  const [actionError, setActionError] = useState<string>();
  const [restoring, setRestoring] = useState<string>();
  // A page asked for after a newer request (a retry) is not shown.
  const request = useRef(0);

  const load = async (cursor: string | null) => {
    const asked = ++request.current;
    setLoading(true);
    try {
      const query = `limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await api<DeletedTaskList>('GET', `/api/tasks/deleted?${query}`);
      if (asked !== request.current) return;
      setItems((shown) => (cursor ? [...(shown ?? []), ...page.items] : page.items));
      setNextCursor(page.nextCursor);
      setLoadError(undefined);
    } catch (caught) {
      if (asked === request.current) setLoadError(problemText(caught, t));
    } finally {
      if (asked === request.current) setLoading(false);
    }
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: the first page, once.
  useEffect(() => {
    void load(null);
  }, []);

  const restore = async (task: DeletedTask) => {
    setRestoring(task.id);
    try {
      await api('POST', `/api/tasks/${task.id}/restore`);
      setItems((shown) => shown?.filter((item) => item.id !== task.id));
      setActionError(undefined);
      message.success(
        <span data-testid="task-restored">
          {t('settings.deletedTasks.restored', { title: task.title })}{' '}
          <Link to={`/tasks/${task.id}`}>{t('settings.deletedTasks.open')}</Link>
        </span>,
      );
    } catch (caught) {
      setActionError(problemText(caught, t));
    } finally {
      setRestoring(undefined);
    }
  };

  return (
    <>
      <Typography.Paragraph type="secondary">{t('settings.deletedTasks.intro')}</Typography.Paragraph>
      {loadError && <LoadFailed error={loadError} onRetry={() => void load(null)} />}
      <ActionFailed error={actionError} onClose={() => setActionError(undefined)} />
      <Table<DeletedTask>
        rowKey="id"
        size="small"
        loading={loading && items === undefined}
        dataSource={items ?? []}
        pagination={false}
        locale={{ emptyText: items === undefined ? ' ' : t('settings.deletedTasks.empty') }}
        columns={[
          { title: t('settings.deletedTasks.title'), dataIndex: 'title' },
          { title: t('settings.deletedTasks.form'), dataIndex: 'formName' },
          {
            title: t('settings.deletedTasks.deletedAt'),
            dataIndex: 'deletedAt',
            render: (value: string) => formatDateTime(value, i18n.language),
          },
          {
            title: t('settings.deletedTasks.deletedBy'),
            dataIndex: 'deletedBy',
            render: (by: DeletedTask['deletedBy']) => by?.name ?? '—',
          },
          {
            title: t('settings.deletedTasks.actions'),
            key: 'restore',
            render: (_: unknown, task) => (
              <Button
                size="small"
                loading={restoring === task.id}
                aria-label={t('settings.deletedTasks.restoreOne', { title: task.title })}
                onClick={() => void restore(task)}
              >
                {t('settings.deletedTasks.restore')}
              </Button>
            ),
          },
        ]}
      />
      {nextCursor && (
        <Button style={{ marginTop: 12 }} loading={loading} onClick={() => void load(nextCursor)}>
          {t('settings.deletedTasks.more')}
        </Button>
      )}
    </>
  );
}
