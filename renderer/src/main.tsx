import { App as AntApp, ConfigProvider, Layout, Menu, Select, Space, Typography } from 'antd';
import enUS from 'antd/locale/en_US';
import ruRU from 'antd/locale/ru_RU';
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { useTranslation } from 'react-i18next';
import { BrowserRouter, Route, Routes, useLocation, useNavigate } from 'react-router';
import { i18next, type Language, setLanguage } from './i18n';
import { RegisterPage, SignInPage } from './pages/auth-pages';
import { FormsPage } from './pages/forms-page';
import { HomePage } from './pages/home-page';
import { TaskPage } from './pages/task-page';
import { TasksPage } from './pages/tasks-page';

function Shell() {
  const { t } = useTranslation();
  const [language, setCurrent] = useState<Language>(i18next.language as Language);
  const location = useLocation();
  const navigate = useNavigate();
  const signedIn = !['/sign-in', '/register'].includes(location.pathname);
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
                  selectedKeys={[location.pathname]}
                  onClick={({ key }) => navigate(key)}
                  style={{ minWidth: 320 }}
                  items={[
                    { key: '/', label: t('nav.home') },
                    { key: '/forms', label: t('nav.forms') },
                    { key: '/tasks', label: t('nav.tasks') },
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
              <Route path="/forms" element={<FormsPage />} />
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
