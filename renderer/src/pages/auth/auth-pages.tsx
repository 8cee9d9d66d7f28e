import type { CallInput } from '@shared/api/endpoint';
import { identityApi, type TokenResponse } from '@shared/api/identity';
import type { Problem } from '@shared/api/problem';
import { Alert, Button, Card, Form, Input, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { ApiError, call, storeTokens } from '../../api';
import { useReplica } from '../../data/replica-context';
import { problemWords } from '../../problem-words';

type SignIn = CallInput<typeof identityApi.login>['body'];
type Registration = Omit<CallInput<typeof identityApi.register>['body'], 'locale'>;

/** Sends a sign-in form and signs in with the tokens it answers; a refusal is said in the user's words. */
function useSubmit<Values>(
  send: (values: Values) => Promise<TokenResponse>,
  failedKey: string,
  refused?: (problem: Problem, values: Values) => void,
) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (values: Values) => {
    setBusy(true);
    setError(undefined);
    try {
      storeTokens(await send(values));
      navigate('/');
    } catch (caught) {
      const problem = caught instanceof ApiError ? caught.problem : undefined;
      if (problem) refused?.(problem, values);
      setError(problem && problem.status > 0 ? `${t(failedKey)}: ${problemWords(t, problem)}` : t('errors.network'));
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, submit };
}

function Centered({ children }: { children: React.ReactNode }) {
  return <div style={{ display: 'flex', justifyContent: 'center', paddingTop: 80 }}>{children}</div>;
}

export function SignInPage() {
  const { t } = useTranslation();
  const { deactivated, signInRefusedAsDeactivated } = useReplica();
  // A deactivated account's copy kept here at its last sign-out goes once its password is proven.
  const { error, busy, submit } = useSubmit(
    (values: SignIn) => call(identityApi.login, { body: values }),
    'signIn.failed',
    (problem, values) => {
      if (problem.code === 'account_deactivated') signInRefusedAsDeactivated(values.email ?? '');
    },
  );
  return (
    <Centered>
      <Card title={t('signIn.title')} style={{ width: 380 }}>
        {deactivated && (
          <Alert
            type={deactivated.removal === 'failed' ? 'error' : 'warning'}
            role="alert"
            data-testid="deactivated"
            style={{ marginBottom: 16 }}
            title={
              deactivated.removal === 'under way'
                ? t('signIn.deactivatedRemoving')
                : deactivated.removal === 'done'
                  ? t('signIn.deactivatedRemoved')
                  : t('signIn.deactivatedKept', {
                      reason: deactivated.inUse ? t('errors.copyInUse') : deactivated.reason,
                    })
            }
          />
        )}
        {error && <Alert type="error" title={error} role="alert" style={{ marginBottom: 16 }} />}
        <Form layout="vertical" onFinish={submit} requiredMark={false}>
          <Form.Item name="email" label={t('signIn.email')} rules={[{ required: true, message: t('errors.required') }]}>
            <Input type="email" autoComplete="email" autoFocus />
          </Form.Item>
          <Form.Item
            name="password"
            label={t('signIn.password')}
            rules={[{ required: true, message: t('errors.required') }]}
          >
            <Input.Password autoComplete="current-password" />
          </Form.Item>
          <Typography.Paragraph style={{ marginTop: -8, textAlign: 'right' }}>
            <Link to="/forgot-password">{t('profile.forgot.link')}</Link>
          </Typography.Paragraph>
          <Button type="primary" htmlType="submit" loading={busy} block>
            {t('signIn.submit')}
          </Button>
        </Form>
        <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0 }}>
          {t('signIn.noAccount')} <Link to="/register">{t('signIn.register')}</Link>
        </Typography.Paragraph>
      </Card>
    </Centered>
  );
}

export function RegisterPage() {
  const { t, i18n } = useTranslation();
  const { error, busy, submit } = useSubmit(
    (values: Registration) =>
      call(identityApi.register, { body: { ...values, locale: i18n.language === 'en' ? 'en' : 'ru' } }),
    'register.failed',
  );
  const required = [{ required: true, message: t('errors.required') }];
  return (
    <Centered>
      <Card title={t('register.title')} style={{ width: 420 }}>
        {error && <Alert type="error" title={error} role="alert" style={{ marginBottom: 16 }} />}
        <Form layout="vertical" onFinish={submit} requiredMark={false}>
          <Form.Item name="organizationName" label={t('register.organization')} rules={required}>
            <Input autoFocus />
          </Form.Item>
          <Form.Item name="name" label={t('register.name')} rules={required}>
            <Input autoComplete="name" />
          </Form.Item>
          <Form.Item name="email" label={t('signIn.email')} rules={required}>
            <Input type="email" autoComplete="email" />
          </Form.Item>
          <Form.Item name="password" label={t('signIn.password')} rules={required}>
            <Input.Password autoComplete="new-password" />
          </Form.Item>
          <Button type="primary" htmlType="submit" loading={busy} block>
            {t('register.submit')}
          </Button>
        </Form>
        <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0 }}>
          {t('register.haveAccount')} <Link to="/sign-in">{t('register.signIn')}</Link>
        </Typography.Paragraph>
      </Card>
    </Centered>
  );
}
