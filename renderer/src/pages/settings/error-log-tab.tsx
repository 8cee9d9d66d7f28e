import { botsApi } from '@shared/api/bots';
import type { CallInput } from '@shared/api/endpoint';
import { type ErrorLogEntry, errorLogApi } from '@shared/api/error-log';
import {
  App,
  Button,
  DatePicker,
  Descriptions,
  Drawer,
  Dropdown,
  Input,
  InputNumber,
  Popconfirm,
  Select,
  Space,
  Table,
  Tag,
  Typography,
} from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { call } from '../../api';
import { useMessage } from '../../messages';
import { useCall } from '../../use-api';
import { ActionFailed, fetchAllUsers, formatDateTime, LoadFailed, problemText, useLoad } from './load';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Sync messages answered with a problem are recorded under their event (`sync:pull` as PULL). */
const SYNC_METHODS = ['PULL', 'PUSH', 'AUTH'];
const PAGE_SIZES = [20, 50, 100, 200];
const FILTER_KEYS = ['status', 'code', 'method', 'path', 'since', 'until'] as const;
const OLDER_THAN = { Day: 1, Week: 7, Month: 30 } as const;

/** Which entries a deletion takes: the listed ones, those last seen before a moment, or all. */
type Deletion = CallInput<typeof errorLogApi.deleteErrorLogs>['query'];

interface Filters {
  status: number | null;
  code: string;
  method: string | undefined;
  path: string;
  period: [Dayjs | null, Dayjs | null] | null;
}

function filtersFrom(params: URLSearchParams): Filters {
  const since = params.get('since');
  const until = params.get('until');
  const status = Number(params.get('status'));
  return {
    status: Number.isInteger(status) && status > 0 ? status : null,
    code: params.get('code') ?? '',
    method: params.get('method') ?? undefined,
    path: params.get('path') ?? '',
    period: since || until ? [since ? dayjs(since) : null, until ? dayjs(until) : null] : null,
  };
}

function statusColor(status: number): string {
  return status >= 500 ? 'red' : 'orange';
}

/** One entry in full: everything the log keeps about it. */
function EntryDetails({
  entry,
  callerName,
  onClose,
  onDelete,
}: {
  entry: ErrorLogEntry;
  /** Who made the call: a user's name, a bot's, or that nobody was signed in. */
  callerName: (entry: ErrorLogEntry) => string;
  onClose: () => void;
  onDelete: () => void;
}) {
  const { t, i18n } = useTranslation();
  return (
    <Drawer
      open
      size={560}
      title={t('settings.errorLog.detailsTitle', { status: entry.status })}
      onClose={onClose}
      extra={
        <Popconfirm
          title={t('settings.errorLog.deleteEntryConfirm')}
          okText={t('settings.errorLog.confirm')}
          okButtonProps={{ danger: true }}
          cancelText={t('settings.cancel')}
          onConfirm={onDelete}
        >
          <Button danger size="small">
            {t('settings.errorLog.deleteEntry')}
          </Button>
        </Popconfirm>
      }
    >
      <Descriptions
        size="small"
        column={1}
        bordered
        data-testid="error-details"
        items={[
          { key: 'status', label: t('settings.errorLog.status'), children: entry.status },
          { key: 'method', label: t('settings.errorLog.method'), children: entry.method },
          {
            key: 'path',
            label: t('settings.errorLog.path'),
            children: <Typography.Text code>{entry.path}</Typography.Text>,
          },
          { key: 'code', label: t('settings.errorLog.code'), children: entry.code ?? '—' },
          {
            key: 'message',
            label: t('settings.errorLog.message'),
            children: (
              <Typography.Paragraph style={{ margin: 0, whiteSpace: 'pre-wrap' }}>{entry.message}</Typography.Paragraph>
            ),
          },
          { key: 'count', label: t('settings.errorLog.count'), children: entry.count },
          {
            key: 'first',
            label: t('settings.errorLog.firstSeen'),
            children: formatDateTime(entry.firstSeenAt, i18n.language),
          },
          {
            key: 'last',
            label: t('settings.errorLog.lastSeen'),
            children: formatDateTime(entry.lastSeenAt, i18n.language),
          },
          {
            key: 'request',
            label: t('settings.errorLog.requestId'),
            children: (
              <Typography.Text copyable code data-testid="error-request-id">
                {entry.requestId}
              </Typography.Text>
            ),
          },
          {
            key: 'user',
            label: t('settings.errorLog.user'),
            children: callerName(entry),
          },
        ]}
      />
      <Typography.Paragraph type="secondary" style={{ marginTop: 12 }}>
        {t('settings.errorLog.noStack')}
      </Typography.Paragraph>
    </Drawer>
  );
}

