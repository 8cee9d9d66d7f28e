import { identityApi } from '@shared/api/identity';
import { Alert, Button, Card, Form, Input, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ApiError, call, storeTokens } from '../../api';
import { useMessage } from '../../messages';
import { problemWords } from '../../problem-words';
import { PASSWORD_LIMITS, passwordIssue } from './password-rules';

function Centered({ children }: { children: React.ReactNode }) {
  return <div style={{ display: 'flex', justifyContent: 'center', paddingTop: 80 }}>{children}</div>;
}

/** The server's words for a failed call, or the network message when it was not reached. */
function useFailure() {
  const { t } = useTranslation();
  return (caught: unknown, failedKey: string) =>
    caught instanceof ApiError && caught.problem.status > 0
      ? `${t(failedKey)}: ${problemWords(t, caught.problem)}`
      : t('errors.network');
}

/** Asks for a reset link. The answer is the same whether or not the address has an account. */
export function ForgotPasswordPage() {
  const { t } = useTranslation();
  const failure = useFailure();
  const [sentTo, setSentTo] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async ({ email }: { email: string }) => {
    setBusy(true);
    setError(undefined);
    try {
      await call(identityApi.forgotPassword, { body: { email } });
      setSentTo(email);
    } catch (caught) {
      setError(failure(caught, 'profile.forgot.failed'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Centered>
      <Card title={t('profile.forgot.title')} style={{ width: 420 }}>
        {sentTo ? (
          <>
            <Alert
              type="success"
              role="status"
              data-testid="forgot-sent"
              title={t('profile.forgot.sent')}
              description={t('profile.forgot.sentHint')}
              style={{ marginBottom: 16 }}
            />
            <Button onClick={() => setSentTo(undefined)} block>
              {t('profile.forgot.again')}
            </Button>
          </>
        ) : (
          <>
            <Typography.Paragraph type="secondary">{t('profile.forgot.intro')}</Typography.Paragraph>
            {error && <Alert type="error" title={error} role="alert" style={{ marginBottom: 16 }} />}
            <Form layout="vertical" onFinish={submit} requiredMark={false}>
              <Form.Item
                name="email"
                label={t('profile.forgot.email')}
                rules={[
                  { required: true, message: t('errors.required') },
                  { type: 'email', message: t('profile.forgot.invalidEmail') },
                ]}
              >
                <Input type="email" autoComplete="email" autoFocus />
              </Form.Item>
              <Button type="primary" htmlType="submit" loading={busy} block>
                {t('profile.forgot.submit')}
              </Button>
            </Form>
          </>
        )}
        <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0 }}>
          <Link to="/sign-in">{t('profile.forgot.backToSignIn')}</Link>
        </Typography.Paragraph>
      </Card>
    </Centered>
  );
}

/**
 * Sets a password from the link the server mails: a password reset, or an invitation (the new
 * user's first password). A link works once, so a refused token ends the form.
 */
export function ResetPasswordPage() {
  const { t } = useTranslation();
  const message = useMessage();
  const navigate = useNavigate();
  const failure = useFailure();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [refused, setRefused] = useState(false);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async ({ password }: { password: string }) => {
    setBusy(true);
    setError(undefined);
    try {
      await call(identityApi.resetPassword, { body: { token, password } });
      // Every session of the account has just ended, this browser's too.
      storeTokens(undefined);
      message.success(t('profile.reset.done'), 6);
      navigate('/sign-in');
    } catch (caught) {
      if (caught instanceof ApiError && caught.problem.code === 'invalid_reset_token') setRefused(true);
      else setError(failure(caught, 'profile.reset.failed'));
    } finally {
      setBusy(false);
    }
  };

  const deadLink = (titleKey: string, textKey: string) => (
    <>
      <Alert
        type="warning"
        role="alert"
        data-testid="reset-link-invalid"
        title={t(titleKey)}
        description={t(textKey)}
        style={{ marginBottom: 16 }}
      />
      <Link to="/forgot-password">{t('profile.reset.askNew')}</Link>
    </>
  );

  return (
    <Centered>
      <Card title={t('profile.reset.title')} style={{ width: 420 }}>
        {!token ? (
          deadLink('profile.reset.missingTitle', 'profile.reset.missing')
        ) : refused ? (
          deadLink('profile.reset.invalidTitle', 'profile.reset.invalid')
        ) : (
          <>
            <Typography.Paragraph type="secondary">{t('profile.reset.intro')}</Typography.Paragraph>
            {error && <Alert type="error" title={error} role="alert" style={{ marginBottom: 16 }} />}
            <Form layout="vertical" onFinish={submit} requiredMark={false}>
              <Form.Item
                name="password"
                label={t('profile.reset.password')}
                extra={t('profile.reset.rules', { min: PASSWORD_LIMITS.min })}
                rules={[
                  {
                    validator: async (_rule, value: string | undefined) => {
                      const issue = passwordIssue(value ?? '', value ?? '');
                      if (issue) throw new Error(t(`profile.reset.${issue}`, PASSWORD_LIMITS));
                    },
                  },
                ]}
              >
                <Input.Password autoComplete="new-password" autoFocus />
              </Form.Item>
              <Form.Item
                name="confirmation"
                label={t('profile.reset.confirmation')}
                dependencies={['password']}
                rules={[
                  ({ getFieldValue }) => ({
                    validator: async (_rule, value: string | undefined) => {
                      if (passwordIssue(getFieldValue('password') ?? '', value ?? '') === 'mismatch') {
                        throw new Error(t('profile.reset.mismatch'));
                      }
                    },
                  }),
                ]}
              >
                <Input.Password autoComplete="new-password" />
              </Form.Item>
              <Button type="primary" htmlType="submit" loading={busy} block>
                {t('profile.reset.submit')}
              </Button>
            </Form>
          </>
        )}
        <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0 }}>
          <Link to="/sign-in">{t('profile.forgot.backToSignIn')}</Link>
        </Typography.Paragraph>
      </Card>
    </Centered>
  );
}
