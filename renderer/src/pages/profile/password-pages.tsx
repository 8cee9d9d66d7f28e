import { Typography } from 'antd';
import { useTranslation } from 'react-i18next';

export function ForgotPasswordPage() {
  const { t } = useTranslation();
  return <Typography.Title level={3}>{t('profile.title')}</Typography.Title>;
}

export function ResetPasswordPage() {
  const { t } = useTranslation();
  return <Typography.Title level={3}>{t('profile.title')}</Typography.Title>;
}