/** The organization's error log: filters and pages kept in the address, details, and deletion. */
export function ErrorLogTab() {
  const { t, i18n } = useTranslation();
  const { modal } = App.useApp();
  const message = useMessage();
  const [params, setParams] = useSearchParams();
  const [filters, setFilters] = useState<Filters>(() => filtersFrom(params));
  // Cursors of the pages before the current one ('' is the first page): the API pages forward only.
  const [previous, setPrevious] = useState<string[]>([]);
  const [selected, setSelected] = useState<string[]>([]);
  const [open, setOpen] = useState<ErrorLogEntry>();
  const [error, setError] = useState<string>();
  const limit = PAGE_SIZES.includes(Number(params.get('limit'))) ? Number(params.get('limit')) : 50;
  const filter = (key: (typeof FILTER_KEYS)[number]) => params.get(key) || undefined;
  const status = filter('status');
  const cursor = params.get('cursor');
  const list = useCall(errorLogApi.listErrorLogs, {
    query: {
      status: status === undefined ? undefined : Number(status),
      code: filter('code'),
      method: filter('method'),
      path: filter('path'),
      since: filter('since'),
      until: filter('until'),
      limit,
      cursor: cursor || undefined,
    },
  });
  const users = useLoad('users', fetchAllUsers);
  const filtered = FILTER_KEYS.some((key) => params.has(key));

  const bots = useLoad('bots', () => call(botsApi.listBots));
  const callerName = (entry: ErrorLogEntry) => {
    if (entry.userId) return users.data?.find((user) => user.id === entry.userId)?.name ?? entry.userId;
    if (entry.botId) {
      const name = bots.data?.items.find((bot) => bot.id === entry.botId)?.name ?? entry.botId;
      return t('settings.errorLog.bot', { name });
    }
    return t('settings.errorLog.anonymous');
  };

  /** Goes to the first page of what the address describes after `change`. */
  const showFirstPage = (change: (next: URLSearchParams) => void) => {
    const next = new URLSearchParams(params);
    change(next);
    next.delete('cursor');
    setParams(next);
    setPrevious([]);
    setSelected([]);
  };
  const apply = () =>
    showFirstPage((next) => {
      for (const key of FILTER_KEYS) next.delete(key);
      if (filters.status) next.set('status', String(filters.status));
      if (filters.code.trim()) next.set('code', filters.code.trim());
      if (filters.method) next.set('method', filters.method);
      if (filters.path.trim()) next.set('path', filters.path.trim());
      const [since, until] = filters.period ?? [null, null];
      if (since) next.set('since', since.toISOString());
      if (until) next.set('until', until.toISOString());
    });
  const clear = () => {
    setFilters(filtersFrom(new URLSearchParams()));
    showFirstPage((next) => {
      for (const key of FILTER_KEYS) next.delete(key);
    });
  };
  const goTo = (target: string | null, stack: string[]) => {
    const next = new URLSearchParams(params);
    if (target) next.set('cursor', target);
    else next.delete('cursor');
    setParams(next);
    setPrevious(stack);
    setSelected([]);
  };

  const remove = async (which: Deletion) => {
    try {
      const result = await call(errorLogApi.deleteErrorLogs, { query: which });
      setError(undefined);
      message.success(t('settings.errorLog.deletedCount', { count: result.deleted }));
      setOpen(undefined);
    } catch (caught) {
      setError(problemText(caught, t));
    }
    if (cursor) showFirstPage(() => undefined);
    else {
      setSelected([]);
      list.reload();
    }
  };
  const removeOlder = (days: number, label: string) =>
    modal.confirm({
      title: t('settings.errorLog.deleteOlder'),
      content: label,
      okText: t('settings.errorLog.confirm'),
      okButtonProps: { danger: true },
      cancelText: t('settings.cancel'),
      onOk: () => remove({ before: dayjs().subtract(days, 'day').toISOString() }),
    });

  const entries = list.data?.items ?? [];
  const page = previous.length + 1;

  return (
    <div>
      <Typography.Paragraph type="secondary" style={{ maxWidth: 900 }}>
        {t('settings.errorLog.intro')}
      </Typography.Paragraph>
      <Space wrap style={{ display: 'flex', marginBottom: 8 }}>
        <InputNumber<number>
          aria-label={t('settings.errorLog.statusFilter')}
          placeholder={t('settings.errorLog.statusFilter')}
          min={400}
          max={599}
          precision={0}
          value={filters.status}
          onChange={(status) => setFilters({ ...filters, status })}
          onPressEnter={apply}
          style={{ width: 140 }}
        />
        <Input
          aria-label={t('settings.errorLog.codeFilter')}
          placeholder={t('settings.errorLog.codeFilter')}
          value={filters.code}
          onChange={(event) => setFilters({ ...filters, code: event.target.value })}
          onPressEnter={apply}
          style={{ width: 170 }}
        />
        <Select
          aria-label={t('settings.errorLog.methodFilter')}
          placeholder={t('settings.errorLog.anyMethod')}
          allowClear
          value={filters.method}
          onChange={(method?: string) => setFilters({ ...filters, method })}
          options={[
            ...METHODS.map((method) => ({ value: method, label: method })),
            ...SYNC_METHODS.map((method) => ({ value: method, label: t('settings.errorLog.syncMethod', { method }) })),
          ]}
          style={{ width: 200 }}
        />
        <Input
          aria-label={t('settings.errorLog.pathFilter')}
          placeholder={t('settings.errorLog.pathFilter')}
          value={filters.path}
          onChange={(event) => setFilters({ ...filters, path: event.target.value })}
          onPressEnter={apply}
          style={{ width: 220 }}
        />
        <DatePicker.RangePicker
          aria-label={t('settings.errorLog.period')}
          showTime={{ format: 'HH:mm' }}
          format="YYYY-MM-DD HH:mm"
          allowEmpty={[true, true]}
          value={filters.period}
          onChange={(period) => setFilters({ ...filters, period })}
        />
        <Button type="primary" onClick={apply}>
          {t('settings.errorLog.apply')}
        </Button>
        <Button onClick={clear} disabled={!filtered}>
          {t('settings.errorLog.clearFilters')}
        </Button>
      </Space>
      <Space wrap style={{ display: 'flex', marginBottom: 12 }}>
        <Popconfirm
          title={t('settings.errorLog.deleteSelectedConfirm', { count: selected.length })}
          okText={t('settings.errorLog.confirm')}
          okButtonProps={{ danger: true }}
          cancelText={t('settings.cancel')}
          disabled={selected.length === 0}
          onConfirm={() => remove({ ids: selected.join(',') })}
        >
          <Button danger disabled={selected.length === 0}>
            {t('settings.errorLog.deleteSelected', { count: selected.length })}
          </Button>
        </Popconfirm>
        <Dropdown
          menu={{
            items: (Object.keys(OLDER_THAN) as (keyof typeof OLDER_THAN)[]).map((key) => ({
              key,
              label: t(`settings.errorLog.olderThan${key}`),
            })),
            onClick: ({ key }) =>
              removeOlder(OLDER_THAN[key as keyof typeof OLDER_THAN], t(`settings.errorLog.olderThan${key}`)),
          }}
        >
          <Button>{t('settings.errorLog.deleteOlder')}</Button>
        </Dropdown>
        <Popconfirm
          title={t('settings.errorLog.clearAllConfirm')}
          okText={t('settings.errorLog.confirm')}
          okButtonProps={{ danger: true }}
          cancelText={t('settings.cancel')}
          onConfirm={() => remove({})}
        >
          <Button danger>{t('settings.errorLog.clearAll')}</Button>
        </Popconfirm>
      </Space>
      {list.error && <LoadFailed error={list.error} onRetry={list.reload} />}
      <ActionFailed error={error} onClose={() => setError(undefined)} />
      <Table<ErrorLogEntry>
        size="small"
        rowKey="id"
        loading={list.loading}
        dataSource={entries}
        pagination={false}
        locale={{ emptyText: filtered ? t('settings.errorLog.emptyFiltered') : t('settings.errorLog.empty') }}
        rowSelection={{
          selectedRowKeys: selected,
          onChange: (keys) => setSelected(keys.map(String)),
          getCheckboxProps: (entry) => ({
            'aria-label': t('settings.errorLog.select', { method: entry.method, path: entry.path }),
          }),
        }}
        onRow={() => ({ 'data-testid': 'error-row' }) as React.HTMLAttributes<HTMLElement>}
        columns={[
          {
            title: t('settings.errorLog.lastSeen'),
            dataIndex: 'lastSeenAt',
            width: 150,
            render: (iso: string) => formatDateTime(iso, i18n.language),
          },
          {
            title: t('settings.errorLog.status'),
            dataIndex: 'status',
            width: 80,
            render: (status: number) => <Tag color={statusColor(status)}>{status}</Tag>,
          },
          { title: t('settings.errorLog.method'), dataIndex: 'method', width: 80 },
          {
            title: t('settings.errorLog.path'),
            dataIndex: 'path',
            ellipsis: true,
            render: (path: string) => <Typography.Text code>{path}</Typography.Text>,
          },
          { title: t('settings.errorLog.code'), dataIndex: 'code', width: 170, render: (code) => code ?? '—' },
          { title: t('settings.errorLog.message'), dataIndex: 'message', ellipsis: true },
          { title: t('settings.errorLog.count'), dataIndex: 'count', width: 70, align: 'right' },
          {
            title: '',
            key: 'details',
            width: 110,
            render: (_, entry) => (
              <Button
                type="link"
                size="small"
                aria-label={t('settings.errorLog.detailsOf', { method: entry.method, path: entry.path })}
                onClick={() => setOpen(entry)}
              >
                {t('settings.errorLog.details')}
              </Button>
            ),
          },
        ]}
      />
      <Space style={{ display: 'flex', marginTop: 12 }}>
        <Button
          size="small"
          disabled={previous.length === 0 || list.loading}
          onClick={() => goTo(previous.at(-1) || null, previous.slice(0, -1))}
        >
          {t('settings.errorLog.previous')}
        </Button>
        <Typography.Text data-testid="error-log-page">{t('settings.errorLog.page', { page })}</Typography.Text>
        <Button
          size="small"
          disabled={!list.data?.nextCursor || list.loading}
          onClick={() => goTo(list.data?.nextCursor ?? null, [...previous, cursor ?? ''])}
        >
          {t('settings.errorLog.next')}
        </Button>
        <Select
          size="small"
          aria-label={t('settings.errorLog.pageSize')}
          value={limit}
          onChange={(size: number) => showFirstPage((next) => next.set('limit', String(size)))}
          options={PAGE_SIZES.map((size) => ({ value: size, label: t('settings.errorLog.perPage', { count: size }) }))}
          style={{ width: 150 }}
        />
      </Space>
      {open && (
        <EntryDetails
          entry={open}
          callerName={callerName}
          onClose={() => setOpen(undefined)}
          onDelete={() => remove({ ids: open.id })}
        />
      )}
    </div>
  );
}
