import { identityApi } from '@shared/api/identity';
import { Button, Result, Spin, Tabs, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, Route, Routes, useLocation, useNavigate } from 'react-router';
import { useCall } from '../../use-api';
import { AccessTab } from './access-tab';
import { AppearanceTab } from './appearance-tab';
import { AutomationsTab } from './automations-tab';
import { BotsTab } from './bots-tab';
import { DeletedTab } from './deleted-tab';
import { ErrorLogTab } from './error-log-tab';
import { GpsTab } from './gps-tab';
import { LoadFailed } from './load';
import { RolesTab } from './roles-tab';
import { UsersTab } from './users-tab';

const TABS = ['users', 'roles', 'access', 'automations', 'bots', 'gps', 'appearance', 'error-log', 'deleted'] as const;

/** What a member who is not an administrator sees instead of the settings. */
function AdminsOnly() {
  const { t } = useTranslation();
  return (
    <Result
      status="403"
      title={t('settings.adminsOnlyTitle')}
      subTitle={t('settings.adminsOnly')}
      data-testid="admins-only"
      extra={
        <Link to="/">
          <Button type="primary">{t('settings.toHome')}</Button>
        </Link>
      }
    />
  );
}

/** The administrators' settings: users, roles, module access, automations, bots, GPS, appearance, the error log and what was deleted, one URL per tab. */
export function SettingsPage() {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  const me = useCall(identityApi.getCurrentUser, {});

  let body: React.ReactNode;
  if (me.error && !me.data) {
    body = <LoadFailed error={me.error} onRetry={me.reload} />;
  } else if (!me.data) {
    body = <Spin description={t('settings.loading')} />;
  } else if (!me.data.user.isAdmin) {
    body = <AdminsOnly />;
  } else {
    const active = TABS.find((tab) => location.pathname.startsWith(`/settings/${tab}`)) ?? 'users';
    const myId = me.data.user.id;
    body = (
      <>
        <Tabs
          activeKey={active}
          onChange={(key) => navigate(`/settings/${key}`)}
          items={TABS.map((tab) => ({ key: tab, label: t(`settings.tabs.${tab}`) }))}
          size="small"
        />
        <Routes>
          <Route path="users" element={<UsersTab myId={myId} />} />
          <Route path="roles" element={<RolesTab />} />
          <Route path="access" element={<AccessTab />} />
          <Route path="automations" element={<AutomationsTab />} />
          <Route path="bots" element={<BotsTab />} />
          <Route path="gps" element={<GpsTab />} />
          <Route path="appearance" element={<AppearanceTab />} />
          <Route path="error-log" element={<ErrorLogTab />} />
          <Route path="deleted" element={<DeletedTab />} />
          <Route path="*" element={<Navigate to="/settings/users" replace />} />
        </Routes>
      </>
    );
  }
  return (
    <div style={{ padding: '12px 24px' }}>
      <Typography.Title level={3} style={{ marginTop: 0 }}>
        {t('settings.title')}
      </Typography.Title>
      {body}
    </div>
  );
}
