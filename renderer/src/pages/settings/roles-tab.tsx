import { identityApi, type Role, type User } from '@shared/api/identity';
import { Button, Form, Input, Popconfirm, Select, Space, Table, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../api';
import { useMessage } from '../../messages';
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

/** Picks the members of a role; deactivated people stay listed so that removing them is possible. */
function MembersDialog({
  role,
  users,
  onClose,
  onDone,
}: {
  role: Role;
  users: User[];
  onClose: () => void;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const message = useMessage();
  const [memberIds, setMemberIds] = useState<string[]>(role.memberIds);
  const options = users
    .filter((user) => user.status !== 'deactivated' || role.memberIds.includes(user.id))
    .map((user) => ({
      value: user.id,
      label: user.status === 'deactivated' ? t('settings.roles.deactivatedMark', { name: user.name }) : user.name,
    }));

  const save = useDialogAction(async () => {
    await call(identityApi.setRoleMembers, { params: { roleId: role.id }, body: { userIds: memberIds } });
    message.success(t('settings.roles.membersSaved', { name: role.name }));
    onDone();
  });

  return (
    <ActionDialog
      title={t('settings.roles.membersTitle', { name: role.name })}
      okText={t('settings.save')}
      busy={save.busy}
      error={save.error}
      onOk={() => void save.run()}
      onCancel={onClose}
    >
      <Select
        mode="multiple"
        aria-label={t('settings.roles.membersField')}
        placeholder={t('settings.roles.membersField')}
        showSearch={{ optionFilterProp: 'label' }}
        value={memberIds}
        onChange={setMemberIds}
        options={options}
        style={{ width: '100%' }}
      />
    </ActionDialog>
  );
}

function RenameDialog({ role, onClose, onDone }: { role: Role; onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation();
  const message = useMessage();
  const [form] = Form.useForm<{ name: string }>();

  const submit = useDialogAction(async ({ name }: { name: string }) => {
    await call(identityApi.renameRole, { params: { roleId: role.id }, body: { name } });
    message.success(t('settings.roles.renamed'));
    onDone();
  });

  return (
    <ActionDialog
      title={t('settings.roles.renameTitle', { name: role.name })}
      okText={t('settings.save')}
      busy={submit.busy}
      error={submit.error}
      onOk={() => form.submit()}
      onCancel={onClose}
    >
      <Form form={form} name="rename-role" layout="vertical" initialValues={{ name: role.name }} onFinish={submit.run}>
        <Form.Item
          name="name"
          label={t('settings.roles.name')}
          rules={[{ required: true, whitespace: true, message: t('errors.required') }]}
          style={{ marginBottom: 0 }}
        >
          <Input autoComplete="off" autoFocus />
        </Form.Item>
      </Form>
    </ActionDialog>
  );
}

/** Roles of the organization: create, rename, delete, and who belongs to each. */
export function RolesTab() {
  const { t, i18n } = useTranslation();
  const message = useMessage();
  const roles = useLoad('roles', fetchRoles);
  const users = useLoad('users', fetchAllUsers);
  const [newName, setNewName] = useState('');
  const [creating, setCreating] = useState(false);
  const [dialog, setDialog] = useState<{ kind: 'members' | 'rename'; role: Role }>();
  const [error, setError] = useState<string>();

  const userName = new Map((users.data ?? []).map((user) => [user.id, user.name]));

  const create = async () => {
    const name = newName.trim();
    if (!name) return;
    setCreating(true);
    try {
      await call(identityApi.createRole, { body: { name } });
      setNewName('');
      setError(undefined);
      message.success(t('settings.roles.created', { name }));
      roles.reload();
    } catch (caught) {
      setError(problemText(caught, t));
    } finally {
      setCreating(false);
    }
  };
  const remove = async (role: Role) => {
    try {
      await call(identityApi.deleteRole, { params: { roleId: role.id } });
      setError(undefined);
      message.success(t('settings.roles.deleted', { name: role.name }));
    } catch (caught) {
      setError(problemText(caught, t));
    }
    roles.reload();
  };
  const closeDialog = (changed: boolean) => {
    setDialog(undefined);
    if (changed) roles.reload();
  };

  return (
    <div>
      <Space.Compact style={{ marginBottom: 12 }}>
        <Input
          aria-label={t('settings.roles.newName')}
          placeholder={t('settings.roles.newName')}
          value={newName}
          maxLength={200}
          onChange={(event) => setNewName(event.target.value)}
          onPressEnter={create}
          style={{ width: 280 }}
        />
        <Button type="primary" loading={creating} disabled={!newName.trim()} onClick={create}>
          {t('settings.roles.create')}
        </Button>
      </Space.Compact>
      {roles.error && <LoadFailed error={roles.error} onRetry={roles.reload} />}
      {users.error && <LoadFailed error={users.error} onRetry={users.reload} />}
      <ActionFailed error={error} onClose={() => setError(undefined)} />
      <Table<Role>
        size="small"
        rowKey="id"
        loading={roles.loading}
        dataSource={roles.data ?? []}
        pagination={{ pageSize: 50, size: 'small', hideOnSinglePage: true, showSizeChanger: false }}
        locale={{ emptyText: t('settings.roles.empty') }}
        onRow={(role) => ({ 'data-testid': 'role-row', 'data-name': role.name }) as React.HTMLAttributes<HTMLElement>}
        columns={[
          {
            title: t('settings.roles.name'),
            dataIndex: 'name',
            sorter: (a, b) => a.name.localeCompare(b.name, i18n.language),
          },
          {
            title: t('settings.roles.members'),
            dataIndex: 'memberIds',
            render: (ids: string[]) =>
              ids.length === 0
                ? t('settings.roles.noMembers')
                : ids.map((id) => (
                    <Tag key={id} style={{ marginBottom: 2 }}>
                      {userName.get(id) ?? '…'}
                    </Tag>
                  )),
          },
          {
            title: t('settings.roles.count'),
            dataIndex: 'memberIds',
            key: 'count',
            render: (ids: string[]) => ids.length,
          },
          {
            title: t('settings.roles.added'),
            dataIndex: 'createdAt',
            render: (iso: string) => formatDateTime(iso, i18n.language),
          },
          {
            title: t('settings.roles.actions'),
            key: 'actions',
            render: (_, role) => (
              <Space size={0} wrap>
                <Button
                  type="link"
                  size="small"
                  disabled={!users.data}
                  aria-label={t('settings.roles.manageOf', { name: role.name })}
                  onClick={() => setDialog({ kind: 'members', role })}
                >
                  {t('settings.roles.manage')}
                </Button>
                <Button
                  type="link"
                  size="small"
                  aria-label={t('settings.roles.renameOf', { name: role.name })}
                  onClick={() => setDialog({ kind: 'rename', role })}
                >
                  {t('settings.roles.rename')}
                </Button>
                <Popconfirm
                  title={t('settings.roles.deleteConfirm', { name: role.name })}
                  okText={t('settings.roles.delete')}
                  okButtonProps={{ danger: true }}
                  cancelText={t('settings.cancel')}
                  onConfirm={() => remove(role)}
                >
                  <Button
                    type="link"
                    size="small"
                    danger
                    aria-label={t('settings.roles.deleteOf', { name: role.name })}
                  >
                    {t('settings.roles.delete')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      {dialog?.kind === 'members' && (
        <MembersDialog
          role={dialog.role}
          users={users.data ?? []}
          onClose={() => closeDialog(false)}
          onDone={() => closeDialog(true)}
        />
      )}
      {dialog?.kind === 'rename' && (
        <RenameDialog role={dialog.role} onClose={() => closeDialog(false)} onDone={() => closeDialog(true)} />
      )}
    </div>
  );
}
