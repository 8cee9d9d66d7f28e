import type { Me } from '@shared/api/identity';
import { Alert, Card, List, Spin, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate } from 'react-router';
import { ApiError, api, storedTokens } from '../api';

interface Onboarding {
  steps: { key: 'form' | 'colleagues' | 'task'; done: boolean }[];
  completed: boolean;
  dismissed: boolean;
}

export function HomePage() {
  const { t } = useTranslation();
  const [me, setMe] = useState<Me>();
  const [onboarding, setOnboarding] = useState<Onboarding>();
  const [error, setError] = useState<string>();
  const [signedOut, setSignedOut] = useState(!storedTokens());

  useEffect(() => {
    if (signedOut) return;
    Promise.all([api<Me>('GET', '/api/auth/me'), api<Onboarding>('GET', '/api/onboarding')])
      .then(([user, checklist]) => {
        setMe(user);
        setOnboarding(checklist);
      })
      .catch((caught: unknown) => {
        if (caught instanceof ApiError && caught.problem.status === 401) setSignedOut(true);
        else
          setError(
            caught instanceof ApiError && caught.problem.status > 0 ? caught.problem.detail : t('errors.network'),
          );
      });
  }, [signedOut, t]);

  if (signedOut) return <Navigate to="/sign-in" replace />;
  if (error) return <Alert type="error" title={error} role="alert" />;
  if (!me || !onboarding) return <Spin description={t('home.loading')} />;
  return (
    <div style={{ maxWidth: 720, margin: '0 auto', padding: 24 }}>
      <Typography.Title level={2}>{t('home.welcome', { name: me.user.name })}</Typography.Title>
      <Typography.Paragraph>
        {t('home.organization')}: <strong data-testid="organization-name">{me.organization.name}</strong>
      </Typography.Paragraph>
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
