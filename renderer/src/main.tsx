import { App as AntApp, ConfigProvider, Layout, Menu, Select, Space, Typography } from 'antd';
import enUS from 'antd/locale/en_US';
import ruRU from 'antd/locale/ru_RU';
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { useTranslation } from 'react-i18next';
import { BrowserRouter, Route, Routes, useLocation, useNavigate } from 'react-router';
import { i18next, type Language, setLanguage } from './i18n';
import { RegisterPage, SignInPage } from './pages/auth-pages';
import { DirectoriesPage } from './pages/directories/directories-page';
import { FormEditorPage } from './pages/form-editor/form-editor-page';
import { FormsPage } from './pages/forms-page';
import { HomePage } from './pages/home-page';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/profile/password-pages';
import { ProfilePage } from './pages/profile/profile-page';
import { SettingsPage } from './pages/settings/settings-page';
import { TaskPage } from './pages/task-page';
import { TasksPage } from './pages/tasks-page';

/** Screens shown to someone who is not signed in. */
const SIGNED_OUT_PATHS = ['/sign-in', '/register', '/forgot-password', '/reset-password'];

function Shell() {
  const { t } = useTranslation();
  const [language, setCurrent] = useState<Language>(i18next.language as Language);
  const location = useLocation();
  const navigate = useNavigate();
  const signedIn = !SIGNED_OUT_PATHS.includes(location.pathname);
  return (
    <ConfigProvider locale={language === 'en' ? enUS : ruRU}>
      <AntApp>
        <Layout style={{ minHeight: '100vh' }}>
          <Layout.Header style={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between' }}>
            <Space size="large">
              <Typography.Text style={{ color: '#fff', fontSize: 18 }}>{t('app.name')}</Typography.Text>
              {signedIn && (
                <Menu
                  theme="dark"
                  mode="horizontal"
                  selectedKeys={[`/${location.pathname.split('/')[1]}`]}
                  onClick={({ key }) => navigate(key)}
                  style={{ minWidth: 320 }}
                  items={[
                    { key: '/', label: t('nav.home') },
                    { key: '/forms', label: t('nav.forms') },
                    { key: '/tasks', label: t('nav.tasks') },
                    { key: '/directories', label: t('nav.directories') },
                    { key: '/profile', label: t('nav.profile') },
                    { key: '/settings', label: t('nav.settings') },
                  ]}
                />
              )}
            </Space>
            <Space>
              <Select
                aria-label={t('app.language')}
                value={language}
                style={{ width: 120 }}
                onChange={(next: Language) => {
                  setLanguage(next);
                  setCurrent(next);
                }}
                options={[
                  { value: 'ru', label: 'Русский' },
                  { value: 'en', label: 'English' },
                ]}
              />
            </Space>
          </Layout.Header>
          <Layout.Content>
            <Routes>
              <Route path="/sign-in" element={<SignInPage />} />
              <Route path="/register" element={<RegisterPage />} />
              <Route path="/forgot-password" element={<ForgotPasswordPage />} />
              <Route path="/reset-password" element={<ResetPasswordPage />} />
              <Route path="/forms" element={<FormsPage />} />
              <Route path="/forms/new" element={<FormEditorPage />} />
              <Route path="/forms/:formId/edit" element={<FormEditorPage />} />
              <Route path="/directories" element={<DirectoriesPage />} />
              <Route path="/directories/:directoryId" element={<DirectoriesPage />} />
              <Route path="/profile" element={<ProfilePage />} />
              <Route path="/settings/*" element={<SettingsPage />} />
              <Route path="/tasks" element={<TasksPage />} />
              <Route path="/tasks/:taskId" element={<TaskPage />} />
              <Route path="*" element={<HomePage />} />
            </Routes>
          </Layout.Content>
        </Layout>
      </AntApp>
    </ConfigProvider>
  );
}

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <BrowserRouter>
      <Shell />
    </BrowserRouter>
  </StrictMode>,
);
