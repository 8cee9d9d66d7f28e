import type { GatedModule } from '@shared/api/access';
import { identityApi, type ModuleAccessMatrix } from '@shared/api/identity';
import { Button, Checkbox, Input, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { call } from '../../api';
import { useMessage } from '../../messages';
import { ActionFailed, fetchRoles, LoadFailed, problemText, useLoad } from './load';

type Matrix = z.infer<typeof ModuleAccessMatrix>;
type UserRow = Matrix['users'][number];
type RoleRow = Matrix['roles'][number];

/** Drafts are keyed by subject: `user:<id>` or `role:<id>`. */
type Draft = Record<string, GatedModule[]>;

function sameModules(a: readonly GatedModule[], b: readonly GatedModule[]): boolean {
  return a.length === b.length && a.every((module) => b.includes(module));
}

/**
 * The GPS / Finance access matrix: a checkbox per subject and module. Ticks collect in a draft
 * and are saved together, so a slip of the mouse grants nothing until Save.
 */
export function AccessTab() {
  const { t } = useTranslation();
  const message = useMessage();
  const matrix = useLoad('module-access', () => call(identityApi.getModuleAccess));
  const roles = useLoad('roles', fetchRoles);
  const [draft, setDraft] = useState<Draft>({});
  const [search, setSearch] = useState('');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();

  const modules = matrix.data?.modules ?? [];
  const saved = new Map<string, GatedModule[]>();
  for (const user of matrix.data?.users ?? []) saved.set(`user:${user.userId}`, user.modules);
  for (const role of matrix.data?.roles ?? []) saved.set(`role:${role.roleId}`, role.modules);
  const current = (key: string) => draft[key] ?? saved.get(key) ?? [];
  const changes = Object.keys(draft).length;

  const toggle = (key: string, module: GatedModule, on: boolean) => {
    const next = on ? [...current(key), module] : current(key).filter((m) => m !== module);
    setDraft((previous) => {
      const copy = { ...previous };
      if (sameModules(next, saved.get(key) ?? [])) delete copy[key];
      else copy[key] = next;
      return copy;
    });
  };

  const save = async () => {
    const body: {
      users: { userId: string; modules: GatedModule[] }[];
      roles: { roleId: string; modules: GatedModule[] }[];
    } = { users: [], roles: [] };
    for (const [key, granted] of Object.entries(draft)) {
      const [kind, id] = key.split(':') as ['user' | 'role', string];
      if (kind === 'user') body.users.push({ userId: id, modules: granted });
      else body.roles.push({ roleId: id, modules: granted });
    }
    setSaving(true);
    try {
      matrix.setData(await call(identityApi.updateModuleAccess, { body }));
      setDraft({});
      setError(undefined);
      message.success(t('settings.access.saved'));
    } catch (caught) {
      setError(problemText(caught, t));
    } finally {
      setSaving(false);
    }
  };

  const moduleName = (module: GatedModule) => t(`settings.modules.${module}`, { defaultValue: module });
  const moduleColumns = <Row extends UserRow | RoleRow>(
    subject: (row: Row) => { key: string; label: (module: string) => string },
  ) =>
    modules.map((module) => ({
      title: moduleName(module),
      key: module,
      width: 110,
      align: 'center' as const,
      render: (_: unknown, row: Row) => {
        const { key, label } = subject(row);
        // Administrators have every module whatever is stored for them.
        const admin = 'isAdmin' in row && row.isAdmin;
        return (
          <Checkbox
            aria-label={label(moduleName(module))}
            checked={admin || current(key).includes(module)}
            disabled={admin}
            onChange={(event) => toggle(key, module, event.target.checked)}
          />
        );
      },
    }));

  /** "Role (GPS, Finance)" for each role that grants the user a module, with the draft applied. */
  const grantedThrough = (userId: string) =>
    (roles.data ?? [])
      .filter((role) => role.memberIds.includes(userId))
      .map((role) => ({ name: role.name, granted: current(`role:${role.id}`).filter((m) => modules.includes(m)) }))
      .filter((role) => role.granted.length > 0)
      .map((role) => `${role.name} (${role.granted.map(moduleName).join(', ')})`);

  const needle = search.trim().toLowerCase();
  const users = (matrix.data?.users ?? []).filter((user) => user.name.toLowerCase().includes(needle));

  return (
    <div>
      <Typography.Paragraph type="secondary" style={{ maxWidth: 900 }}>
        {t('settings.access.intro')}
      </Typography.Paragraph>
      <Space wrap style={{ display: 'flex', marginBottom: 12 }}>
        <Button type="primary" disabled={changes === 0} loading={saving} onClick={save}>
          {t('settings.access.save')}
        </Button>
        <Button disabled={changes === 0 || saving} onClick={() => setDraft({})}>
          {t('settings.access.reset')}
        </Button>
        {changes > 0 && (
          <Typography.Text type="warning" data-testid="access-unsaved">
            {t('settings.access.unsaved', { count: changes })}
          </Typography.Text>
        )}
      </Space>
      {matrix.error && <LoadFailed error={matrix.error} onRetry={matrix.reload} />}
      {roles.error && <LoadFailed error={roles.error} onRetry={roles.reload} />}
      <ActionFailed error={error} onClose={() => setError(undefined)} />
      <div style={{ display: 'flex', flexWrap: 'wrap', alignItems: 'flex-start', gap: 24 }}>
        <div style={{ minWidth: 360 }}>
          <Typography.Title level={5}>{t('settings.access.roles')}</Typography.Title>
          <Table<RoleRow>
            size="small"
            rowKey="roleId"
            loading={matrix.loading}
            dataSource={matrix.data?.roles ?? []}
            pagination={false}
            locale={{ emptyText: t('settings.access.noRoles') }}
            columns={[
              { title: t('settings.access.name'), dataIndex: 'name' },
              ...moduleColumns<RoleRow>((role) => ({
                key: `role:${role.roleId}`,
                label: (module) => t('settings.access.cellRole', { name: role.name, module }),
              })),
            ]}
          />
        </div>
        <div style={{ minWidth: 520 }}>
          <div style={{ display: 'flex', justifyContent: 'space-between', alignItems: 'baseline' }}>
            <Typography.Title level={5}>{t('settings.access.users')}</Typography.Title>
            <Input.Search
              aria-label={t('settings.access.search')}
              placeholder={t('settings.access.search')}
              allowClear
              size="small"
              value={search}
              onChange={(event) => setSearch(event.target.value)}
              style={{ width: 220 }}
            />
          </div>
          <Table<UserRow>
            size="small"
            rowKey="userId"
            loading={matrix.loading}
            dataSource={users}
            pagination={{ pageSize: 50, size: 'small', hideOnSinglePage: true, showSizeChanger: false }}
            locale={{ emptyText: t('settings.access.noUsers') }}
            columns={[
              {
                title: t('settings.access.person'),
                dataIndex: 'name',
                render: (name: string, user) => {
                  const via = grantedThrough(user.userId);
                  return (
                    <Space size={4} wrap>
                      {name}
                      {user.isAdmin && <Tag color="blue">{t('settings.access.adminAll')}</Tag>}
                      {!user.isAdmin && via.length > 0 && (
                        <Typography.Text type="secondary">
                          {t('settings.access.viaRole', { roles: via.join(', ') })}
                        </Typography.Text>
                      )}
                    </Space>
                  );
                },
              },
              ...moduleColumns<UserRow>((user) => ({
                key: `user:${user.userId}`,
                label: (module) => t('settings.access.cellUser', { name: user.name, module }),
              })),
            ]}
          />
        </div>
      </div>
    </div>
  );
}
