import { homeApi } from '@shared/api/home';
import { identityApi, type Me } from '@shared/api/identity';
import { type Onboarding, tasksApi } from '@shared/api/tasks';
import { Alert, Card, List, Segmented, Spin, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate } from 'react-router';
import { ApiError, call, storedTokens } from '../../api';
import { useReplica } from '../../data/replica-context';
import { failureText, useCall } from '../../use-api';

type Filter = 'all' | 'assigned' | 'mentioned' | 'substitution';

/** The inbox with its filters; "Substitution" gathers both delegation reasons. */
function InboxCard() {
  const { t } = useTranslation();
  const [filter, setFilter] = useState<Filter>('all');
  const query = filter === 'assigned' || filter === 'mentioned' ? { reason: filter } : {};
  const inbox = useCall(tasksApi.getInbox, { query });
  const items = (inbox.data?.items ?? []).filter(
    (item) => filter !== 'substitution' || item.reason === 'delegation' || item.reason === 'delegation_review',
  );
  return (
    <Card title={t('home.inbox')} style={{ marginBottom: 16 }}>
      <Segmented<Filter>
        value={filter}
        onChange={setFilter}
        options={(['all', 'assigned', 'mentioned', 'substitution'] as const).map((value) => ({
          value,
          label: t(`home.filters.${value}`),
        }))}
        style={{ marginBottom: 12 }}
      />
      <List
        size="small"
        loading={inbox.loading}
        dataSource={items}
        locale={{ emptyText: inbox.error ?? t('home.noInbox') }}
        renderItem={(item) => (
          <List.Item data-testid="inbox-item">
            <Link to={`/tasks/${item.task.id}`}>{item.task.title}</Link>
            <Tag>{t(`home.reasons.${item.reason}`)}</Tag>
          </List.Item>
        )}
      />
    </Card>
  );
}

function RecentCard() {
  const { t } = useTranslation();
  const recent = useCall(tasksApi.getRecentTasks, {});
  return (
    <Card title={t('home.recent')} style={{ marginBottom: 16 }}>
      <List
        size="small"
        loading={recent.loading}
        dataSource={recent.data?.items ?? []}
        locale={{ emptyText: recent.error ?? t('home.noRecent') }}
        renderItem={(item) => (
          <List.Item data-testid="recent-item">
            <Link to={`/tasks/${item.task.id}`}>{item.task.title}</Link>
          </List.Item>
        )}
      />
    </Card>
  );
}

export function HomePage() {
  const { t } = useTranslation();
  const [me, setMe] = useState<Me>();
  const [onboarding, setOnboarding] = useState<Onboarding>();
  const [error, setError] = useState<string>();
  const [signedOut, setSignedOut] = useState(!storedTokens());
  // Without the server, home still greets the remembered user and links to what works offline.
  const [unreachable, setUnreachable] = useState(false);
  const remembered = useReplica().me;

  useEffect(() => {
    if (signedOut) return;
    Promise.all([call(identityApi.getCurrentUser), call(homeApi.getOnboarding)])
      .then(([user, checklist]) => {
        setMe(user);
        setOnboarding(checklist);
      })
      .catch((caught: unknown) => {
        if (caught instanceof ApiError && caught.problem.status === 401) setSignedOut(true);
        else if (caught instanceof ApiError && caught.problem.status === 0) setUnreachable(true);
        else setError(failureText(caught, t));
      });
  }, [signedOut, t]);

  if (signedOut) return <Navigate to="/sign-in" replace />;
  if (error) return <Alert type="error" title={error} role="alert" />;
  if (unreachable && remembered) {
    return (
      <div style={{ maxWidth: 720, margin: '0 auto', padding: 24 }}>
        <Typography.Title level={2}>{t('home.welcome', { name: remembered.user.name })}</Typography.Title>
        <Typography.Paragraph>
          {t('home.organization')}: <strong data-testid="organization-name">{remembered.organization.name}</strong>
        </Typography.Paragraph>
        <Alert
          type="info"
          role="status"
          title={t('home.offline')}
          description={
            <Link to="/tasks" data-testid="offline-tasks-link">
              {t('nav.tasks')}
            </Link>
          }
        />
      </div>
    );
  }
  if (unreachable) return <Alert type="error" title={t('errors.network')} role="alert" />;
  if (!me || !onboarding) return <Spin description={t('home.loading')} />;
  return (
    <div style={{ maxWidth: 720, margin: '0 auto', padding: 24 }}>
      <Typography.Title level={2}>{t('home.welcome', { name: me.user.name })}</Typography.Title>
      <Typography.Paragraph>
        {t('home.organization')}: <strong data-testid="organization-name">{me.organization.name}</strong>
      </Typography.Paragraph>
      <InboxCard />
      <RecentCard />
      {!onboarding.dismissed && (
        <Card title={t('home.onboarding')}>
          <List
            dataSource={onboarding.steps}
            renderItem={(step) => (
              <List.Item data-testid={`onboarding-${step.key}`}>
                {t(`home.steps.${step.key}`)}
                <Tag color={step.done ? 'green' : 'default'}>{step.done ? t('home.done') : t('home.todo')}</Tag>
              </List.Item>
            )}
          />
        </Card>
      )}
    </div>
  );
}
