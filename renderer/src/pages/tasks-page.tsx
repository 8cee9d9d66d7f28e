import type { Form } from '@shared/api/forms';
import type { Task } from '@shared/api/tasks';
import { Alert, Form as AntForm, App, Button, Input, Modal, Select, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { ApiError, api } from '../api';
import { useApi } from '../use-api';

/** Task list: filter by form, substring search, and creation of a task. */
export function TasksPage() {
  const { t, i18n } = useTranslation();
  const { message } = App.useApp();
  const [params, setParams] = useSearchParams();
  const formId = params.get('formId') ?? undefined;
  const [query, setQuery] = useState('');
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<string>();
  const forms = useApi<{ items: Form[] }>('/api/forms');
  const path = query
    ? `/api/tasks/search?q=${encodeURIComponent(query)}&limit=100`
    : `/api/tasks?limit=100${formId ? `&formId=${formId}` : ''}`;
  const tasks = useApi<{ items: Task[] }>(path);
  const statusName = (task: Task) =>
    forms.data?.items.find((f) => f.id === task.formId)?.statuses.find((s) => s.id === task.statusId)?.name ?? '';

  const create = async (values: { title: string; description?: string }) => {
    const targetForm = formId ?? forms.data?.items[0]?.id;
    if (!targetForm) return;
    try {
      await api('POST', '/api/tasks', {
        formId: targetForm,
        title: values.title,
        description: values.description ?? '',
      });
      setCreating(false);
      setCreateError(undefined);
      message.success(t('tasks.created'));
      tasks.reload();
    } catch (caught) {
      setCreateError(
        caught instanceof ApiError && caught.problem.status > 0 ? caught.problem.detail : t('errors.network'),
      );
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
            onChange={(value: string) => setParams(value ? { formId: value } : {})}
            options={[
              { value: '', label: t('tasks.allForms') },
              ...(forms.data?.items ?? []).map((f) => ({ value: f.id, label: f.name })),
            ]}
          />
          <Input.Search
            aria-label={t('tasks.search')}
            placeholder={t('tasks.search')}
            allowClear
            onSearch={setQuery}
            style={{ width: 300 }}
          />
          <Button type="primary" onClick={() => setCreating(true)} disabled={!forms.data?.items.length}>
            {t('tasks.create')}
          </Button>
        </Space>
      </Space>
      {tasks.error && <Alert type="error" title={tasks.error} role="alert" />}
      <Table<Task>
        rowKey="id"
        size="small"
        loading={tasks.loading}
        dataSource={tasks.data?.items ?? []}
        locale={{ emptyText: t('tasks.empty') }}
        pagination={{ pageSize: 50, hideOnSinglePage: true }}
        columns={[
          {
            title: t('tasks.taskTitle'),
            dataIndex: 'title',
            render: (title: string, task) => <Link to={`/tasks/${task.id}`}>{title}</Link>,
          },
          { title: t('tasks.status'), render: (_, task) => <Tag>{statusName(task)}</Tag>, width: 160 },
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
        footer={null}
        destroyOnHidden
      >
        {createError && <Alert type="error" title={createError} role="alert" style={{ marginBottom: 12 }} />}
        <AntForm layout="vertical" onFinish={create}>
          <AntForm.Item
            name="title"
            label={t('tasks.taskTitle')}
            rules={[{ required: true, message: t('errors.required') }]}
          >
            <Input autoFocus />
          </AntForm.Item>
          <AntForm.Item name="description" label={t('tasks.description')}>
            <Input.TextArea rows={3} />
          </AntForm.Item>
          <Space>
            <Button type="primary" htmlType="submit">
              {t('tasks.save')}
            </Button>
            <Button onClick={() => setCreating(false)}>{t('tasks.cancel')}</Button>
          </Space>
        </AntForm>
      </Modal>
    </div>
  );
}
