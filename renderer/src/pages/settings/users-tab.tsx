import { identityApi, type Role, type User } from '@shared/api/identity';
import { Button, Checkbox, Drawer, Form, Input, Popconfirm, Select, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../api';
import { useMessage } from '../../messages';
import { SubstitutionCard } from '../profile/substitution-card';
import {
  ActionDialog,
  ActionFailed,
  fetchAllUsers,
  fetchRoles,
  formatDateTime,
  LoadFailed,
  problemText,
  useDialogAction,
  useLoad,
} from './load';

type Status = User['status'];
const STATUS_COLORS: Record<Status, string> = { invited: 'gold', active: 'green', deactivated: 'default' };

interface InviteValues {
  email: string;
  name: string;
  isAdmin: boolean;
  locale: 'ru' | 'en';
  roleIds: string[];
}

interface EditValues {
  name: string;
  isAdmin: boolean;
  locale: 'ru' | 'en';
  roleIds: string[];
}

/** Roles, language and the administrator flag: the same in the invitation and the edit form. */
function AccessFields({ roles }: { roles: Role[] }) {
  const { t } = useTranslation();
  return (
    <>
      <Form.Item name="roleIds" label={t('settings.users.roles')}>
        <Select
          mode="multiple"
          aria-label={t('settings.users.roles')}
          showSearch={{ optionFilterProp: 'label' }}
          options={roles.map((role) => ({ value: role.id, label: role.name }))}
        />
      </Form.Item>
      <Form.Item name="locale" label={t('settings.users.language')}>
        <Select
          aria-label={t('settings.users.language')}
          options={[
            { value: 'ru', label: t('settings.languages.ru') },
            { value: 'en', label: t('settings.languages.en') },
          ]}
        />
      </Form.Item>
      <Form.Item name="isAdmin" valuePropName="checked" style={{ marginBottom: 0 }}>
        <Checkbox>{t('settings.users.isAdmin')}</Checkbox>
      </Form.Item>
    </>
  );
}

/** The invitation form; the server mails the set-password link. */
function InviteDialog({ roles, onClose, onDone }: { roles: Role[]; onClose: () => void; onDone: () => void }) {
  const { t, i18n } = useTranslation();
  const message = useMessage();
  const [form] = Form.useForm<InviteValues>();
  const required = [{ required: true, message: t('errors.required') }];

  const submit = useDialogAction(async (values: InviteValues) => {
    const user = await call(identityApi.inviteUser, { body: { ...values, roleIds: values.roleIds ?? [] } });
    message.success(t('settings.users.invited', { email: user.email }));
    onDone();
  });

  return (
    <ActionDialog
      title={t('settings.users.inviteTitle')}
      okText={t('settings.users.send')}
      busy={submit.busy}
      error={submit.error}
      onOk={() => form.submit()}
      onCancel={onClose}
    >
      <Form
        form={form}
        name="invite"
        layout="vertical"
        requiredMark={false}
        initialValues={{ isAdmin: false, locale: i18n.language === 'en' ? 'en' : 'ru', roleIds: [] }}
        onFinish={submit.run}
      >
        <Form.Item name="email" label={t('settings.users.email')} rules={required}>
          <Input type="email" autoComplete="off" autoFocus />
        </Form.Item>
        <Form.Item name="name" label={t('settings.users.name')} rules={required}>
          <Input autoComplete="off" />
        </Form.Item>
        <AccessFields roles={roles} />
      </Form>
    </ActionDialog>
  );
}

/** Name, language, rights and roles of one user. */
function EditDialog({
  user,
  roles,
  onClose,
  onDone,
}: {
  user: User;
  roles: Role[];
  onClose: () => void;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const message = useMessage();
  const [form] = Form.useForm<EditValues>();

  const submit = useDialogAction(async (values: EditValues) => {
    await call(identityApi.updateUser, { params: { userId: user.id }, body: values });
    message.success(t('settings.users.updated'));
    onDone();
  });

  return (
    <ActionDialog
      title={t('settings.users.editTitle', { name: user.name })}
      okText={t('settings.save')}
      busy={submit.busy}
      error={submit.error}
      onOk={() => form.submit()}
      onCancel={onClose}
    >
      <Typography.Paragraph type="secondary">{user.email}</Typography.Paragraph>
      <Form
        form={form}
        name="edit-user"
        layout="vertical"
        requiredMark={false}
        initialValues={{ name: user.name, isAdmin: user.isAdmin, locale: user.locale, roleIds: user.roleIds }}
        onFinish={submit.run}
      >
        <Form.Item
          name="name"
          label={t('settings.users.name')}
          rules={[{ required: true, whitespace: true, message: t('errors.required') }]}
        >
          <Input autoComplete="off" />
        </Form.Item>
        <AccessFields roles={roles} />
      </Form>
    </ActionDialog>
  );
}

/** The organization's users: invite, resend an invitation, edit rights and roles, (de)activate. */
export function UsersTab({ myId }: { myId: string }) {
  const { t, i18n } = useTranslation();
  const message = useMessage();
  const users = useLoad('users', fetchAllUsers);
  const roles = useLoad('roles', fetchRoles);
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<Status | 'all'>('all');
  const [roleId, setRoleId] = useState<string>('all');
  const [dialog, setDialog] = useState<
    { kind: 'invite' } | { kind: 'edit'; user: User } | { kind: 'substitutes'; user: User }
  >();
  const [error, setError] = useState<string>();

  const roleList = roles.data ?? [];
  const roleName = new Map(roleList.map((role) => [role.id, role.name]));
  const all = users.data ?? [];
  const needle = search.trim().toLowerCase();
  const shown = all.filter(
    (user) =>
      (needle === '' || user.name.toLowerCase().includes(needle) || user.email.includes(needle)) &&
      (status === 'all' || user.status === status) &&
      (roleId === 'all' || user.roleIds.includes(roleId)),
  );

  const act = async (run: () => Promise<unknown>, done: string) => {
    try {
      await run();
      setError(undefined);
      message.success(done);
    } catch (caught) {
      setError(problemText(caught, t));
    }
    users.reload();
  };
  const closeDialog = (changed: boolean) => {
    setDialog(undefined);
    if (changed) users.reload();
  };

  return (
    <div>
      <Space wrap style={{ display: 'flex', marginBottom: 12 }}>
        <Input.Search
          aria-label={t('settings.users.search')}
          placeholder={t('settings.users.search')}
          allowClear
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          style={{ width: 280 }}
        />
        <Select
          aria-label={t('settings.users.statusFilter')}
          value={status}
          onChange={setStatus}
          style={{ width: 170 }}
          options={[
            { value: 'all', label: t('settings.users.allStatuses') },
            ...(['active', 'invited', 'deactivated'] as const).map((value) => ({
              value,
              label: t(`settings.statuses.${value}`),
            })),
          ]}
        />
        <Select
          aria-label={t('settings.users.roleFilter')}
          value={roleId}
          onChange={setRoleId}
          style={{ width: 200 }}
          showSearch={{ optionFilterProp: 'label' }}
          options={[
            { value: 'all', label: t('settings.users.allRoles') },
            ...roleList.map((role) => ({ value: role.id, label: role.name })),
          ]}
        />
        <Button type="primary" onClick={() => setDialog({ kind: 'invite' })}>
          {t('settings.users.invite')}
        </Button>
        {users.data && (
          <Typography.Text type="secondary">
            {t('settings.users.shown', { shown: shown.length, total: all.length })}
          </Typography.Text>
        )}
      </Space>
      {users.error && <LoadFailed error={users.error} onRetry={users.reload} />}
      {roles.error && <LoadFailed error={roles.error} onRetry={roles.reload} />}
      <ActionFailed error={error} onClose={() => setError(undefined)} />
      <Table<User>
        size="small"
        rowKey="id"
        loading={users.loading}
        dataSource={shown}
        pagination={{ pageSize: 50, size: 'small', hideOnSinglePage: true, showSizeChanger: false }}
        locale={{ emptyText: all.length === 0 ? t('settings.users.empty') : t('settings.users.noMatch') }}
        onRow={(user) => ({ 'data-testid': 'user-row', 'data-email': user.email }) as React.HTMLAttributes<HTMLElement>}
        columns={[
          {
            title: t('settings.users.name'),
            dataIndex: 'name',
            sorter: (a, b) => a.name.localeCompare(b.name, i18n.language),
            render: (name: string, user) => (
              <Space size={4}>
                {name}
                {user.id === myId && <Tag>{t('settings.users.you')}</Tag>}
              </Space>
            ),
          },
          { title: t('settings.users.email'), dataIndex: 'email' },
          {
            title: t('settings.users.rights'),
            dataIndex: 'isAdmin',
            render: (isAdmin: boolean) =>
              isAdmin ? <Tag color="blue">{t('settings.users.admin')}</Tag> : t('settings.users.member'),
          },
          {
            title: t('settings.users.roles'),
            dataIndex: 'roleIds',
            render: (ids: string[]) =>
              ids.map((id) => (
                <Tag key={id} style={{ marginBottom: 2 }}>
                  {roleName.get(id) ?? '…'}
                </Tag>
              )),
          },
          {
            title: t('settings.users.status'),
            dataIndex: 'status',
            render: (value: Status) => (
              <Tag color={STATUS_COLORS[value]} data-testid="user-status">
                {t(`settings.statuses.${value}`)}
              </Tag>
            ),
          },
          {
            title: t('settings.users.added'),
            dataIndex: 'createdAt',
            render: (iso: string) => formatDateTime(iso, i18n.language),
          },
          {
            title: t('settings.users.actions'),
            key: 'actions',
            render: (_, user) => (
              <Space size={0} wrap>
                <Button
                  type="link"
                  size="small"
                  aria-label={t('settings.users.editOf', { name: user.name })}
                  onClick={() => setDialog({ kind: 'edit', user })}
                >
                  {t('settings.users.edit')}
                </Button>
                <Button
                  type="link"
                  size="small"
                  aria-label={t('profile.substitution.openOf', { name: user.name })}
                  onClick={() => setDialog({ kind: 'substitutes', user })}
                >
                  {t('profile.substitution.open')}
                </Button>
                {user.status === 'invited' && (
                  <Button
                    type="link"
                    size="small"
                    aria-label={t('settings.users.resendOf', { name: user.name })}
                    onClick={() =>
                      act(
                        () => call(identityApi.resendInvitation, { params: { userId: user.id } }),
                        t('settings.users.resent', { email: user.email }),
                      )
                    }
                  >
                    {t('settings.users.resend')}
                  </Button>
                )}
                {user.status === 'deactivated' ? (
                  <Button
                    type="link"
                    size="small"
                    aria-label={t('settings.users.reactivateOf', { name: user.name })}
                    onClick={() =>
                      act(
                        () => call(identityApi.updateUser, { params: { userId: user.id }, body: { status: 'active' } }),
                        t('settings.users.reactivated', { name: user.name }),
                      )
                    }
                  >
                    {t('settings.users.reactivate')}
                  </Button>
                ) : (
                  // Deactivating oneself would end this very session; another administrator does it.
                  user.id !== myId && (
                    <Popconfirm
                      title={t('settings.users.deactivateConfirm', { name: user.name })}
                      okText={t('settings.users.confirm')}
                      cancelText={t('settings.cancel')}
                      onConfirm={() =>
                        act(
                          () =>
                            call(identityApi.updateUser, {
                              params: { userId: user.id },
                              body: { status: 'deactivated' },
                            }),
                          t('settings.users.deactivated', { name: user.name }),
                        )
                      }
                    >
                      <Button
                        type="link"
                        size="small"
                        danger
                        aria-label={t('settings.users.deactivateOf', { name: user.name })}
                      >
                        {t('settings.users.deactivate')}
                      </Button>
                    </Popconfirm>
                  )
                )}
              </Space>
            ),
          },
        ]}
      />
      {dialog?.kind === 'invite' && (
        <InviteDialog roles={roleList} onClose={() => closeDialog(false)} onDone={() => closeDialog(true)} />
      )}
      {dialog?.kind === 'edit' && (
        <EditDialog
          user={dialog.user}
          roles={roleList}
          onClose={() => closeDialog(false)}
          onDone={() => closeDialog(true)}
        />
      )}
      {dialog?.kind === 'substitutes' && (
        <Drawer
          open
          size="large"
          title={t('profile.substitution.of', { name: dialog.user.name })}
          onClose={() => closeDialog(false)}
        >
          <SubstitutionCard userId={dialog.user.id} users={all} editable />
        </Drawer>
      )}
    </div>
  );
}
